// testing/positions.hpp — positions for tests of whole-position answers (labels, the
// explorer): positions reached by seeded random play, and the reference value of a sowing.
#pragma once

#include <random>
#include <vector>

#include "engine/game.hpp"
#include "engine/position.hpp"
#include "engine/rules.hpp"
#include "solver/reference/reference_solver.hpp"

namespace kalah::test {

// `count` positions of Kalah(pits, seeds), the start first, then each after 0..max_plies
// random sowings (seeded) under the value rules of `rules` (a game may end on the way).
inline std::vector<Position> random_positions(int pits, int seeds, const Rules& rules, int count, unsigned seed,
                                              int max_plies) {
  std::mt19937 rng(seed);
  std::vector<Position> out{Position::start(pits, seeds)};
  while (static_cast<int>(out.size()) < count) {
    Game game(Position::start(pits, seeds), rules.value_rules());
    const int plies = static_cast<int>(rng() % static_cast<unsigned>(max_plies + 1));
    for (int i = 0; i < plies && !game.over(); ++i) {
      const std::vector<int> legal = game.legal_pits();
      game.sow(legal[rng() % legal.size()]);
    }
    out.push_back(game.position());
  }
  return out;
}

// South minus North after sowing `pit` from p, with perfect play after, by the reference solver.
inline int reference_after(const Position& p, int pit, const Rules& rules) {
  ReferenceSolver ref(p.pits, rules.value_rules());
  const int v = ref.value_after(p.board(), pit);
  return p.margin() + (p.to_move == Side::South ? v : -v);
}

}  // namespace kalah::test

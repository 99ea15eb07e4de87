// testing/search_support.hpp — shared helpers for the search tests: the rule options
// under test, random reachable positions, and a reference-solver-backed endgame probe.
#pragma once

#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "engine/board.hpp"
#include "engine/rules.hpp"
#include "solver/reference/reference_solver.hpp"
#include "solver/search/endgame_probe.hpp"
#include "testing/rule_sets.hpp"

namespace kalah::test {

inline int seeds_in(const Board& b, int m) {
  int k = 0;
  for (int i = 0; i < 2 * m; ++i) k += b.cells[i];
  return k;
}

inline Board start_board(int m, int n) {
  Board b;
  for (int i = 0; i < 2 * m; ++i) b.cells[i] = static_cast<std::uint8_t>(n);
  return b;
}

// Play uniformly random sowings from the start of Kalah(m, n) until at most max_seeds seeds
// are left in the pits; returns a non-terminal board seen from its mover, or nothing when
// the game ended first.
inline bool random_board(int m, int n, int max_seeds, const Rules& rules, std::mt19937& rng, Board& out) {
  Board b = start_board(m, n);
  for (;;) {
    int remainder = 0;
    if (is_terminal(b, m, rules.end, remainder)) return false;
    if (seeds_in(b, m) <= max_seeds) {
      out = b;
      return true;
    }
    std::vector<int> pits;
    for (int i = 0; i < m; ++i)
      if (b.cells[i]) pits.push_back(i);
    const int pit = pits[std::uniform_int_distribution<std::size_t>(0, pits.size() - 1)(rng)];
    const SowOutcome o = sow(b, m, pit, rules);
    if (!o.extra_turn) b = flipped(b, m);
  }
}

// An "endgame database" answering from a reference solver (boards with at most max_seeds).
struct ReferenceProbe {
  mutable std::mutex mutex;
  mutable ReferenceSolver solver;
  int max_seeds;
  ReferenceProbe(int m, const Rules& rules, int seeds) : solver(m, rules), max_seeds(seeds) {}
  search::EndgameProbe probe() const {
    search::EndgameProbe p;
    p.max_seeds = max_seeds;
    p.context = this;
    p.lookup = [](const void* context, const Board& b, int) {
      const auto* self = static_cast<const ReferenceProbe*>(context);
      std::lock_guard<std::mutex> lock(self->mutex);
      return self->solver.value(b);
    };
    return p;
  }
};

}  // namespace kalah::test

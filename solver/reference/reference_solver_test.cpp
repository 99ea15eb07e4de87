// The reference solver against the published results (PUBLISHED.md): Irving et al.'s
// win/draw/loss table for every m <= 3 and the printed margins it can reach quickly.
// Irving et al. use empty capture and the either end rule.
#include "testing/catch.hpp"

#include <vector>

#include "engine/game.hpp"
#include "engine/position.hpp"
#include "solver/analysis/analysis.hpp"
#include "solver/reference/reference_solver.hpp"

using namespace kalah;

namespace {

int start_value(int m, int n, const Rules& rules) {
  ReferenceSolver solver(m, rules);
  return solver.value(Position::start(m, n).board());
}

}  // namespace

TEST_CASE("reference solver matches Irving et al.'s win/draw/loss table for m <= 3", "[reference]") {
  // Table 10 of Irving, Donkers, Uiterwijk 2000, rows m = 1..3, columns n = 1..6.
  const char* table[3] = {"DLWLWD", "WLLLWW", "DWWWWL"};
  const Rules rules = Rules::preset("empty-capture");
  for (int m = 1; m <= 3; ++m) {
    for (int n = 1; n <= 6; ++n) {
      const int v = start_value(m, n, rules);
      const char got = v > 0 ? 'W' : v < 0 ? 'L' : 'D';
      INFO("Kalah(" << m << "," << n << ") value " << v);
      CHECK(got == table[m - 1][n - 1]);
    }
  }
}

TEST_CASE("reference solver reproduces the printed margins it can reach", "[reference]") {
  const Rules rules = Rules::preset("empty-capture");
  struct Case {
    int m, n, margin;
  };
  // Table 9 of Irving et al. (the larger boards are left to the fast search's tests).
  const Case cases[] = {{4, 1, 2}, {4, 2, 6}, {4, 3, 8}, {5, 1, 0}, {5, 2, 0}, {6, 1, 2}};
  for (const auto& c : cases) {
    INFO("Kalah(" << c.m << "," << c.n << ")");
    CHECK(start_value(c.m, c.n, rules) == c.margin);
  }
}

TEST_CASE("position value adds the stores and signs the remainder for the side to move", "[reference]") {
  const Rules rules = Rules::preset("standard");
  ReferenceSolver solver(3, rules);
  const Oracle oracle = [&](const Board& b) { return solver.value(b); };
  // North to move, one seed each side: North sows pit 3 into its store (extra turn), then
  // has no seeds: the game ends and South banks its seed. Stores 5 and 2 at the start.
  const Position p = Position::parse("0,0,1/0,0,1/5/2/N");
  const PositionSolution sol = solve_position(p, rules, oracle);
  CHECK(sol.value == (5 + 1) - (2 + 1));
  CHECK(sol.best == std::vector<int>{2});
  CHECK(sol.final_position.to_text() == "0,0,0/0,0,0/6/3/N");
}

TEST_CASE("a finished position has no best move and its stores as value", "[reference]") {
  const Rules rules = Rules::preset("standard");
  ReferenceSolver solver(2, rules);
  const Oracle oracle = [&](const Board& b) { return solver.value(b); };
  const PositionSolution sol = solve_position(Position::parse("0,0/1,2/4/3/S"), rules, oracle);
  CHECK(sol.value == 4 - 6);  // South to move with no seeds: North banks its 3 seeds
  CHECK(sol.best.empty());
  CHECK(sol.pv.empty());
}

TEST_CASE("end rules differ: under 'mover' the player to move with seeds plays on", "[reference]") {
  // South sows pit 2 (2 seeds): one to its store, one to North's pit 1; South is empty.
  //  either: the game ends, North banks 3: remainder 1 - 3 = -2.
  //  mover:  North (to move, with seeds) plays on: N1 (3 seeds) -> N2, N store, S1; South
  //          S1 -> S2 (opposite N1 empty: no capture); North N2 -> store, extra turn with
  //          no seeds: over, South banks 1. South 1 + 1, North 1 + 1: remainder 0.
  const Board b = Position::parse("0,2/2,0/0/0/S").board();
  Rules either = Rules::preset("standard");
  Rules mover = either;
  mover.end = EndRule::Mover;
  CHECK(ReferenceSolver(2, either).value(b) == -2);
  CHECK(ReferenceSolver(2, mover).value(b) == 0);
}

TEST_CASE("the line prefers extra turns, then captures, then seeds banked, then the pit nearest the store",
          "[reference]") {
  const Rules rules = Rules::preset("standard");
  int pits[kMaxPits];
  // Pits 1 and 3 earn extra turns (one seed banked each), pit 2 does not.
  REQUIRE(line_order(Position::parse("3,1,1/1,1,1/0/0/S").board(), 3, rules, pits) == 3);
  CHECK(std::vector<int>(pits, pits + 3) == std::vector<int>{2, 0, 1});
  // Pit 2 captures (into the empty pit 3, North's seeds opposite), pit 1 does not.
  REQUIRE(line_order(Position::parse("1,1,0/2,2,2/0/0/S").board(), 3, rules, pits) == 2);
  CHECK(std::vector<int>(pits, pits + 2) == std::vector<int>{1, 0});
  // Neither: pit 1 banks one seed, pit 3's four seeds bank one too; empty pits are left out.
  REQUIRE(line_order(Position::parse("4,0,4/2,2,2/0/0/S").board(), 3, rules, pits) == 2);
  CHECK(std::vector<int>(pits, pits + 2) == std::vector<int>{2, 0});
}

TEST_CASE("the principal variation plays line_order's first best sowing at every board", "[reference]") {
  for (const char* preset : {"standard", "empty-capture"}) {
    const Rules rules = Rules::preset(preset);
    for (int m = 2; m <= 3; ++m) {
      ReferenceSolver solver(m, rules);
      const Oracle oracle = [&](const Board& b) { return solver.value(b); };
      for (int n = 1; n <= 3; ++n) {
        INFO(preset << " Kalah(" << m << "," << n << ")");
        const PositionSolution sol = solve_position(Position::start(m, n), rules, oracle);
        Game game(Position::start(m, n), rules.value_rules());
        for (const SowingRecord& played : sol.pv) {
          const Board b = game.position().board();
          int order[kMaxPits];
          const int count = line_order(b, m, rules.value_rules(), order);
          const int value = solver.value(b);
          int first_best = -1;
          for (int i = 0; i < count && first_best < 0; ++i)
            if (value_after_sowing(b, m, order[i], rules.value_rules(), oracle) == value) first_best = order[i];
          REQUIRE(played.pit == first_best);
          game.sow(played.pit);
        }
        CHECK(game.over());
        CHECK(game.margin() == sol.value);
      }
    }
  }
}

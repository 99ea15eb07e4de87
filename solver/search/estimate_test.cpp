// MTD(f)'s first guess (solver/search/estimate.hpp): exact where it sees the whole game, and
// never a cause of a different value (the solver with the estimate on large boards against
// the reference solver and against the solver without it).
#include "testing/catch.hpp"

#include <atomic>

#include "solver/base/board_index.hpp"
#include "solver/search/estimate.hpp"
#include "solver/search/solver.hpp"
#include "testing/search_support.hpp"

using namespace kalah;
using kalah::test::all_value_rules;

TEST_CASE("estimate: exact when the look-ahead reaches the end of every line", "[search]") {
  for (const Rules& rules : all_value_rules()) {
    for (int n = 1; n <= 3; ++n) {
      const Board b = test::start_board(2, n);
      const int k = 4 * n;
      const base::SowTables sowing(BoardIndexer(2, 0), k);
      const search::Estimate e = search::estimate_value(b, 2, k, rules, sowing, search::EndgameProbe{}, 1u << 24);
      ReferenceSolver ref(2, rules);
      INFO("rules " << rules.describe() << " n=" << n);
      CHECK(e.value == ref.value(b));
      CHECK(e.depth > 0);
    }
  }
}

TEST_CASE("estimate: an iteration past the budget is abandoned", "[search]") {
  const Rules rules = Rules::preset("standard");
  const Board b = test::start_board(6, 6);
  const base::SowTables sowing(BoardIndexer(6, 0), 72);
  const search::Estimate e = search::estimate_value(b, 6, 72, rules, sowing, search::EndgameProbe{}, 1000);
  CHECK(e.nodes < 20000);
  CHECK(e.value % 2 == 0);  // the parity of the seeds in play
  CHECK(e.value >= -72);
  CHECK(e.value <= 72);
}

TEST_CASE("search: values with the estimated first guess equal the reference solver's", "[search]") {
  // Boards with at least 28 seeds above the (absent) database get an estimated first guess.
  struct Game {
    int m, n;
  };
  const Game games[] = {{2, 7}, {2, 9}, {3, 5}};
  for (const Rules& rules : all_value_rules()) {
    for (const Game& g : games) {
      INFO("rules " << rules.describe() << " m=" << g.m << " n=" << g.n);
      const Board b = test::start_board(g.m, g.n);
      ReferenceSolver ref(g.m, rules);
      search::SolverOptions with;
      with.table_bytes = std::size_t(16) << 20;
      search::SolverOptions without = with;
      without.estimate_nodes = 0;
      search::Solver estimated(g.m, rules, 2 * g.m * g.n, with);
      search::Solver plain(g.m, rules, 2 * g.m * g.n, without);
      const int v = ref.value(b);
      CHECK(estimated.value(b) == v);
      REQUIRE(estimated.first_guess());
      CHECK(estimated.first_guess()->depth > 0);
      CHECK(plain.value(b) == v);
      REQUIRE(plain.first_guess());
      CHECK(plain.first_guess()->depth == 0);
      // Asked again, the table knows the value: no pass, so no guess (not the last one's).
      CHECK(estimated.value(b) == v);
      CHECK(!estimated.first_guess());
      CHECK(estimated.deepening_depth() == 0);
      CHECK(estimated.best_sowings(b) == ref.best_pits(b));
    }
  }
}

TEST_CASE("search: a value call cancelled before its first pass reports no first guess", "[search]") {
  // A job worker records the guess of a unit it stopped; the guess must be this board's, never
  // the one of the board searched before.
  const Rules rules = Rules::preset("standard");
  std::atomic<bool> cancel{false};
  search::SolverOptions options;
  options.table_bytes = std::size_t(16) << 20;
  options.cancel = &cancel;
  search::Solver solver(3, rules, 30, options);
  (void)solver.value(test::start_board(3, 5));
  REQUIRE(solver.first_guess());
  CHECK(solver.first_guess()->depth > 0);
  cancel.store(true);
  CHECK_THROWS_AS(solver.value(test::start_board(3, 4)), search::Interrupted);
  CHECK(!solver.first_guess());
  CHECK(solver.deepening_depth() == 0);
}

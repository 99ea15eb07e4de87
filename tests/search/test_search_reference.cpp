// The search against the reference solver: values and best-move sets, every rule option.
#include <catch2/catch.hpp>

#include <algorithm>

#include "solver/search/solver.hpp"
#include "tests/search/search_support.hpp"

using namespace kalah;
using kalah::test::all_value_rules;

namespace {

std::vector<int> best_pits(search::Solver& solver, const Board& b, int m, const Rules& rules) {
  std::vector<int> best;
  int best_value = -1000;
  for (int pit = 0; pit < m; ++pit) {
    if (!b.cells[pit]) continue;
    const int v = value_after_sowing(b, m, pit, rules, solver.oracle());
    if (v > best_value) {
      best_value = v;
      best.clear();
    }
    if (v == best_value) best.push_back(pit);
  }
  return best;
}

search::SolverOptions small_table(int threads = 1) {
  search::SolverOptions o;
  o.table_bytes = std::size_t(4) << 20;
  o.threads = threads;
  return o;
}

}  // namespace

TEST_CASE("search: start positions of small boards match the reference solver", "[search]") {
  for (const Rules& rules : all_value_rules()) {
    for (int m = 1; m <= 4; ++m) {
      const int max_n = m <= 2 ? 6 : m == 3 ? 4 : 2;
      for (int n = 1; n <= max_n; ++n) {
        INFO("rules " << rules.describe() << " m=" << m << " n=" << n);
        const Board b = test::start_board(m, n);
        ReferenceSolver ref(m, rules);
        search::Solver solver(m, rules, 2 * m * n, small_table());
        REQUIRE(solver.value(b) == ref.value(b));
        REQUIRE(best_pits(solver, b, m, rules) == ref.best_pits(b));
      }
    }
  }
}

TEST_CASE("search: random reachable positions of larger boards match the reference solver", "[search]") {
  struct Game {
    int m, n, seeds, count;
  };
  const Game games[] = {{5, 3, 14, 120}, {6, 3, 12, 120}, {6, 4, 12, 120}};
  std::mt19937 rng(20240611);
  for (const Rules& rules : all_value_rules()) {
    for (const Game& g : games) {
      ReferenceSolver ref(g.m, rules);
      search::Solver solver(g.m, rules, g.seeds, small_table());
      int tested = 0;
      while (tested < g.count) {
        Board b;
        if (!test::random_board(g.m, g.n, g.seeds, rules, rng, b)) continue;
        ++tested;
        INFO("rules " << rules.describe() << " m=" << g.m << " board " << tested);
        REQUIRE(solver.value(b) == ref.value(b));
        REQUIRE(best_pits(solver, b, g.m, rules) == ref.best_pits(b));
      }
    }
  }
}

TEST_CASE("search: parallel and serial searches agree", "[search]") {
  std::mt19937 rng(7);
  for (const Rules& rules : all_value_rules()) {
    search::Solver serial(6, rules, 20, small_table(1));
    search::Solver parallel(6, rules, 20, small_table(2));
    int tested = 0;
    while (tested < 40) {
      Board b;
      if (!test::random_board(6, 4, 20, rules, rng, b)) continue;
      ++tested;
      INFO("rules " << rules.describe() << " board " << tested);
      REQUIRE(parallel.value(b) == serial.value(b));
    }
  }
}

TEST_CASE("search: values with an endgame probe equal those without", "[search]") {
  std::mt19937 rng(99);
  for (const Rules& rules : all_value_rules()) {
    test::ReferenceProbe db(5, rules, 8);
    search::SolverOptions with_db = small_table(2);
    with_db.probe = db.probe();
    search::Solver plain(5, rules, 18, small_table(1));
    search::Solver probed(5, rules, 18, with_db);
    int tested = 0;
    while (tested < 40) {
      Board b;
      if (!test::random_board(5, 4, 18, rules, rng, b)) continue;
      ++tested;
      INFO("rules " << rules.describe() << " board " << tested);
      REQUIRE(probed.value(b) == plain.value(b));
    }
  }
}

TEST_CASE("search: a tiny table (constant replacement) still gives exact values", "[search]") {
  std::mt19937 rng(3);
  for (const Rules& rules : all_value_rules()) {
    search::SolverOptions tiny;
    tiny.table_bytes = 1024;
    ReferenceSolver ref(4, rules);
    search::Solver solver(4, rules, 16, tiny);
    for (int i = 0; i < 20;) {
      Board b;
      if (!test::random_board(4, 4, 12, rules, rng, b)) continue;
      ++i;
      REQUIRE(solver.value(b) == ref.value(b));
    }
  }
}

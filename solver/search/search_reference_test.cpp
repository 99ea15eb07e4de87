// The search against the reference solver: values and best-move sets, every rule option.
#include "testing/catch.hpp"

#include <algorithm>
#include <atomic>
#include <climits>
#include <initializer_list>
#include <memory>
#include <thread>

#include "solver/db/database.hpp"
#include "solver/db/paired_level.hpp"
#include "solver/search/solver.hpp"
#include "testing/search_support.hpp"

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

// The same, probing `probe`, or `db` (which must outlive the Solver).
search::SolverOptions small_table_over(const search::EndgameProbe& probe, int threads = 1) {
  search::SolverOptions o = small_table(threads);
  o.probe = probe;
  return o;
}
search::SolverOptions small_table_over(const EndgameDatabase& db, int threads = 1) {
  return small_table_over(search::database_probe(db), threads);
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
        REQUIRE(solver.best_sowings(b) == ref.best_pits(b));  // the CLI's null-window best-move test
      }
    }
  }
}

TEST_CASE("search: the full solve's best sowings and line are the reference solver's, every rule set", "[search]") {
  // The search tests only what the line needs past the position (line_order's first sowing
  // that attains the value); the reference values every sowing. Start positions and, over a
  // 4-seed probe on two threads, positions a few sowings in with North to move.
  const auto same_solution = [](const PositionSolution& got, const PositionSolution& want) {
    REQUIRE(got.value == want.value);
    REQUIRE(got.best == want.best);
    REQUIRE(got.pv.size() == want.pv.size());
    for (std::size_t i = 0; i < want.pv.size(); ++i) {
      INFO("sowing " << i + 1 << " of the line");
      REQUIRE(got.pv[i].side == want.pv[i].side);
      REQUIRE(got.pv[i].pit == want.pv[i].pit);
    }
    REQUIRE(got.final_position.to_text() == want.final_position.to_text());
  };
  std::mt19937 rng(4141);
  for (const Rules& rules : all_value_rules()) {
    for (int m = 2; m <= 4; ++m) {
      const int max_n = m <= 2 ? 5 : m == 3 ? 4 : 2;
      ReferenceSolver ref(m, rules);
      const Oracle reference = [&](const Board& b) { return ref.value(b); };
      for (int n = 1; n <= max_n; ++n) {
        INFO("rules " << rules.describe() << " Kalah(" << m << "," << n << ")");
        search::Solver solver(m, rules, 2 * m * n, small_table());
        const Position p = Position::start(m, n);
        same_solution(solve_position(p, rules, solver.oracle(), solver.best_sowings_function()),
                      solve_position(p, rules, reference));
      }
    }
    test::ReferenceProbe db(4, rules, 4);
    search::Solver probed(4, rules, 16, small_table_over(db.probe(), 2));
    ReferenceSolver ref(4, rules);
    const Oracle reference = [&](const Board& b) { return ref.value(b); };
    for (int tested = 0; tested < 6;) {
      Game game(Position::start(4, 4), rules.value_rules());
      while (!game.over() && (game.position().to_move == Side::South ||
                              game.position().pit_seeds(Side::South) + game.position().pit_seeds(Side::North) > 14)) {
        const std::vector<int> legal = game.legal_pits();
        game.sow(legal[rng() % legal.size()]);
      }
      if (game.over()) continue;
      ++tested;
      INFO("rules " << rules.describe() << " over a 4-seed probe, " << game.position().to_text());
      same_solution(solve_position(game.position(), rules, probed.oracle(), probed.best_sowings_function()),
                    solve_position(game.position(), rules, reference));
    }
  }
}

TEST_CASE("search: random reachable positions of larger boards match the reference solver", "[search][slow]") {
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
        REQUIRE(solver.best_sowings(b) == ref.best_pits(b));  // the CLI's null-window best-move test
      }
    }
  }
}

TEST_CASE("search: parallel and serial searches agree", "[search]") {
  // Two and three searchers (more than the cores of a small machine: they interleave) put
  // off each other's boards (busy marks from 4 seeds on without a database).
  std::mt19937 rng(7);
  for (const Rules& rules : all_value_rules()) {
    search::Solver serial(6, rules, 18, small_table(1));
    search::Solver two(6, rules, 18, small_table(2));
    search::Solver three(6, rules, 18, small_table(3));
    int tested = 0;
    while (tested < 25) {
      Board b;
      if (!test::random_board(6, 4, 18, rules, rng, b)) continue;
      ++tested;
      INFO("rules " << rules.describe() << " board " << tested);
      const int v = serial.value(b);
      REQUIRE(two.value(b) == v);
      REQUIRE(three.value(b) == v);
      if (tested % 5 == 0) REQUIRE(three.best_sowings(b) == serial.best_sowings(b));
    }
  }
}

TEST_CASE("search: Solvers sharing one table on two threads give the reference values", "[search]") {
  // Two Solvers search the same positions at the same time on one table and one set of busy
  // marks (as the label and job workers of one process do), the table growing under them;
  // each one's values equal the reference solver's.
  std::mt19937 rng(11);
  for (const Rules& rules : all_value_rules()) {
    ReferenceSolver ref(5, rules);
    std::vector<Board> boards;
    while (boards.size() < 30) {
      Board b;
      if (test::random_board(5, 3, 14, rules, rng, b)) boards.push_back(b);
    }
    search::SolverOptions first = small_table(1);
    first.table_bytes = std::size_t(1) << 20;
    first.table_initial_bytes = std::size_t(1) << 12;  // grows (and is then full: entries replaced)
    search::Solver a(5, rules, 14, first);
    search::SolverOptions second = small_table(2);  // a Solver of two threads beside one of one
    second.share = a.table_share();
    search::Solver b(5, rules, 14, second);
    CHECK(b.table_bytes() == a.table_bytes());
    std::vector<int> from_a(boards.size()), from_b(boards.size());
    std::thread other([&] {
      for (std::size_t i = boards.size(); i-- > 0;) from_b[i] = b.value(boards[i]);  // the other way round
    });
    for (std::size_t i = 0; i < boards.size(); ++i) from_a[i] = a.value(boards[i]);
    other.join();
    CHECK(a.table_doublings() > 0);
    CHECK(a.table_doublings() == b.table_doublings());
    for (std::size_t i = 0; i < boards.size(); ++i) {
      INFO("rules " << rules.describe() << " board " << i);
      const int v = ref.value(boards[i]);
      CHECK(from_a[i] == v);
      CHECK(from_b[i] == v);
    }
  }
  // A Solver keying boards otherwise cannot join.
  search::Solver c(5, Rules{}, 14, small_table(1));
  search::SolverOptions other_seeds = small_table(1);
  other_seeds.share = c.table_share();
  CHECK_THROWS_AS(search::Solver(5, Rules{}, 15, other_seeds), std::invalid_argument);
  CHECK_THROWS_AS(search::Solver(6, Rules{}, 14, other_seeds), std::invalid_argument);
}

TEST_CASE("search: three Solvers on one table, one cancelled again and again and then gone, give exact values",
          "[search]") {
  // Members of one share come and go while the table grows under them: a Solver whose every
  // third pass is cancelled (its Interrupted bounds must hold the value), destroyed half way
  // through while two others search on; a fourth joins after it is gone.
  std::mt19937 rng(23);
  int interrupted = 0;
  for (const Rules& rules : all_value_rules()) {
    ReferenceSolver ref(5, rules);
    std::vector<Board> boards;
    while (boards.size() < 24) {
      Board b;
      if (test::random_board(5, 3, 14, rules, rng, b)) boards.push_back(b);
    }
    std::vector<int> want(boards.size());
    for (std::size_t i = 0; i < boards.size(); ++i) want[i] = ref.value(boards[i]);
    search::SolverOptions first = small_table(1);
    first.table_bytes = std::size_t(1) << 20;
    first.table_initial_bytes = std::size_t(1) << 10;
    search::Solver a(5, rules, 14, first);
    search::SolverOptions joined = small_table(2);
    joined.share = a.table_share();
    search::Solver b(5, rules, 14, joined);
    std::atomic<bool> cancel_c{false};
    search::SolverOptions cancelled = small_table(1);
    cancelled.share = joined.share;
    cancelled.cancel = &cancel_c;
    cancelled.progress_after = 0;
    int passes_c = 0;
    cancelled.progress = [&](const std::string& line) {
      if (line.rfind("pass", 0) == 0 && ++passes_c % 3 == 0) cancel_c = true;  // the next pass stops
    };
    auto c = std::make_unique<search::Solver>(5, rules, 14, cancelled);
    std::vector<int> from_a(boards.size()), from_b(boards.size()), from_c(boards.size(), INT_MIN);
    std::vector<std::pair<int, int>> bounds_c;
    std::vector<std::size_t> bounds_of;
    std::thread tb([&] {
      for (std::size_t i = boards.size(); i-- > 0;) from_b[i] = b.value(boards[i]);
    });
    std::thread tc([&] {
      for (std::size_t i = 0; i < boards.size() / 2; ++i) {
        try {
          from_c[i] = c->value(boards[i]);
        } catch (const search::Interrupted& e) {
          bounds_c.emplace_back(e.lower, e.upper);
          bounds_of.push_back(i);
          cancel_c = false;
        }
      }
      c.reset();  // quits the share while a and b search on
    });
    for (std::size_t i = 0; i < boards.size(); ++i) from_a[i] = a.value(boards[i]);
    tc.join();
    tb.join();
    search::SolverOptions late = small_table(1);
    late.share = joined.share;
    search::Solver d(5, rules, 14, late);
    CHECK(a.table_doublings() > 0);
    for (std::size_t i = 0; i < boards.size(); ++i) {
      INFO("rules " << rules.describe() << " board " << i);
      CHECK(from_a[i] == want[i]);
      CHECK(from_b[i] == want[i]);
      if (from_c[i] != INT_MIN) CHECK(from_c[i] == want[i]);
      if (i % 3 == 0) CHECK(d.value(boards[i]) == want[i]);
    }
    for (std::size_t j = 0; j < bounds_c.size(); ++j) {
      INFO("rules " << rules.describe() << " interrupted board " << bounds_of[j]);
      CHECK(bounds_c[j].first <= want[bounds_of[j]]);
      CHECK(want[bounds_of[j]] <= bounds_c[j].second);
    }
    interrupted += static_cast<int>(bounds_c.size());
  }
  CHECK(interrupted > 0);  // every third pass of the cancelled Solver is stopped
}

TEST_CASE("search: values with an endgame probe equal those without", "[search][slow]") {
  std::mt19937 rng(99);
  for (const Rules& rules : all_value_rules()) {
    test::ReferenceProbe db(5, rules, 8);
    search::Solver plain(5, rules, 18, small_table(1));
    // Boards just above the database bypass the table: none of them, those up to 3, 8 and 12
    // seeds above it, the default (12 with a near table, 8 without), every board (too many
    // seeds in play for a near table); those below the table go to each searcher's near
    // table: the default, none, two entries.
    const int automatic = search::SolverOptions::kAutoAboveDatabase;
    const std::size_t near_default = search::SolverOptions{}.near_table_bytes;
    const std::pair<int, std::size_t> settings[] = {
        {0, near_default}, {3, near_default},         {3, 32},        {8, 0},
        {12, 32},          {automatic, near_default}, {automatic, 0}, {255, near_default}};
    for (const auto& [above, near_bytes] : settings) {
      search::SolverOptions with_db = small_table(2);
      with_db.probe = db.probe();
      with_db.table_seeds_above_db = above;
      with_db.near_table_bytes = near_bytes;
      search::Solver probed(5, rules, 18, with_db);
      int tested = 0;
      while (tested < 20) {
        Board b;
        if (!test::random_board(5, 4, 18, rules, rng, b)) continue;
        ++tested;
        INFO("rules " << rules.describe() << " table from " << above << " seeds above the database, near table "
                      << near_bytes << " bytes, board " << tested);
        REQUIRE(probed.value(b) == plain.value(b));
        if (tested % 5 == 0) REQUIRE(probed.best_sowings(b) == plain.best_sowings(b));
      }
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

TEST_CASE("search: published Irving et al. values (empty capture, either end)", "[search]") {
  // PUBLISHED.md, Table 9 (margins; the start position has empty stores, so the game value
  // is the remainder value of the start board).
  struct Published {
    int m, n, value;
  };
  const Published table[] = {{4, 1, 2}, {4, 2, 6}, {4, 3, 8},  {4, 4, 2}, {4, 5, 2},  {4, 6, 0}, {5, 1, 0},
                             {5, 2, 0}, {5, 3, 8}, {5, 4, 12}, {6, 1, 2}, {6, 2, 10}, {6, 3, 2}};
  const Rules rules = Rules::preset("empty-capture");
  for (const Published& p : table) {
    INFO("Kalah(" << p.m << "," << p.n << ")");
    search::SolverOptions o;
    o.table_bytes = std::size_t(32) << 20;
    o.threads = 2;
    search::Solver solver(p.m, rules, 2 * p.m * p.n, o);
    CHECK(solver.value(test::start_board(p.m, p.n)) == p.value);
  }
}

TEST_CASE("search: with the endgame database (solver/db) values equal those without", "[search]") {
  std::mt19937 rng(2024);
  for (const Rules& rules : all_value_rules()) {
    const EndgameDatabase db = EndgameDatabase::build_in_memory(5, rules, 9, 2);
    // The default table bypass (every board of these below the table, in the near tables),
    // and the shared table from 13 seeds.
    for (const auto& [threads, above] : {std::pair{1, search::SolverOptions::kAutoAboveDatabase}, std::pair{2, 4},
                                         std::pair{2, search::SolverOptions::kAutoAboveDatabase}, std::pair{1, 4}}) {
      search::SolverOptions with_db = small_table_over(db, threads);
      with_db.table_seeds_above_db = above;
      search::Solver plain(5, rules, 17, small_table(1));
      search::Solver probed(5, rules, 17, with_db);
      ReferenceSolver ref(5, rules);
      int tested = 0;
      while (tested < 20) {
        Board b;
        if (!test::random_board(5, 4, 17, rules, rng, b)) continue;
        ++tested;
        INFO("rules " << rules.describe() << " threads " << threads << " table from " << above
                      << " seeds above the database, board " << tested);
        const int v = plain.value(b);
        REQUIRE(probed.value(b) == v);
        if (test::seeds_in(b, 5) <= 13) REQUIRE(ref.value(b) == v);
        REQUIRE(probed.best_sowings(b) == plain.best_sowings(b));
      }
    }
  }
}

TEST_CASE("search: a packed database (2-4 bits a board) gives the values and best sowings of the 1-byte one",
          "[search][packed]") {
  // Every width, so levels of 2 bits (many escapes) are probed too, in index order and by
  // sublevel pairs; the estimate and the search both read the packed levels.
  std::mt19937 rng(4242);
  for (const Rules& rules : all_value_rules()) {
    const EndgameDatabase bytes = EndgameDatabase::build_in_memory(5, rules, 10, 2);
    search::Solver reference_search(5, rules, 18, small_table_over(bytes));
    for (int layout : {0, 2, 3, 4, 10, 12}) {  // index order at that width; by pairs (10 + width)
      const int width = layout % 10;
      EndgameDatabase packed = EndgameDatabase::build_in_memory(5, rules, 10, 2);
      if (layout < 10)
        packed.pack(width, 2);
      else
        packed.pack_by_pairs(width, 2);
      REQUIRE(packed.packed());
      CHECK(packed.bits_per_board() < 5.0);
      for (int threads : {1, 2}) {
        search::Solver solver(5, rules, 18, small_table_over(packed, threads));
        for (int tested = 0; tested < 6;) {
          Board b;
          if (!test::random_board(5, 4, 18, rules, rng, b)) continue;
          ++tested;
          INFO("rules " << rules.describe() << " layout " << layout << " threads " << threads << " board " << tested);
          REQUIRE(solver.value(b) == reference_search.value(b));
          REQUIRE(solver.best_sowings(b) == reference_search.best_sowings(b));
        }
      }
    }
  }
}

TEST_CASE("search: a partial level above the database gives the values and best sowings of the whole level",
          "[search][partial]") {
  // Levels 0..8 and some sublevel pairs of level 9 (EndgameDatabase::partial_level) against
  // levels 0..9 whole: the pairs held are read, the others searched. Boards of level 9 itself
  // are asked for too (a root on the partial level, held or not), as are boards just above it.
  std::mt19937 rng(909);
  for (const Rules& rules : all_value_rules()) {
    const EndgameDatabase whole = EndgameDatabase::build_in_memory(5, rules, 9, 2);
    search::Solver reference_search(5, rules, 17, small_table_over(whole));
    for (const std::uint64_t pairs : {std::uint64_t(0b10000), std::uint64_t(0b00001), std::uint64_t(0b01110)}) {
      EndgameDatabase part = EndgameDatabase::build_in_memory(5, rules, 8, 2);
      part.add_partial_level(PairedLevel::pack(whole.indexer(), 9, whole.level(9), 0, 2), pairs);
      for (const auto& [threads, above] :
           {std::pair{1, search::SolverOptions::kAutoAboveDatabase}, std::pair{2, 2}, std::pair{1, 0}}) {
        search::SolverOptions with_part = small_table_over(part, threads);
        with_part.table_seeds_above_db = above;
        search::Solver solver(5, rules, 17, with_part);
        for (int tested = 0; tested < 8;) {
          Board b;
          if (!test::random_board(5, 4, tested < 3 ? 9 : tested < 5 ? 11 : 17, rules, rng, b)) continue;
          ++tested;
          INFO("rules " << rules.describe() << " pairs " << pairs << " threads " << threads << " bypass " << above
                        << " board " << tested << " (" << test::seeds_in(b, 5) << " seeds)");
          REQUIRE(solver.value(b) == reference_search.value(b));
          REQUIRE(solver.best_sowings(b) == reference_search.best_sowings(b));
          const int k = test::seeds_in(b, 5);
          if (part.holds(k, base::to_bits(b))) REQUIRE(solver.estimate(b, 2000).value == whole.value(b));
        }
      }
    }
  }
}

TEST_CASE("search: levels of bounds above the database give the values and best sowings of exact levels",
          "[search][bounds]") {
  // Levels 0..8 exact and levels 9..11 as bounds (a bit a board: whether the value is above its
  // sublevel's median; level 11 for some pairs only) against levels 0..11 exact, every rule set, one and two
  // threads, the shared table from 0, 2 and the default seeds above the database; roots on and
  // above the levels of bounds.
  std::mt19937 rng(1111);
  for (const Rules& rules : all_value_rules()) {
    const EndgameDatabase whole = EndgameDatabase::build_in_memory(5, rules, 11, 2);
    search::Solver reference_search(5, rules, 19, small_table_over(whole));
    ReferenceSolver ref(5, rules);
    for (const std::uint64_t top_pairs : {~std::uint64_t(0), std::uint64_t(0b010110)}) {
      EndgameDatabase bounded = EndgameDatabase::build_in_memory(5, rules, 8, 2);
      for (int k = 9; k <= 11; ++k) {
        BoundLevel level = BoundLevel::from_values(PairedLevel::pack(whole.indexer(), k, whole.level(k), 0, 2), 2);
        if (k == 11) level.keep_pairs(top_pairs);
        bounded.add_bound_level(std::move(level));
      }
      REQUIRE(search::database_probe(bounded).bounds(10, base::to_bits(test::start_board(5, 1))));
      {  // The bounds are read: they save nodes on a start position (one thread: node counts are exact).
        const EndgameDatabase exact_only = EndgameDatabase::build_in_memory(5, rules, 8, 2);
        search::Solver with(5, rules, 20, small_table_over(bounded));
        search::Solver without(5, rules, 20, small_table_over(exact_only));
        REQUIRE(with.value(test::start_board(5, 2)) == without.value(test::start_board(5, 2)));
        CHECK(with.nodes() < without.nodes());
      }
      for (const auto& [threads, above] : {std::pair{1, search::SolverOptions::kAutoAboveDatabase}, std::pair{2, 2},
                                           std::pair{1, 0}, std::pair{2, search::SolverOptions::kAutoAboveDatabase}}) {
        search::SolverOptions with_bounds = small_table_over(bounded, threads);
        with_bounds.table_seeds_above_db = above;
        search::Solver solver(5, rules, 19, with_bounds);
        for (int tested = 0; tested < 8;) {
          Board b;
          if (!test::random_board(5, 4, tested < 3 ? 11 : tested < 5 ? 14 : 19, rules, rng, b)) continue;
          ++tested;
          INFO("rules " << rules.describe() << " pairs " << top_pairs << " threads " << threads << " bypass " << above
                        << " board " << tested << " (" << test::seeds_in(b, 5) << " seeds)");
          const int v = reference_search.value(b);
          REQUIRE(solver.value(b) == v);
          if (test::seeds_in(b, 5) <= 11) REQUIRE(ref.value(b) == v);
          REQUIRE(solver.best_sowings(b) == reference_search.best_sowings(b));
        }
      }
    }
  }
}

TEST_CASE("search: iterative deepening's shallow passes leave only move hints (values unchanged)", "[search]") {
  // Shallow values are estimates: were one stored as a bound, some value below would be
  // wrong. Deep iterations on a tiny table (hints replacing proven entries and back) and a
  // table big enough to keep everything, 1 and 2 threads, against no deepening at all.
  std::mt19937 rng(77);
  for (const Rules& rules : all_value_rules()) {
    const EndgameDatabase db = EndgameDatabase::build_in_memory(5, rules, 8, 2);
    search::SolverOptions off = small_table(1);
    off.probe = search::database_probe(db);
    off.deepening_step = 0;
    search::Solver plain(5, rules, 18, off);
    for (const std::size_t table : {std::size_t(4096), std::size_t(4) << 20}) {
      for (int threads : {1, 2}) {
        search::SolverOptions deep = small_table(threads);
        deep.table_bytes = table;
        deep.probe = search::database_probe(db);
        deep.deepening_step = 2;
        deep.deepening_max_depth = 40;
        deep.deepening_iteration_nodes = std::uint64_t(1) << 40;
        search::Solver solver(5, rules, 18, deep);
        int deepened = 0;
        for (int tested = 0; tested < 12;) {
          Board b;
          if (!test::random_board(5, 4, 18, rules, rng, b)) continue;
          ++tested;
          INFO("rules " << rules.describe() << " table " << table << " threads " << threads << " board " << tested);
          REQUIRE(solver.value(b) == plain.value(b));
          if (solver.deepening_depth() > 0) ++deepened;
          if (tested % 4 == 0) REQUIRE(solver.best_sowings(b) == plain.best_sowings(b));
        }
        CHECK(deepened > 0);
      }
    }
  }
}

namespace {

// Kalah(4,4) (32 seeds) over databases to each of `db_seeds_list` seeds, every rule set:
// check(db, db_seeds, value), with the start's value from a solver without deepening.
template <class Check>
void over_databases(std::initializer_list<int> db_seeds_list, const Check& check) {
  for (const Rules& rules : all_value_rules()) {
    INFO("rules " << rules.describe());
    for (const int db_seeds : db_seeds_list) {
      INFO("database to " << db_seeds << " seeds");
      const EndgameDatabase db = EndgameDatabase::build_in_memory(4, rules, db_seeds, 2);
      search::SolverOptions off = small_table_over(db);
      off.deepening_step = 0;
      check(db, db_seeds, search::Solver(4, rules, 32, off).value(test::start_board(4, 4)));
    }
  }
}

// Over a 2-seed database Kalah(4,4) is tall (28 seeds or more above it; 30 or more, where a
// test deepens too), over a 6-seed one it is not.
template <class Check>
void over_tall_and_low_databases(const Check& check) {
  over_databases({2, 6}, check);
}

// Deepening to at most 12 sowings, iterations past 1024 nodes ending it unless reordering
// (at more than `share` of the fail-high nodes) lets them go on to 2^40.
search::SolverOptions deepening_to_12(const EndgameDatabase& db, double share) {
  search::SolverOptions o = small_table_over(db);
  o.deepening_max_depth = 12;
  o.deepening_iteration_nodes = 1024;
  o.deepening_reorder_nodes = std::uint64_t(1) << 40;
  o.deepening_reorder_share = share;
  return o;
}

}  // namespace

TEST_CASE("search: the deepening goes deep only on a tall board whose shallow passes reorder", "[search]") {
  // An iteration past deepening_iteration_nodes ends the deepening unless the board is at
  // least 28 seeds above the database and the iteration's cuts overturned the static order at
  // more than deepening_reorder_share of its fail-high nodes; an iteration to 9 sowings
  // passes a 1024-node budget, none a 2^40 one. The values stay those without deepening.
  over_tall_and_low_databases([](const EndgameDatabase& db, int db_seeds, int value) {
    const Rules& rules = db.rules();
    int depth[2] = {};
    for (const double share : {1.0, 0.0}) {  // never reordering enough; reordering at any cut
      search::Solver solver(4, rules, 32, deepening_to_12(db, share));
      REQUIRE(solver.value(test::start_board(4, 4)) == value);
      depth[share == 0.0] = solver.deepening_depth();
    }
    CHECK(depth[0] < 12);                                // an iteration passed the budget
    CHECK(depth[1] == (db_seeds == 2 ? 12 : depth[0]));  // tall and reordering: to the deepest
  });
}

TEST_CASE("search: a null-window test of a tall board deepens first and stays exact", "[search]") {
  // Over the 2-seed database a lone test runs the iterative deepening's shallow passes before
  // its exact one, over the 6-seed one the exact pass alone. Either way each answer bounds
  // the value on the right side, as without deepening, and no value()'s deepening depth is
  // reported.
  over_tall_and_low_databases([](const EndgameDatabase& db, int db_seeds, int value) {
    for (const int gamma : {value - 2, value, value + 1, value + 4}) {
      INFO("gamma " << gamma);
      search::Solver solver(4, db.rules(), 32, small_table_over(db));
      const int r = solver.test(test::start_board(4, 4), gamma);
      if (r >= gamma)
        REQUIRE(value >= r);
      else
        REQUIRE(value <= r);
      REQUIRE((r >= gamma) == (value >= gamma));
      if (db_seeds == 2)
        CHECK(solver.passes() > 1);  // the shallow passes, then the exact one
      else
        CHECK(solver.passes() == 1);
      CHECK(solver.deepening_depth() == 0);
    }
  });
}

TEST_CASE("search: a test deepens first only from 30 seeds above the database", "[search]") {
  // Kalah(4,4) 29 and 28 seeds above a 3- and a 4-seed database (tall boards): the value
  // deepens, a lone test runs its exact pass alone; both exact.
  over_databases({3, 4}, [](const EndgameDatabase& db, int, int value) {
    search::Solver deepening(4, db.rules(), 32, small_table_over(db));
    REQUIRE(deepening.value(test::start_board(4, 4)) == value);
    CHECK(deepening.deepening_depth() > 0);
    for (const int gamma : {value - 2, value + 1}) {
      INFO("gamma " << gamma);
      search::Solver tester(4, db.rules(), 32, small_table_over(db));
      const int r = tester.test(test::start_board(4, 4), gamma);
      REQUIRE((r >= gamma) == (value >= gamma));
      REQUIRE((r >= gamma ? value >= r : value <= r));
      CHECK(tester.passes() == 1);
    }
  });
}

TEST_CASE("search: a test's deepening stops at the iteration budget even where a value's goes on", "[search]") {
  // With every shallow cut counted as reordering and a 2^40-node budget for reordering
  // iterations, a value's deepening on a tall board goes to the deepest iteration, a test's
  // stops after the iteration that passed the 1024-node budget, as on a low board: the same
  // passes as never reordering. Each answer bounds the value on the right side.
  over_tall_and_low_databases([](const EndgameDatabase& db, int, int value) {
    std::uint64_t passes[2] = {};
    for (const double share : {1.0, 0.0}) {  // never reordering enough; reordering at any cut
      search::Solver solver(4, db.rules(), 32, deepening_to_12(db, share));
      const int r = solver.test(test::start_board(4, 4), value);
      REQUIRE(r >= value);
      REQUIRE(value >= r);
      passes[share == 0.0] = solver.passes();
    }
    CHECK(passes[1] == passes[0]);
  });
}

TEST_CASE("search: a table that grows during the passes gives exact values", "[search]") {
  // A 1 KiB table that may grow to 4 MiB doubles many times, mostly in the middle of a pass
  // (the pass stops, the table doubles, the pass runs again): with and without a database,
  // 1 and 2 threads, every rule set, against the reference solver and a fixed table.
  std::mt19937 rng(11);
  for (const Rules& rules : all_value_rules()) {
    const EndgameDatabase db = EndgameDatabase::build_in_memory(5, rules, 6, 2);
    ReferenceSolver ref(5, rules);
    search::Solver fixed(5, rules, 17, small_table(1));
    for (int threads : {1, 2}) {
      for (const bool with_db : {false, true}) {
        search::SolverOptions growing = small_table(threads);
        growing.table_initial_bytes = 1024;
        if (with_db) growing.probe = search::database_probe(db);
        growing.table_seeds_above_db = 6;  // the table from 12 seeds (the default would bypass it on these boards)
        search::Solver solver(5, rules, 17, growing);
        REQUIRE(solver.table_bytes() == 1024);
        for (int tested = 0; tested < 8;) {
          Board b;
          if (!test::random_board(5, 4, 17, rules, rng, b)) continue;
          ++tested;
          INFO("rules " << rules.describe() << " threads " << threads << " database " << with_db << " board "
                        << tested);
          const int v = fixed.value(b);
          REQUIRE(solver.value(b) == v);
          if (test::seeds_in(b, 5) <= 13) REQUIRE(ref.value(b) == v);
          if (tested % 4 == 0) REQUIRE(solver.best_sowings(b) == fixed.best_sowings(b));
        }
        CHECK(solver.table_doublings() > 0);
        CHECK(solver.table_bytes() == std::size_t(1024) << solver.table_doublings());
        CHECK(solver.table_bytes() <= solver.table_max_bytes());
      }
    }
  }
}

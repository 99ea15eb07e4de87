// Split points (split_point.hpp): several searchers of one Solver sharing a node's children
// give the values of one searcher, every rule set, with and without a database, through the
// shallow passes' estimates, cut-offs, a growing table and cancels.
#include "testing/catch.hpp"

#include <atomic>
#include <climits>
#include <random>
#include <string>
#include <vector>

#include "solver/db/database.hpp"
#include "solver/reference/reference_solver.hpp"
#include "solver/search/solver.hpp"
#include "testing/search_support.hpp"

using namespace kalah;
using kalah::test::all_value_rules;

namespace {

search::SolverOptions options(int threads, bool split_points, const EndgameDatabase* db) {
  search::SolverOptions o;
  o.table_bytes = std::size_t(4) << 20;
  o.threads = threads;
  o.split_points = split_points;
  if (db) {
    o.probe = search::database_probe(*db);
    o.table_seeds_above_db = 2;  // the table, and so the split points, from 8 seeds
  }
  return o;
}

}  // namespace

TEST_CASE("split points: 2, 3 and 4 threads give one thread's values, every rule set", "[search]") {
  // Deep shallow passes first (their estimates must never become a bound through a helper's
  // child), then the exact passes; a small table that grows during them. Boards with up to
  // 13 seeds against the reference solver too. Split points where each pass expects them to be
  // needed, and also (a third of the rule sets each) where every expectation is wrong or none
  // is made.
  using Kinds = search::SolverOptions::SplitKinds;
  const Kinds kinds = GENERATE(Kinds::expected, Kinds::inverted, Kinds::none);
  std::mt19937 rng(2047);
  // Counted over the whole case: a loaded machine may leave a run without any.
  std::uint64_t split_points = 0, cut_split_points = 0;
  std::size_t rule_set = 0;
  for (const Rules& rules : all_value_rules()) {
    // (none and inverted: the rule sets whose index mod 3 is the enumerator's value, 1 or 2)
    if (kinds != Kinds::expected && rule_set++ % 3 != static_cast<std::size_t>(kinds)) continue;
    const EndgameDatabase db = EndgameDatabase::build_in_memory(5, rules, 6, 2);
    ReferenceSolver ref(5, rules);
    search::SolverOptions plain_options = options(1, false, &db);
    plain_options.deepening_step = 0;
    search::Solver plain(5, rules, 17, plain_options);
    for (const bool with_db : {true, false}) {
      for (const int threads : {2, 3, 4}) {
        search::SolverOptions o = options(threads, true, with_db ? &db : nullptr);
        o.split_kinds = kinds;
        o.table_initial_bytes = 1024;
        o.deepening_step = 2;
        o.deepening_max_depth = 40;
        o.deepening_iteration_nodes = std::uint64_t(1) << 40;
        search::Solver solver(5, rules, 17, o);
        for (int tested = 0; tested < 8;) {
          Board b;
          if (!test::random_board(5, 4, 17, rules, rng, b)) continue;
          ++tested;
          INFO("rules " << rules.describe() << " database " << with_db << " threads " << threads << " board "
                        << tested);
          const int v = plain.value(b);
          REQUIRE(solver.value(b) == v);
          if (test::seeds_in(b, 5) <= 13) REQUIRE(ref.value(b) == v);
          if (tested % 4 == 0) REQUIRE(solver.best_sowings(b) == plain.best_sowings(b));
        }
        INFO("rules " << rules.describe() << " database " << with_db << " threads " << threads);
        split_points += solver.split_points();
        cut_split_points += solver.cut_split_points();
        CHECK(solver.discarded_nodes() < solver.nodes());
        CHECK(solver.table_doublings() > 0);
      }
    }
  }
  CHECK(split_points > 0);
  if (kinds == Kinds::none) CHECK(cut_split_points == 0);
  if (kinds == Kinds::expected) CHECK(cut_split_points > 0);  // expected cut nodes that shared after three children
}

TEST_CASE("split points below the table: 2 and 3 threads give one thread's values, every rule set", "[search]") {
  // The table from 8 seeds above the database and split points from 4 (the default's
  // distance apart): boards of 10-13 seeds share their children in search_near, with their own
  // near tables. Ordered shallow passes (boards below tall) and unordered ones (a rule set in
  // two), then the exact passes; boards with up to 13 seeds against the reference solver too.
  using Ordered = search::SolverOptions::OrderedShallow;
  std::mt19937 rng(8191);
  std::uint64_t near_split_points = 0;  // over the whole case: a loaded machine may leave a run without any
  std::size_t rule_set = 0;
  for (const Rules& rules : all_value_rules()) {
    const EndgameDatabase db = EndgameDatabase::build_in_memory(5, rules, 6, 2);
    ReferenceSolver ref(5, rules);
    search::SolverOptions plain_options = options(1, false, &db);
    plain_options.deepening_step = 0;
    search::Solver plain(5, rules, 17, plain_options);
    const Ordered ordered = rule_set++ % 2 == 0 ? Ordered::split_below_tall : Ordered::never;
    for (const int threads : {2, 3}) {
      search::SolverOptions o = options(threads, true, &db);
      o.table_seeds_above_db = 8;
      o.ordered_shallow = ordered;
      search::Solver solver(5, rules, 17, o);
      for (int tested = 0; tested < 8;) {
        Board b;
        if (!test::random_board(5, 4, 17, rules, rng, b) || test::seeds_in(b, 5) < 12) continue;
        ++tested;
        INFO("rules " << rules.describe() << " threads " << threads << " board " << tested);
        const int v = plain.value(b);
        REQUIRE(solver.value(b) == v);
        if (test::seeds_in(b, 5) <= 13) REQUIRE(ref.value(b) == v);
        if (tested % 4 == 0) REQUIRE(solver.best_sowings(b) == plain.best_sowings(b));
      }
      near_split_points += solver.near_split_points();
      CHECK(solver.near_split_points() <= solver.split_points());
    }
  }
  CHECK(near_split_points > 0);
}

TEST_CASE("split points: a node's kind alternates but across an extra turn, and a cut node shares later", "[search]") {
  using search::NodeKind;
  STATIC_REQUIRE(search::child_kind(NodeKind::cut, false) == NodeKind::all);
  STATIC_REQUIRE(search::child_kind(NodeKind::all, false) == NodeKind::cut);
  STATIC_REQUIRE(search::child_kind(NodeKind::cut, true) == NodeKind::cut);  // the same side again
  STATIC_REQUIRE(search::child_kind(NodeKind::all, true) == NodeKind::all);
  STATIC_REQUIRE(search::child_kind(NodeKind::unknown, false) == NodeKind::unknown);
  STATIC_REQUIRE(search::child_kind(NodeKind::unknown, true) == NodeKind::unknown);
  STATIC_REQUIRE(search::searched_before_split(NodeKind::all) == 1);
  STATIC_REQUIRE(search::searched_before_split(NodeKind::cut) > 1);
  // A test's node (no expectation) shares after more children than an all node, fewer than a cut node.
  STATIC_REQUIRE(search::searched_before_split(NodeKind::unknown) > search::searched_before_split(NodeKind::all));
  STATIC_REQUIRE(search::searched_before_split(NodeKind::unknown) < search::searched_before_split(NodeKind::cut));
  // An ordered pass shares a cut node's children sooner (a cut stops only the later ones), but
  // still after more than one.
  STATIC_REQUIRE(search::searched_before_split(NodeKind::all, true) == 1);
  STATIC_REQUIRE(search::searched_before_split(NodeKind::cut, true) > 1);
  STATIC_REQUIRE(search::searched_before_split(NodeKind::cut, true) < search::searched_before_split(NodeKind::cut));
}

TEST_CASE("split points: off, the searchers walk the tree with busy marks alone", "[search]") {
  std::mt19937 rng(4093);
  const Rules rules = Rules::preset("standard");
  const EndgameDatabase db = EndgameDatabase::build_in_memory(5, rules, 6, 2);
  search::Solver plain(5, rules, 17, options(1, false, &db));
  search::Solver marks(5, rules, 17, options(2, false, &db));
  for (int tested = 0; tested < 8;) {
    Board b;
    if (!test::random_board(5, 4, 17, rules, rng, b)) continue;
    ++tested;
    INFO("board " << tested);
    REQUIRE(marks.value(b) == plain.value(b));
  }
  CHECK(marks.split_points() == 0);
  CHECK(plain.split_points() == 0);
  CHECK(marks.discarded_nodes() == 0);
  CHECK(plain.discarded_nodes() == 0);
}

TEST_CASE("split points: a cancelled pass leaves no helper behind", "[search]") {
  // After every second progress line (a deepening iteration or an exact pass) the next pass is
  // cancelled; the value is then computed again on the same Solver, as are the next boards,
  // and must be exact (no split point left open, no helper still in one).
  std::mt19937 rng(8191);
  for (const Rules& rules : all_value_rules()) {
    const EndgameDatabase db = EndgameDatabase::build_in_memory(5, rules, 6, 2);
    search::Solver plain(5, rules, 17, options(1, false, &db));
    std::atomic<bool> cancel{false};
    search::SolverOptions o = options(3, true, &db);
    o.cancel = &cancel;
    o.progress_after = 0;
    int lines = 0;
    bool armed = true;  // not while a cancelled value is computed again
    o.progress = [&](const std::string&) {
      if (armed && ++lines % 2 == 0) cancel = true;
    };
    search::Solver solver(5, rules, 17, o);
    int interrupted = 0;
    for (int tested = 0; tested < 10;) {
      Board b;
      if (!test::random_board(5, 4, 17, rules, rng, b)) continue;
      ++tested;
      INFO("rules " << rules.describe() << " board " << tested);
      const int v = plain.value(b);
      int got = INT_MIN;
      try {
        got = solver.value(b);
      } catch (const search::Interrupted& e) {
        ++interrupted;
        CHECK(e.lower <= v);
        CHECK(v <= e.upper);
        cancel = false;
        armed = false;
        got = solver.value(b);
        armed = true;
      }
      REQUIRE(got == v);
    }
    CHECK(interrupted > 0);
  }
}

TEST_CASE("split points: a full solve's root tests side by side give one thread's best sowings", "[search]") {
  // With at least as many sowings as threads, the root's tests run a thread each (this
  // Solver's walker and other Solvers' on its table), and a thread without a test left helps
  // the walkers still searching at split points; a cancel during them throws Interrupted and
  // leaves the Solver exact.
  std::mt19937 rng(16381);
  std::uint64_t tail_split_points = 0;  // opened during the tests side by side
  for (const Rules& rules : all_value_rules()) {
    const EndgameDatabase db = EndgameDatabase::build_in_memory(5, rules, 6, 2);
    ReferenceSolver ref(5, rules);
    search::Solver plain(5, rules, 17, options(1, false, &db));
    for (const int threads : {2, 3}) {
      std::atomic<bool> cancel{false};
      search::SolverOptions o = options(threads, true, &db);
      o.cancel = &cancel;
      search::Solver solver(5, rules, 17, o);
      int side_by_side = 0, interrupted = 0;
      for (int tested = 0; tested < 8;) {
        Board b;
        if (!test::random_board(5, 4, 17, rules, rng, b)) continue;
        int sowings = 0;
        for (int pit = 0; pit < 5; ++pit) sowings += b.cells[pit] > 0;
        ++tested;
        INFO("rules " << rules.describe() << " threads " << threads << " board " << tested);
        const int v = plain.value(b);
        REQUIRE(solver.value(b) == v);
        const std::vector<int> best = plain.best_sowings(b, v, false);
        if (test::seeds_in(b, 5) <= 13) REQUIRE(best == ref.best_pits(b));
        if (sowings >= threads) ++side_by_side;
        if (tested % 2 == 0) {  // cancelled first, unless the table answers every test
          cancel = true;
          try {
            solver.best_sowings(b, v, false);
          } catch (const search::Interrupted&) {
            ++interrupted;
          }
          cancel = false;
        }
        const std::uint64_t split_points = solver.split_points();
        REQUIRE(solver.best_sowings(b, v, false) == best);
        if (sowings >= threads) tail_split_points += solver.split_points() - split_points;
        REQUIRE(solver.value(b) == v);
      }
      CHECK(side_by_side > 0);
      CHECK(interrupted > 0);
    }
  }
  CHECK(tail_split_points > 0);
}

TEST_CASE("split points: a deepened test's exact pass gives one thread's answers on every rule set", "[search]") {
  // Kalah(4,4) 30 seeds above a 2-seed database: a test deepens first, then its exact pass
  // runs split, on both sides of the value. The deepening's shallow passes are split and
  // ordered by default (their table one thread's), and on the walker alone with ordered passes
  // switched off (none of their nodes discarded, the other threads' wait through the deepening
  // counted as idle time). The root's tests of a full solve (a tall board: one after the
  // other, each split) give one thread's best sowings either way. Also, every other rule set,
  // with every expectation inverted.
  using Kinds = search::SolverOptions::SplitKinds;
  using Ordered = search::SolverOptions::OrderedShallow;
  const Board start = test::start_board(4, 4);
  std::size_t rule_set = 0;
  for (const Rules& rules : all_value_rules()) {
    const bool inverted_too = rule_set++ % 2 == 1;
    const EndgameDatabase db = EndgameDatabase::build_in_memory(4, rules, 2, 2);
    search::SolverOptions plain_options = options(1, false, &db);
    plain_options.deepening_step = 0;
    search::Solver plain(4, rules, 32, plain_options);
    const int value = plain.value(start);
    const std::vector<int> best = plain.best_sowings(start, value, false);
    for (const int threads : {2, 3}) {
      for (const Kinds kinds : {Kinds::expected, Kinds::inverted}) {
        if (kinds == Kinds::inverted && !inverted_too) continue;
        for (const Ordered ordered : {Ordered::split_below_tall, Ordered::never}) {
          const bool alone = ordered == Ordered::never;
          INFO("rules " << rules.describe() << " threads " << threads << " inverted " << (kinds == Kinds::inverted)
                        << " deepening on the walker alone " << alone);
          for (const int gamma : {value - 3, value - 1, value, value + 1, value + 2}) {
            INFO("gamma " << gamma);
            search::SolverOptions o = options(threads, true, &db);
            o.split_kinds = kinds;
            o.ordered_shallow = ordered;
            std::vector<std::string> iterations;  // the deepening's progress lines
            o.progress = [&](const std::string& line) {
              if (line.rfind("depth ", 0) == 0) iterations.push_back(line);
            };
            o.progress_after = 0;
            search::Solver tester(4, rules, 32, o);
            const int r = tester.test(start, gamma);
            REQUIRE((r >= gamma) == (value >= gamma));
            REQUIRE((r >= gamma ? value >= r : value <= r));
            REQUIRE(!iterations.empty());
            if (!alone) {
              // Every shallow pass ordered (at least one an iteration), the exact pass not.
              CHECK(tester.ordered_passes() >= iterations.size());
              CHECK(tester.passes() - tester.ordered_passes() <= 1);
              continue;
            }
            CHECK(tester.ordered_passes() == 0);
            for (const std::string& line : iterations) CHECK(line.find(" (0 discarded)") != std::string::npos);
            // The other threads waited through the deepening: their idle time counts it (the
            // last iteration's line gives the seconds since the deepening began).
            const std::string& last = iterations.back();
            const double deepening_seconds = std::stod(last.substr(last.rfind(", ") + 2));
            CHECK(tester.idle_seconds() >= (threads - 1) * deepening_seconds);
          }
          search::SolverOptions o = options(threads, true, &db);
          o.split_kinds = kinds;
          o.ordered_shallow = ordered;
          search::Solver solver(4, rules, 32, o);
          REQUIRE(solver.best_sowings(start, value, false) == best);
        }
      }
    }
  }
}

TEST_CASE("split points: an ordered deepening leaves one thread's table on every rule set", "[search]") {
  // Ordered shallow passes (SolverOptions::ordered_shallow): their stores held until each pass
  // ends and a cut stopping only the later children, so 2 and 3 threads leave the table one
  // thread leaves, slot by slot, and the same estimate; then the exact passes give one
  // thread's values. Boards with 15-17 seeds over a 6-seed database, every board in the table
  // (no near table, whose contents are each searcher's own), one table size (no growth) with
  // room to spare (no bucket evicts: the victim's work is a searcher's own count), the
  // iterations to a fixed depth (no budget, whose node counts depend on the threads).
  using Ordered = search::SolverOptions::OrderedShallow;
  std::mt19937 rng(40961);
  std::uint64_t split_points = 0, cut_split_points = 0, discarded = 0;
  for (const Rules& rules : all_value_rules()) {
    const EndgameDatabase db = EndgameDatabase::build_in_memory(5, rules, 6, 2);
    search::SolverOptions plain_options = options(1, false, &db);
    plain_options.deepening_step = 0;
    search::Solver plain(5, rules, 17, plain_options);
    for (int tested = 0; tested < 6;) {
      Board b;
      if (!test::random_board(5, 4, 17, rules, rng, b) || test::seeds_in(b, 5) < 15) continue;
      ++tested;
      const int v = plain.value(b);
      std::uint64_t digest = 0;
      int estimate = 0;
      for (const int threads : {1, 2, 3}) {
        INFO("rules " << rules.describe() << " board " << tested << " threads " << threads);
        search::SolverOptions o = options(threads, true, &db);
        o.table_bytes = o.table_initial_bytes = std::size_t(16) << 20;
        o.table_seeds_above_db = 0;
        o.ordered_shallow = Ordered::always;
        o.deepening_step = 2;
        o.deepening_max_depth = 16;
        o.deepening_iteration_nodes = o.deepening_reorder_nodes = std::uint64_t(1) << 40;
        search::Solver solver(5, rules, 17, o);
        const int e = solver.deepened_estimate(b);
        const std::uint64_t d = solver.table_digest();
        if (threads == 1) {
          digest = d;
          estimate = e;
        }
        REQUIRE(e == estimate);
        REQUIRE(d == digest);
        split_points += solver.split_points();  // (the deepening's alone)
        cut_split_points += solver.cut_split_points();
        discarded += solver.discarded_nodes();
        REQUIRE(solver.value(b) == v);
      }
    }
  }
  CHECK(split_points > 0);
  CHECK(cut_split_points > 0);  // expected cut nodes sharing after two children (searched_before_split)
  CHECK(discarded > 0);         // children after a cut, searched and dropped
}

// SolverOptions::on_pass (PassRecord, solver.hpp): every pass reported once, as it ends, with
// what it tested and what it cost; the records add up to the Solver's own counts, on one
// thread and on two (where the root's tests run side by side on test helpers, which report
// their passes too).
#include "testing/catch.hpp"

#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "solver/db/database.hpp"
#include "solver/search/solver.hpp"
#include "testing/search_support.hpp"

using namespace kalah;
using Purpose = search::PassRecord::Purpose;

TEST_CASE("pass records: every pass once, adding up to the Solver's counts, on one and two threads", "[search]") {
  // Kalah(5,3) over a 6-seed database (the table from 8 seeds): a full solve has a value's
  // deepening, its exact passes and the tests of the root's sowings and of the line's.
  const Rules rules = Rules::preset("standard");
  const EndgameDatabase db = EndgameDatabase::build_in_memory(5, rules, 6, 2);
  const Board start = test::start_board(5, 3);
  int value_one_thread = 0;
  for (const int threads : {1, 2}) {
    INFO("threads " << threads);
    std::mutex lock;  // the test helpers report from their own threads
    std::vector<search::PassRecord> records;
    search::SolverOptions o;
    o.table_bytes = std::size_t(4) << 20;
    o.threads = threads;
    o.probe = search::database_probe(db);
    o.table_seeds_above_db = 2;
    o.on_pass = [&](const search::PassRecord& r) {
      const std::lock_guard guard(lock);
      records.push_back(r);
    };
    search::Solver solver(5, rules, 30, o);
    const int value = solver.value(start);
    if (threads == 1) value_one_thread = value;
    REQUIRE(value == value_one_thread);
    const std::size_t value_passes = records.size();
    REQUIRE(value_passes == solver.passes());
    for (std::size_t i = 0; i < value_passes; ++i) {
      const search::PassRecord& r = records[i];
      CHECK(r.solver == 0);
      CHECK(r.pass == i + 1);  // in the order they ran
      CHECK(r.seeds == 30);
      CHECK(r.seeds_above_database == 24);
      CHECK((r.purpose == Purpose::value_deepening) == (r.depth > 0));
      CHECK((r.purpose == Purpose::value) == (r.depth == 0));
      CHECK(r.seconds >= 0);
      CHECK(r.idle_seconds >= 0);
      CHECK(r.discarded_nodes <= r.nodes);
      CHECK(r.alone == (threads == 1));
    }
    // The value's exact passes close the bounds: the last one's result is the value.
    REQUIRE(records.back().purpose == Purpose::value);
    CHECK(records.back().result == value);
    CHECK(records.back().depth == 0);

    const std::vector<int> best = solver.best_sowings(start, value, false);
    REQUIRE_FALSE(best.empty());
    REQUIRE(records.size() == solver.passes());
    std::uint64_t nodes = 0, discarded = 0, split_points = 0;
    std::map<int, std::uint64_t> passes_by_solver;  // each Solver's passes counted 1, 2, ...
    for (const search::PassRecord& r : records) {
      nodes += r.nodes;
      discarded += r.discarded_nodes;
      split_points += r.split_points;
      CHECK(r.pass == ++passes_by_solver[r.solver]);
    }
    for (std::size_t i = value_passes; i < records.size(); ++i) {
      CHECK((records[i].purpose == Purpose::test || records[i].purpose == Purpose::test_deepening));
      CHECK(records[i].seeds <= 30);  // a child of the start (its sowing may bank nothing)
    }
    CHECK(nodes == solver.nodes());
    CHECK(discarded == solver.discarded_nodes());
    CHECK(split_points == solver.split_points());
    if (threads == 1) {
      CHECK(passes_by_solver.size() == 1);
      CHECK(discarded == 0);
      CHECK(split_points == 0);
    } else {
      // This Solver's, and its test helper's when the helper's thread took one of the root's
      // tests side by side (timing: on a loaded machine the first thread may take them all).
      CHECK(passes_by_solver.size() <= 2);
    }
  }
}

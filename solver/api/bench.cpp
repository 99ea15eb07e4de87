#include "solver/api/bench.hpp"

#include <chrono>
#include <memory>

#include "solver/api/session.hpp"
#include "solver/db/database.hpp"

namespace kalah::api {

namespace {

struct BenchCase {
  const char* name;
  const char* rules;  // preset
  const char* end;    // nullptr: the preset's
  int pits, seeds;
  int db_seeds = -1;  // >= 0: probe an in-memory database of boards with up to this many seeds
  bool full = false;  // also the best first sowings (a full solve's null-window tests)
};

const BenchCase kCases[] = {
    {"Kalah(6,3) standard", "standard", nullptr, 6, 3},
    {"Kalah(6,3) empty capture", "empty-capture", nullptr, 6, 3},
    {"Kalah(5,4) standard", "standard", nullptr, 5, 4},
    {"Kalah(5,4) empty capture", "empty-capture", nullptr, 5, 4},
    {"Kalah(5,4) standard, 12-seed database", "standard", nullptr, 5, 4, 12},
    {"Kalah(6,3) mover end", "bga", nullptr, 6, 3},
    {"Kalah(4,5) empty capture, mover end", "empty-capture", "mover", 4, 5},
    {"relay(5,3)", "relay", nullptr, 5, 3},
    {"relay(4,4) either end", "relay", "either", 4, 4},
    // Full solves over a database, whose tests of the start's sowings search as a value's
    // passes do not: 28 seeds above the database (the value's deepening goes deep, the tests'
    // not at all) and 32 (the tests deepen too).
    {"Kalah(5,4) standard, 12-seed database, full", "standard", nullptr, 5, 4, 12, true},
    {"Kalah(4,5) standard, 8-seed database, full", "standard", nullptr, 4, 5, 8, true},
};

}  // namespace

BenchReport run_bench(int threads, const std::function<void(const BenchResult&)>& on_result) {
  if (threads < 1 || threads > 1024) throw ConfigError("the bench's threads must be between 1 and 1024");
  BenchReport report;
  report.threads = threads;
  for (const BenchCase& c : kCases) {
    BenchResult r;
    r.name = c.name;
    r.rules = Rules::preset(c.rules);
    if (c.end) r.rules.end = parse_end_rule(c.end);
    r.position = Position::start(c.pits, c.seeds);
    SessionConfig config;
    config.pits = c.pits;
    config.rules = r.rules;
    config.max_seeds = 2 * c.pits * c.seeds;
    config.table_bytes = std::uint64_t(64) << 20;
    config.threads = threads;
    if (c.db_seeds >= 0)  // built before the clock starts
      config.database = std::make_shared<const EndgameDatabase>(
          EndgameDatabase::build_in_memory(c.pits, r.rules.value_rules(), c.db_seeds, threads));
    Session session(config);
    const auto t0 = std::chrono::steady_clock::now();
    r.value = session.solver().value(r.position.board());
    if (c.full) r.best = session.solver().best_sowings(r.position.board(), r.value, false);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.nodes = session.solver().nodes();
    report.total_nodes += r.nodes;
    report.seconds += r.seconds;
    if (on_result) on_result(r);
    report.results.push_back(std::move(r));
  }
  return report;
}

}  // namespace kalah::api

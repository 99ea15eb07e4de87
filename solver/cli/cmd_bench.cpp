// kalah bench: a fixed set of positions solved with a fixed configuration (64 MiB table,
// one thread unless --threads says otherwise, a fresh table per position; one position
// probes a small endgame database built in memory first, so the signature also covers the
// database probes and the table bypass just above the database).
// The total node count is a signature: with one thread it changes only when the search's
// behaviour changes (ordering, pruning, table policy), not with the machine's speed.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>

#include "solver/cli/commands.hpp"
#include "solver/cli/common.hpp"
#include "solver/cli/search_setup.hpp"
#include "solver/db/database.hpp"

namespace kalah::cli {

namespace {

struct BenchPosition {
  const char* name;
  const char* rules;  // preset
  const char* end;    // nullptr: the preset's
  int pits, seeds;
  int db_seeds = -1;  // >= 0: probe an in-memory database of boards with up to this many seeds
};

const BenchPosition kPositions[] = {
    {"Kalah(6,3) standard", "standard", nullptr, 6, 3},
    {"Kalah(6,3) empty capture", "empty-capture", nullptr, 6, 3},
    {"Kalah(5,4) standard", "standard", nullptr, 5, 4},
    {"Kalah(5,4) empty capture", "empty-capture", nullptr, 5, 4},
    {"Kalah(5,4) standard, 12-seed database", "standard", nullptr, 5, 4, 12},
    {"Kalah(6,3) mover end", "bga", nullptr, 6, 3},
    {"Kalah(4,5) empty capture, mover end", "empty-capture", "mover", 4, 5},
    {"relay(5,3)", "relay", nullptr, 5, 3},
    {"relay(4,4) either end", "relay", "either", 4, 4},
};

}  // namespace

int run_bench(const Args& args) {
  po::options_description options("Bench options");
  options.add_options()("threads,t", po::value<int>()->default_value(1),
                        "threads (node counts are deterministic with 1 only)")("json", "print one JSON object");
  po::variables_map vm;
  if (!parse_command("bench", "[--threads T] [--json]", options, args, vm)) return 0;
  const int threads = vm["threads"].as<int>();
  if (threads < 1 || threads > 1024) throw UsageError("--threads must be between 1 and 1024");

  JsonWriter json;
  const bool json_out = vm.count("json") > 0;
  if (json_out) json.begin_object().key("positions").begin_array();
  unsigned long long total_nodes = 0;
  double total_seconds = 0;
  for (const BenchPosition& bp : kPositions) {
    Rules rules = Rules::preset(bp.rules);
    if (bp.end) rules.end = parse_end_rule(bp.end);
    search::SolverOptions so;
    so.table_bytes = std::size_t(64) << 20;
    so.threads = threads;
    std::optional<EndgameDatabase> db;  // built before the clock starts
    if (bp.db_seeds >= 0) {
      db.emplace(EndgameDatabase::build_in_memory(bp.pits, rules, bp.db_seeds, threads));
      so.probe = search::database_probe(*db);
    }
    search::Solver solver(bp.pits, rules, 2 * bp.pits * bp.seeds, so);
    const Position p = Position::start(bp.pits, bp.seeds);
    const auto t0 = std::chrono::steady_clock::now();
    const int value = solver.value(p.board());
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    total_nodes += solver.nodes();
    total_seconds += s;
    if (json_out) {
      json.begin_object();
      json.field("name", bp.name);
      json.field("position", p.to_text());
      write_rules_json(json, rules);
      json.field("value", value);
      json.field("nodes", static_cast<unsigned long long>(solver.nodes()));
      json.field("seconds", s);
      json.end_object();
    } else {
      char line[160];
      std::snprintf(line, sizeof line, "%-38s value %+4d  nodes %12llu  %7.3f s\n", bp.name, value,
                    static_cast<unsigned long long>(solver.nodes()), s);
      std::cout << line << std::flush;
    }
  }
  const double nps = total_seconds > 0 ? static_cast<double>(total_nodes) / total_seconds : 0;
  if (json_out) {
    json.end_array();
    json.field("total_nodes", total_nodes);
    json.field("seconds", total_seconds);
    json.field("nodes_per_second", nps);
    json.field("threads", threads);
    json.end_object();
    std::cout << json.str() << "\n";
  } else {
    std::cout << "total nodes " << total_nodes << " (signature)\n"
              << "time        " << total_seconds << " s, " << static_cast<unsigned long long>(nps)
              << " nodes/s, " << threads << " thread" << (threads == 1 ? "" : "s") << "\n";
  }
  return 0;
}

}  // namespace kalah::cli

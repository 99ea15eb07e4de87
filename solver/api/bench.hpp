// solver/api/bench.hpp — the search benchmark: a fixed set of positions solved with a fixed
// configuration (64 MiB table, a fresh session a position, one thread unless asked
// otherwise). Three positions probe an endgame database built in memory first, so the
// signature also covers database probes, the table bypass just above the database and the
// iterative deepening; two of them are full solves (the value, then a null-window test of
// each first sowing), whose tests search otherwise than a value's passes.
//
// The total node count is a signature: with one thread it changes only when the search's
// behaviour changes (ordering, pruning, table policy), never with the machine's speed. The
// committed signature is solver/api/bench_signature.txt, checked by a test.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/position.hpp"
#include "engine/rules.hpp"

namespace kalah::api {

struct BenchResult {
  std::string name;
  Position position;
  Rules rules;
  int value = 0;          // South minus North
  std::vector<int> best;  // a full solve's best first sowings (0-based pits); empty for a value alone
  std::uint64_t nodes = 0;
  double seconds = 0;  // the search alone (the database is built before the clock starts)
};

struct BenchReport {
  std::vector<BenchResult> results;
  std::uint64_t total_nodes = 0;  // the signature
  double seconds = 0;
  int threads = 1;
};

// Run the benchmark on `threads` threads (1..1024), calling on_result after each position.
BenchReport run_bench(int threads = 1, const std::function<void(const BenchResult&)>& on_result = {});

}  // namespace kalah::api

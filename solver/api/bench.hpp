// solver/api/bench.hpp — the search benchmark: a fixed set of positions solved with a fixed
// configuration (64 MiB table, a fresh session a position, one thread unless asked
// otherwise; one position probes a 12-seed endgame database built in memory first, so the
// signature also covers database probes and the table bypass just above the database).
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
  int value = 0;  // South minus North
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

// solver/api/probe_rate.hpp — the random-probe rate of a loaded endgame database (`kalah db
// probe-rate`): how long one value read takes when the boards are spread over every level,
// as the search's probes are, for the layout the database is held in (one byte a board or
// packed). A benchmark, not a test: scripts/bench_db records it.
//
// The boards are drawn uniformly from all boards of levels 0..S (so level S, the largest,
// gets most of them), decoded before the clock starts, and probed in passes over that list,
// once one at a time and once in batches whose reads are prefetched first (as the search
// prefetches a node's children). The sum of the values read is reported so that two layouts
// can be compared for exactness on the same boards.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "solver/api/session.hpp"
#include "solver/db/database.hpp"

namespace kalah::api {

struct ProbeRateOptions {
  std::uint64_t boards = std::uint64_t(1) << 20;  // distinct random boards
  std::uint64_t probes = std::uint64_t(1) << 24;  // reads timed, each way (passes over the boards)
  std::uint64_t seed = 1;
  int batch = 8;  // reads prefetched together in the batched way
};

struct ProbeRateReport {
  std::string directory;  // when measured by measure_database_probe_rate
  int max_seeds = -1;
  double load_seconds = 0;
  std::uint64_t boards = 0, probes = 0;
  int batch = 0;
  double ns_single = 0;        // ns a read, one at a time
  double ns_batched = 0;       // ns a read, `batch` prefetched together
  std::int64_t value_sum = 0;  // the values of the boards, summed once (same for every layout)
  std::uint64_t memory_bytes = 0;
  double bits_per_board = 0;
  bool packed = false;
};

// One thread. Throws std::invalid_argument for an empty database or zero boards/probes/batch.
ProbeRateReport measure_probe_rate(const EndgameDatabase& db, const ProbeRateOptions& options = {});

// Load levels 0..max_seeds (all when < 0) of the database in `dir` in `layout` (as a session
// would: holds_packed) and measure them. Throws DatabaseError; std::invalid_argument for a
// max_seeds beyond the directory's levels. raw_cache and note: as EndgameDatabase::load's.
ProbeRateReport measure_database_probe_rate(const std::filesystem::path& dir, SessionConfig::DatabaseLayout layout,
                                            int max_seeds, const ProbeRateOptions& options, bool raw_cache = true,
                                            const std::function<void(const std::string&)>& note = {});

}  // namespace kalah::api

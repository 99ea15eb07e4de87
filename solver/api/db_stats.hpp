// solver/api/db_stats.hpp — `kalah db stats`: the statistics of solver/db/level_stats.hpp for
// a range of levels of a database directory, with each level file's size beside them.
//
// The levels are loaded 0..last (a level's statistics read every level below it) and measured
// one after the other, first..last; each finished level is reported to a callback as well
// (a level of 400 million boards takes minutes on one core).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "engine/rules.hpp"
#include "solver/db/level_stats.hpp"

namespace kalah::api {

struct DbStatsReport {
  std::string directory;
  int pits = 0;
  Rules rules;         // the database's
  int max_seeds = -1;  // the database's top level
  LevelStatsOptions options;
  std::vector<LevelStats> levels;         // first..last, in order
  std::vector<std::uint64_t> file_bytes;  // the level file of each, in bytes
  double seconds = 0;                     // loading and measuring
};

// Measure levels first..last (last < 0: the database's top level) of the database in `dir`.
// Throws DatabaseError when the directory is not a sound database or does not hold those
// levels; raw_cache and note as EndgameDatabase::load's. level_done, when given, receives each
// level's statistics and file size as soon as they are known.
DbStatsReport database_stats(const std::filesystem::path& dir, int first, int last, const LevelStatsOptions& options,
                             bool raw_cache = true, const std::function<void(const std::string&)>& note = {},
                             const std::function<void(const LevelStats&, std::uint64_t)>& level_done = {});

}  // namespace kalah::api

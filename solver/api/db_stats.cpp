#include "solver/api/db_stats.hpp"

#include <chrono>

#include "solver/db/database.hpp"
#include "solver/db/store.hpp"

namespace kalah::api {

DbStatsReport database_stats(const std::filesystem::path& dir, int first, int last, const LevelStatsOptions& options,
                             bool raw_cache, const std::function<void(const std::string&)>& note,
                             const std::function<void(const LevelStats&, std::uint64_t)>& level_done) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto levels = scan_database(dir);
  const dbfile::Header& h0 = levels.front().header;
  DbStatsReport r;
  r.directory = dir.string();
  r.pits = h0.pits;
  r.rules = h0.rules;
  r.max_seeds = levels.back().level;
  r.options = options;
  if (last < 0) last = r.max_seeds;
  if (first < 0 || first > last || last > r.max_seeds)
    throw DatabaseError(dir.string() + ": levels " + std::to_string(first) + ".." + std::to_string(last) +
                        " asked for, the database holds levels 0.." + std::to_string(r.max_seeds));
  const EndgameDatabase db = EndgameDatabase::load(dir, r.pits, r.rules, last, 0, raw_cache, note);
  for (int k = first; k <= last; ++k) {
    r.levels.push_back(level_stats(db, k, options));
    r.file_bytes.push_back(levels[static_cast<std::size_t>(k)].bytes);
    if (level_done) level_done(r.levels.back(), r.file_bytes.back());
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace kalah::api

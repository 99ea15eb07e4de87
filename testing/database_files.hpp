// testing/database_files.hpp — database directories built for tests and compared: a build in a
// given format, the boards whose values differ between two loaded databases, and whether two
// directories hold the same level files byte for byte.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "solver/db/database.hpp"
#include "solver/db/format.hpp"
#include "solver/db/store.hpp"
#include "testing/scratch_dir.hpp"

namespace kalah::test {

inline DbBuildSummary build_db(const std::filesystem::path& dir, int m, int s, const Rules& r, std::uint32_t format) {
  DbBuildOptions o;
  o.pits = m;
  o.max_seeds = s;
  o.rules = r;
  o.threads = 2;
  o.format = format;
  return build_database(dir, o);
}

// Boards of levels 0..S whose value differs between the two databases (probed through
// value_at, whatever the layouts).
inline std::uint64_t value_differences(const EndgameDatabase& a, const EndgameDatabase& b) {
  std::uint64_t bad = 0;
  const BoardIndexer& ix = a.indexer();
  for (int k = 0; k <= a.max_seeds(); ++k) {
    Board board = ix.board(k, 0);
    for (std::uint64_t i = 0; i < ix.count(k); ++i) {
      const base::u128 bits = base::to_bits(board);
      if (a.value_at(k, i, bits) != b.value_at(k, i, bits)) ++bad;
      if (i + 1 < ix.count(k)) ix.next(board);
    }
  }
  return bad;
}

// The DatabaseError a load of `dir` (levels packed at pack_width, -1: one byte a board) throws,
// or "" when it loads.
inline std::string load_error(const std::filesystem::path& dir, int m, const Rules& r, int pack_width) {
  try {
    (void)EndgameDatabase::load(dir, m, r, -1, 0, false, {}, pack_width);
  } catch (const DatabaseError& e) {
    return e.what();
  }
  return "";
}

inline bool same_level_files(const std::filesystem::path& a, const std::filesystem::path& b, int s) {
  for (int k = 0; k <= s; ++k)
    if (read_bytes(dbfile::level_path(a, k)) != read_bytes(dbfile::level_path(b, k))) return false;
  return true;
}

}  // namespace kalah::test

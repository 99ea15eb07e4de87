#include "solver/db/store.hpp"

#include <chrono>
#include <system_error>

#include "solver/db/database.hpp"
#include "solver/base/board_index.hpp"

namespace kalah {

namespace fs = std::filesystem;

std::uint64_t db_memory_needed(int pits, int max_seeds) {
  const BoardIndexer ix(pits, max_seeds);
  return ix.count_upto(max_seeds) + ix.count(max_seeds) / 2 + (std::uint64_t(64) << 20);
}

namespace {

std::string mib(std::uint64_t bytes) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  return buf;
}

}  // namespace

DbBuildSummary build_database(const fs::path& dir, const DbBuildOptions& o, const DbBuildEvents& events) {
  const auto t0 = std::chrono::steady_clock::now();
  check_database_rules(o.rules);
  if (o.max_seeds < 0 || o.max_seeds > 127) throw std::invalid_argument("--max-seeds must be 0..127");
  const BoardIndexer ix(o.pits, o.max_seeds);
  const std::uint64_t need = db_memory_needed(o.pits, o.max_seeds);
  if (o.memory_limit && need > o.memory_limit)
    throw DatabaseError("a database of " + std::to_string(o.max_seeds) + " seeds on " + std::to_string(o.pits) +
                        " pits needs " + mib(need) + " of memory, over the limit of " + mib(o.memory_limit) +
                        " (--memory)");
  auto note = [&](const std::string& s) {
    if (events.note) events.note(s);
  };

  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw DatabaseError(dir.string() + ": cannot create the directory: " + ec.message());
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".tmp" && entry.path().filename().string().rfind("level-", 0) == 0) {
      note("removing " + entry.path().filename().string() + " (left by an interrupted build)");
      fs::remove(entry.path(), ec);
    }
  }

  DbBuildSummary sum;
  std::vector<LevelArray> levels;
  for (int k = 0; k <= o.max_seeds; ++k) {
    const fs::path file = dbfile::level_path(dir, k);
    if (fs::exists(file, ec)) {
      // A readable header for other pits or rules: another database, never overwritten.
      dbfile::Header h;
      bool header_ok = false;
      try {
        h = dbfile::read_header(file);
        header_ok = true;
      } catch (const DatabaseError& e) {
        note(std::string(e.what()) + "; rebuilding level " + std::to_string(k));
      }
      if (header_ok && (h.pits != o.pits || !h.rules.same_values_as(o.rules) || h.level != k))
        throw DatabaseError(file.string() + ": belongs to another database (" + std::to_string(h.pits) +
                            " pits, rules '" + h.rules.describe() + "', level " + std::to_string(h.level) +
                            "); use another --out directory");
      if (header_ok) {
        try {
          levels.push_back(dbfile::read_level(dir, o.pits, o.rules, k, o.threads));
          sum.bytes_on_disk += fs::file_size(file);
          ++sum.levels_reused;
          note("level " + std::to_string(k) + ": reusing " + file.filename().string() + " (checksums verified)");
          continue;
        } catch (const DatabaseError& e) {
          note(std::string(e.what()) + "; rebuilding level " + std::to_string(k));
        }
      }
    }
    const auto t1 = std::chrono::steady_clock::now();
    levels.emplace_back(ix.count(k));
    build_level(ix, o.rules, k, levels, o.threads, events.progress);
    const dbfile::WriteStats ws = dbfile::write_level(dir, o.pits, o.rules, k, levels[k], o.threads, o.compression);
    sum.bytes_on_disk += ws.bytes;
    ++sum.levels_built;
    if (events.level_done)
      events.level_done(k, std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count(), ws.bytes);
  }
  sum.positions = ix.count_upto(o.max_seeds);
  sum.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return sum;
}

std::vector<DbLevelInfo> scan_database(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw DatabaseError(dir.string() + ": missing (no such database directory)");
  std::vector<DbLevelInfo> out;
  for (int k = 0; k <= 255; ++k) {
    const fs::path file = dbfile::level_path(dir, k);
    if (!fs::exists(file, ec)) break;
    if (!fs::is_regular_file(file, ec)) throw DatabaseError(file.string() + ": not a regular file");
    DbLevelInfo info;
    info.level = k;
    info.file = file;
    info.bytes = fs::file_size(file);
    info.header = dbfile::read_header(file);
    if (info.header.level != k)
      throw DatabaseError(file.string() + ": holds level " + std::to_string(info.header.level) + ", expected " +
                          std::to_string(k));
    if (!out.empty() && (info.header.pits != out[0].header.pits || !(info.header.rules.same_values_as(out[0].header.rules))))
      throw DatabaseError(file.string() + ": pits or rules differ from " + out[0].file.filename().string());
    out.push_back(info);
  }
  if (out.empty()) throw DatabaseError(dbfile::level_path(dir, 0).string() + ": missing (no database levels in " + dir.string() + ")");
  // Levels are used from 0 up to the first missing one; a higher level beyond the gap means
  // the directory is damaged (or a build was interrupted and files removed by hand).
  for (int k = static_cast<int>(out.size()) + 1; k <= 255; ++k)
    if (fs::exists(dbfile::level_path(dir, k), ec))
      throw DatabaseError(dbfile::level_path(dir, static_cast<int>(out.size())).string() +
                          ": missing, but higher levels exist (" + dbfile::level_path(dir, k).filename().string() +
                          "): incomplete database; run kalah db build again to rebuild the missing level");
  return out;
}

}  // namespace kalah

#include "solver/db/store.hpp"

#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <system_error>

#include "engine/text.hpp"
#include "solver/base/board_index.hpp"
#include "solver/base/program_version.hpp"
#include "solver/base/sublevel_index.hpp"
#include "solver/db/database.hpp"
#include "solver/db/directory_lock.hpp"
#include "solver/db/manifest.hpp"

namespace kalah {

namespace fs = std::filesystem;

std::uint64_t db_memory_needed(int pits, int max_seeds, std::uint32_t format) {
  const BoardIndexer ix(pits, max_seeds);
  const std::uint64_t margin = std::uint64_t(64) << 20;
  if (format == dbfile::kVersion) return ix.count_upto(max_seeds) + ix.count(max_seeds) / 2 + margin;
  const std::uint64_t top_packed = packed_bytes_estimate(ix, max_seeds) - packed_bytes_estimate(ix, max_seeds - 1);
  std::uint64_t top_bytes = ix.count(max_seeds);
  if (format == dbfile::kPairedVersion) {
    const SublevelIndexer order(pits, max_seeds);
    top_bytes = 0;
    for (int p = 0; p < SublevelIndexer::pairs(max_seeds); ++p)
      top_bytes = std::max(top_bytes, order.pair_size(max_seeds, p));
  }
  return packed_bytes_estimate(ix, max_seeds - 1) + top_bytes + top_packed + margin;
}

std::uint32_t db_format_for(const fs::path& dir, int pits, int max_seeds, std::uint64_t memory_limit) {
  const auto fits = [&](std::uint32_t format) {
    return memory_limit == 0 || db_memory_needed(pits, max_seeds, format) <= memory_limit;
  };
  std::optional<DbManifest> previous;
  try {
    previous = read_manifest(dir);
  } catch (const DatabaseError&) {
    // An unreadable manifest: the build says so and starts afresh; choose as for a new one.
  }
  if (previous && previous->pits == pits &&
      (previous->format_version == dbfile::kVersion || previous->format_version == dbfile::kPackedVersion ||
       previous->format_version == dbfile::kPairedVersion) &&
      fits(previous->format_version))
    return previous->format_version;
  for (const std::uint32_t format : {dbfile::kVersion, dbfile::kPackedVersion})
    if (fits(format)) return format;
  return dbfile::kPairedVersion;
}

namespace {

std::string link_target(const fs::path& p) {
  std::error_code ec;
  const fs::path t = fs::read_symlink(p, ec);
  return ec ? std::string("?") : t.string();
}

// Throws unless `file` (links followed) is a regular file; `context` ends a "missing" message.
void require_level_file(const fs::path& file, const std::string& context) {
  std::error_code ec;
  const fs::file_status st = fs::status(file, ec);
  if (fs::exists(st)) {
    if (!fs::is_regular_file(st)) throw DatabaseError(file.string() + ": not a regular file");
    return;
  }
  if (fs::is_symlink(fs::symlink_status(file, ec)))
    throw DatabaseError(file.string() + ": missing: a dangling symbolic link to " + link_target(file) + context);
  throw DatabaseError(file.string() + ": missing" + context);
}

// Level k as the manifest lists it: present, a sound header, the size and header CRC the
// manifest records, the manifest's pits and rules.
DbLevelInfo check_listed_level(const fs::path& dir, const DbManifest& m, int k) {
  const fs::path file = dbfile::level_path(dir, k);
  const std::string listed =
      manifest_path(dir).filename().string() + " lists levels 0.." + std::to_string(m.max_seeds());
  require_level_file(file, std::string(k < m.max_seeds() ? ", but higher levels exist (" : " (") + listed +
                               "); run kalah db build with the database's options to rebuild it");
  DbLevelInfo info;
  info.level = k;
  info.file = file;
  info.bytes = fs::file_size(file);
  info.header = dbfile::read_header(file, &info.header_crc);
  const DbManifest::Level& want = m.levels[k];
  info.program = want.program;
  if (info.bytes != want.bytes)
    throw DatabaseError(file.string() + ": " + std::to_string(info.bytes) + " bytes, " +
                        manifest_path(dir).filename().string() + " records " + std::to_string(want.bytes) +
                        " (the file was replaced or damaged)");
  if (info.header_crc != want.header_crc)
    throw DatabaseError(file.string() + ": header differs from the one " + manifest_path(dir).filename().string() +
                        " records (the file was replaced)");
  if (info.header.level != k || info.header.pits != m.pits || !info.header.rules.same_values_as(m.rules))
    throw DatabaseError(file.string() + ": level, pits or rules differ from " + manifest_path(dir).filename().string());
  return info;
}

// Remove the pair files of level k (dbfile::pair_path) the directory holds; true if there
// were any. A file that cannot be removed is left (it is checked before any use).
// Boards of level k (pits a side) held by the pair files in `dir` (as named; unchecked).
std::uint64_t boards_in_pair_files(const fs::path& dir, int pits, int k) {
  std::uint64_t boards = 0;
  std::error_code ec;
  for (int p = 0; p < SublevelIndexer::pairs(k); ++p)
    if (fs::exists(dbfile::pair_path(dir, k, p), ec)) boards += SublevelIndexer::shared(pits)->pair_size(k, p);
  return boards;
}

bool remove_pair_files(const fs::path& dir, int k) {
  bool any = false;
  std::error_code ec;
  for (int p = 0; p < SublevelIndexer::pairs(k); ++p)
    if (fs::remove(dbfile::pair_path(dir, k, p), ec)) any = true;
  return any;
}

}  // namespace

std::uint64_t filesystem_free_bytes(const fs::path& dir) {
  struct statvfs st {};
  if (::statvfs(dir.c_str(), &st) != 0)
    throw DatabaseError(dir.string() + ": cannot query the free space: " + std::generic_category().message(errno));
  return static_cast<std::uint64_t>(st.f_bavail) * st.f_frsize;
}

// Writing a level needs room for its whole file (a damaged file it replaces stays until the
// rename). The estimate: the level below's bytes per entry (its file size over its entries)
// times this level's entries, times 1.5, plus the header and block table. Bytes per entry
// grow slowly with the level (about 2% a level for 6 pits, past the first few levels whose
// files are mostly header), and the level below may have been written at another --compression;
// 1.5 covers both. It is capped by the worst case, ZSTD_compressBound of every block plus the
// header and table, which is the estimate when there is no level below to go by. On top of
// either, 1 MiB for the filesystem's own blocks and the manifest.
std::uint64_t level_bytes_estimate(std::uint64_t entries, std::uint64_t prev_entries, std::uint64_t prev_bytes) {
  const std::uint64_t b = dbfile::kDefaultBlockEntries;
  const std::uint64_t blocks = (entries + b - 1) / b;
  const std::uint64_t frame = dbfile::kHeaderSize + blocks * dbfile::kTableEntrySize;
  std::uint64_t worst = frame + (entries / b) * ZSTD_compressBound(b);
  if (entries % b) worst += ZSTD_compressBound(entries % b);
  std::uint64_t need = worst;
  if (prev_entries > 0 && prev_bytes > 0) {
    const double est =
        1.5 * static_cast<double>(prev_bytes) / static_cast<double>(prev_entries) * static_cast<double>(entries);
    if (est < static_cast<double>(worst - frame)) need = frame + static_cast<std::uint64_t>(std::ceil(est));
  }
  return need + (std::uint64_t(1) << 20);
}

DbBuildSummary build_database(const fs::path& dir, const DbBuildOptions& asked, const DbBuildEvents& events) {
  const auto t0 = std::chrono::steady_clock::now();
  check_database_rules(asked.rules);
  if (asked.max_seeds < 0 || asked.max_seeds > 127) throw std::invalid_argument("--max-seeds must be 0..127");
  const BoardIndexer ix(asked.pits, asked.max_seeds);
  DbBuildOptions o = asked;
  if (o.format == DbBuildOptions::kChooseFormat) o.format = db_format_for(dir, o.pits, o.max_seeds, o.memory_limit);
  if (o.format != dbfile::kVersion && o.format != dbfile::kPackedVersion && o.format != dbfile::kPairedVersion)
    throw std::invalid_argument(
        "level file format must be 1 (one byte a board), 2 (packed) or 3 (packed by sublevel pairs), not " +
        std::to_string(o.format));
  const std::uint64_t need = db_memory_needed(o.pits, o.max_seeds, o.format);
  if (o.memory_limit && need > o.memory_limit) {
    // The format that packs by pairs needs the least: say so when it would fit.
    const std::uint64_t paired_need = db_memory_needed(o.pits, o.max_seeds, dbfile::kPairedVersion);
    const std::string hint = o.format != dbfile::kPairedVersion && paired_need <= o.memory_limit
                                 ? "; --format 3 needs " + byte_text(paired_need)
                                 : "";
    throw std::invalid_argument("a database of " + std::to_string(o.max_seeds) + " seeds on " + std::to_string(o.pits) +
                                " pits needs " + byte_text(need) + " of memory, over the limit of " +
                                byte_text(o.memory_limit) + " (--memory)" + hint);
  }
  auto note = [&](const std::string& s) {
    if (events.note) events.note(s);
  };

  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) throw DatabaseError(dir.string() + ": not a directory");
  fs::create_directories(dir, ec);
  if (ec) throw DatabaseError(dir.string() + ": cannot create the directory: " + ec.message());
  // Held to the end: a second build into the directory is refused before it touches anything.
  const DirectoryLock lock(dir, "kalah db build");
  // Leftover temporary files of level files and of the manifest. Raw cache files and their
  // temporaries ("level-KKK.raw", "level-KKK.raw.tmp.<pid>", solver/db/raw_cache.hpp) belong to
  // loaders, which may be running: left alone.
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() == ".tmp" && (name.rfind("level-", 0) == 0 || name == "manifest.json.tmp")) {
      note("removing " + name + " (left by an interrupted build)");
      fs::remove(entry.path(), ec);
    }
  }
  std::optional<DbManifest> previous;
  try {
    previous = read_manifest(dir);
  } catch (const DatabaseError& e) {
    note(std::string("ignoring the previous manifest: ") + e.what());
  }

  DbBuildSummary sum;
  DbManifest manifest;
  manifest.format_version = o.format;
  manifest.pits = o.pits;
  manifest.rules = o.rules;
  const bool packed = o.format == dbfile::kPackedVersion;
  const bool paired = o.format == dbfile::kPairedVersion;
  HeldLevels levels;             // the complete levels, one byte a board (format 1) or packed (formats 2, 3)
  std::uint64_t prev_bytes = 0;  // file size of level k - 1
  for (int k = 0; k <= o.max_seeds; ++k) {
    if (o.cancel && o.cancel->load(std::memory_order_relaxed)) throw BuildInterrupted(k);
    const fs::path file = dbfile::level_path(dir, k);
    if (fs::exists(file, ec)) {
      // A readable header for other pits or rules: another database, never overwritten.
      dbfile::Header h;
      std::uint32_t header_crc = 0;
      bool header_ok = false;
      try {
        h = dbfile::read_header(file, &header_crc);
        header_ok = true;
      } catch (const DatabaseError& e) {
        note(std::string(e.what()) + "; rebuilding level " + std::to_string(k));
      }
      if (header_ok && (h.pits != o.pits || !h.rules.same_values_as(o.rules) || h.level != k))
        throw DatabaseError(file.string() + ": belongs to another database (" + std::to_string(h.pits) +
                            " pits, rules '" + h.rules.describe() + "', level " + std::to_string(h.level) +
                            "); to finish or extend that one give its pits and rules (kalah db info "
                            "shows them), else use another --out directory");
      if (header_ok) {
        // The values are the earlier build's: its program, where the previous manifest records
        // this very file (a file put there by hand has none).
        std::string earlier_program;
        if (previous && previous->pits == o.pits && previous->rules.same_values_as(o.rules) &&
            k <= previous->max_seeds() && previous->levels[k].header_crc == header_crc)
          earlier_program = previous->levels[k].program;
        try {
          if (packed)
            levels.add(dbfile::read_packed_level(dir, o.pits, o.rules, k, o.threads));
          else if (paired)
            levels.add(dbfile::read_paired_level(dir, o.pits, o.rules, k, o.threads));
          else
            levels.add(dbfile::read_level(dir, o.pits, o.rules, k, o.threads));
          if (h.version != o.format) {
            // Values are the same in every format: convert the file instead of recomputing it.
            const dbfile::WriteStats ws =
                packed
                    ? dbfile::write_packed_level(dir, o.pits, o.rules, levels.last_packed(), o.threads, o.compression)
                : paired
                    ? dbfile::write_paired_level(dir, o.pits, o.rules, levels.last_paired(), o.threads, o.compression)
                    : dbfile::write_level(dir, o.pits, o.rules, k, levels.last_bytes(), o.threads, o.compression);
            header_crc = ws.header_crc;
            note("level " + std::to_string(k) + ": converted " + file.filename().string() + " from format " +
                 std::to_string(h.version) + " to " + std::to_string(o.format) + " (checksums verified)");
          } else {
            note("level " + std::to_string(k) + ": reusing " + file.filename().string() + " (checksums verified)");
          }
          prev_bytes = fs::file_size(file);
          sum.bytes_on_disk += prev_bytes;
          manifest.levels.push_back({k, prev_bytes, header_crc, earlier_program});
          if (h.version != o.format && previous && previous->pits == o.pits &&
              previous->rules.same_values_as(o.rules)) {
            // The previous manifest recorded the file just replaced: record the converted levels
            // and the previous manifest's others, so that an interrupted conversion leaves a
            // readable (mixed-format) database.
            DbManifest now = manifest;
            for (int j = k + 1; j <= previous->max_seeds(); ++j) now.levels.push_back(previous->levels[j]);
            now.target_max_seeds = std::max(previous->target_max_seeds, now.max_seeds());
            write_manifest(dir, now);
          }
          ++sum.levels_reused;
          if (remove_pair_files(dir, k))
            note("level " + std::to_string(k) +
                 ": removed the pair files of an earlier build (the level file holds the level)");
          if (events.level_reused) events.level_reused(k);
          continue;
        } catch (const DatabaseError& e) {
          if (levels.size() > k) throw;  // the level was read: writing it failed
          note(std::string(e.what()) + "; rebuilding level " + std::to_string(k));
        }
      }
    }
    // Room on disk for the level's file, asked before computing it (minutes to hours). A build
    // by pairs that keeps pair files holds the level twice for a while (its pair files, then
    // the level file); the pair files already on disk are counted as written.
    const bool pair_files = paired && ix.count(k) >= o.pair_files_from;
    const std::uint64_t file_need = level_bytes_estimate(ix.count(k), k > 0 ? ix.count(k - 1) : 0, prev_bytes);
    std::uint64_t disk_need = file_need;
    if (pair_files) {
      const std::uint64_t unsaved = ix.count(k) - boards_in_pair_files(dir, o.pits, k);
      disk_need += static_cast<std::uint64_t>(static_cast<double>(file_need) * static_cast<double>(unsaved) /
                                              static_cast<double>(ix.count(k)));
    }
    const std::uint64_t available = o.free_bytes ? o.free_bytes(dir) : filesystem_free_bytes(dir);
    if (disk_need > available)
      throw DatabaseError(
          dir.string() + ": not enough free space to build level " + std::to_string(k) +
          (pair_files ? ": its file and the pair files still to write need about " : ": its file needs about ") +
          std::to_string(disk_need) + " bytes (" + byte_text(disk_need) + "), the filesystem has " +
          std::to_string(available) + " bytes (" + byte_text(available) +
          ") free; free some space and run the build again (it resumes)");
    const auto t1 = std::chrono::steady_clock::now();
    dbfile::WriteStats ws;
    if (paired) {
      // Each pair is saved in a pair file as soon as it is done, and the pair files an
      // interrupted build left are reused: a build stopped inside a level of hours resumes at
      // its pair.
      int saved = 0;
      PairCheckpoints checkpoints;
      checkpoints.load = [&](int p) -> std::optional<PackedLevel> {
        const fs::path pair_file = dbfile::pair_path(dir, k, p);
        std::error_code exists_ec;
        if (!fs::exists(pair_file, exists_ec)) return std::nullopt;
        try {
          PackedLevel pair = dbfile::read_pair_file(dir, o.pits, o.rules, k, p, o.threads);
          note("level " + std::to_string(k) + ": reusing pair " + std::to_string(p) + " (" +
               pair_file.filename().string() + ", checksums verified)");
          ++saved;
          if (events.pair_reused) events.pair_reused(k, pair.size());
          return pair;
        } catch (const DatabaseError& e) {
          note(std::string(e.what()) + "; rebuilding pair " + std::to_string(p) + " of level " + std::to_string(k));
          return std::nullopt;
        }
      };
      bool saving = pair_files;
      checkpoints.save = [&](int p, const PackedLevel& pair) {
        if (!saving) return;
        try {
          dbfile::write_pair_file(dir, o.pits, o.rules, k, p, pair, o.threads, o.compression);
        } catch (const DatabaseError& e) {
          // A checkpoint is worth less than the level: go on without them.
          note(std::string(e.what()) + "; level " + std::to_string(k) + " goes on without saving its pairs");
          saving = false;
          return;
        }
        ++saved;
        if (events.pair_saved) events.pair_saved(k, p);
      };
      PairedLevel level;
      try {
        level =
            build_paired_level(ix, o.rules, k, levels.views(), 0, o.threads, events.progress, o.cancel, &checkpoints);
      } catch (BuildInterrupted& e) {
        e.pairs_saved = saved;
        throw;
      }
      ws = dbfile::write_paired_level(dir, o.pits, o.rules, level, o.threads, o.compression);
      levels.add(std::move(level));
    } else {
      LevelArray level(ix.count(k));
      build_level(ix, o.rules, k, levels.views(), level, o.threads, events.progress, o.cancel);
      if (packed) {
        PackedLevel p = PackedLevel::pack(ix, k, std::move(level), 0, o.threads);  // in place of the bytes
        level = LevelArray();
        ws = dbfile::write_packed_level(dir, o.pits, o.rules, p, o.threads, o.compression);
        levels.add(std::move(p));
      } else {
        ws = dbfile::write_level(dir, o.pits, o.rules, k, level, o.threads, o.compression);
        levels.add(std::move(level));
      }
    }
    sum.bytes_on_disk += ws.bytes;
    prev_bytes = ws.bytes;
    remove_pair_files(dir, k);  // the level file holds them now
    manifest.levels.push_back({k, ws.bytes, ws.header_crc, program_version()});
    ++sum.levels_built;
    // Record each level beyond what an earlier manifest listed as soon as it is on disk, with
    // the build's target: a build that dies later leaves an incomplete database, never one
    // that looks finished and smaller.
    if (!previous || k > previous->max_seeds()) {
      manifest.target_max_seeds = std::max(o.max_seeds, previous ? previous->target_max_seeds : -1);
      write_manifest(dir, manifest);
    }
    if (events.level_done)
      events.level_done(k, std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count(), ws.bytes);
  }

  // The manifest, last, once every level file is in place. Levels above max_seeds that the
  // previous manifest listed stay listed while their files still match it.
  if (previous && previous->pits == o.pits && previous->rules.same_values_as(o.rules) &&
      previous->max_seeds() > o.max_seeds) {
    for (int k = o.max_seeds + 1; k <= previous->max_seeds(); ++k) {
      try {
        const DbLevelInfo info = check_listed_level(dir, *previous, k);
        manifest.levels.push_back({k, info.bytes, info.header_crc, info.program});
      } catch (const DatabaseError& e) {
        note(std::string(e.what()) + "; the manifest lists levels 0.." + std::to_string(k - 1) + " only");
        break;
      }
    }
    if (manifest.max_seeds() > o.max_seeds)
      note("keeping levels " + std::to_string(o.max_seeds + 1) + ".." + std::to_string(manifest.max_seeds()) +
           " in the manifest (built before, above --max-seeds)");
  }
  if (manifest.max_seeds() == o.max_seeds && fs::exists(dbfile::level_path(dir, o.max_seeds + 1), ec))
    note(dbfile::level_path(dir, o.max_seeds + 1).filename().string() +
         " and above are not in the manifest and will not be used (build with a larger --max-seeds to include them)");
  manifest.target_max_seeds = manifest.max_seeds();
  write_manifest(dir, manifest);
  note("wrote " + manifest_path(dir).filename().string() + " (levels 0.." + std::to_string(manifest.max_seeds()) + ")");
  for (const DbScan::SavedPairs& s : find_pair_files(dir))
    if (s.level > manifest.max_seeds())
      note("kept " + std::to_string(s.pairs) + " pair files of level " + std::to_string(s.level) + " (a build to " +
           std::to_string(s.level) + " seeds or more reuses them; delete " +
           dbfile::pair_path(dir, s.level, 0).filename().string().substr(0, 15) + "*.kdb to free the space)");
  sum.positions = ix.count_upto(o.max_seeds);
  sum.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return sum;
}

void check_database_dir(const fs::path& dir) {
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (fs::is_directory(st)) return;
  if (fs::exists(st))
    throw DatabaseError(dir.string() + ": not a directory (a database is a directory of level files)");
  if (st.type() == fs::file_type::none) throw DatabaseError(dir.string() + ": cannot be accessed: " + ec.message());
  std::error_code lec;
  if (fs::is_symlink(fs::symlink_status(dir, lec)))
    throw DatabaseError(dir.string() + ": missing: a dangling symbolic link to " + link_target(dir));
  throw DatabaseError(dir.string() + ": missing (no such database directory)");
}

namespace {

// A directory without a manifest (built before manifests): levels 0 up to the first missing one.
std::vector<DbLevelInfo> scan_legacy(const fs::path& dir) {
  std::error_code ec;
  std::vector<DbLevelInfo> out;
  for (int k = 0; k <= 255; ++k) {
    const fs::path file = dbfile::level_path(dir, k);
    if (!fs::exists(file, ec)) {
      if (fs::is_symlink(fs::symlink_status(file, ec)))
        throw DatabaseError(file.string() + ": missing: a dangling symbolic link to " + link_target(file));
      break;
    }
    if (!fs::is_regular_file(file, ec)) throw DatabaseError(file.string() + ": not a regular file");
    DbLevelInfo info;
    info.level = k;
    info.file = file;
    info.bytes = fs::file_size(file);
    info.header = dbfile::read_header(file, &info.header_crc);
    if (info.header.level != k)
      throw DatabaseError(file.string() + ": holds level " + std::to_string(info.header.level) + ", expected " +
                          std::to_string(k));
    if (!out.empty() &&
        (info.header.pits != out[0].header.pits || !(info.header.rules.same_values_as(out[0].header.rules))))
      throw DatabaseError(file.string() + ": pits or rules differ from " + out[0].file.filename().string());
    out.push_back(info);
  }
  if (out.empty())
    throw DatabaseError(dbfile::level_path(dir, 0).string() + ": missing (no database levels in " + dir.string() + ")");
  // Levels are used from 0 up to the first missing one; a higher level beyond the gap means
  // the directory is damaged (or a build was interrupted and files removed by hand).
  for (int k = static_cast<int>(out.size()) + 1; k <= 255; ++k)
    if (fs::exists(dbfile::level_path(dir, k), ec))
      throw DatabaseError(dbfile::level_path(dir, static_cast<int>(out.size())).string() +
                          ": missing, but higher levels exist (" + dbfile::level_path(dir, k).filename().string() +
                          "): incomplete database; rebuild the missing level with kalah db build on it, its --pits " +
                          std::to_string(out[0].header.pits) + " and rules ('" + out[0].header.rules.describe() + "')");
  return out;
}

}  // namespace

DbScan inspect_database(const fs::path& dir) {
  check_database_dir(dir);
  DbScan scan;
  std::error_code ec;
  if (const std::optional<DbManifest> m = read_manifest(dir)) {
    scan.has_manifest = true;
    scan.target_max_seeds = m->target_max_seeds;
    for (int k = 0; k <= m->max_seeds(); ++k) scan.levels.push_back(check_listed_level(dir, *m, k));
    for (int k = m->max_seeds() + 1; k <= 255; ++k)
      if (fs::exists(fs::symlink_status(dbfile::level_path(dir, k), ec))) scan.unused_levels.push_back(k);
    scan.saved_pairs = find_pair_files(dir);
    return scan;
  }
  scan.levels = scan_legacy(dir);
  scan.saved_pairs = find_pair_files(dir);
  return scan;
}

std::vector<DbScan::SavedPairs> find_pair_files(const fs::path& dir) {
  std::vector<DbScan::SavedPairs> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    int k = 0, p = 0;
    char tail = 0;
    const std::string name = entry.path().filename().string();
    if (std::sscanf(name.c_str(), "level-%3d-pair-%3d.kd%c", &k, &p, &tail) != 3 || tail != 'b' ||
        dbfile::pair_path(dir, k, p).filename() != name)
      continue;
    auto at = std::find_if(found.begin(), found.end(), [&](const DbScan::SavedPairs& s) { return s.level == k; });
    if (at == found.end()) at = found.insert(found.end(), {k, 0});
    ++at->pairs;
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.level < b.level; });
  return found;
}

std::uint64_t DbScan::bytes() const {
  std::uint64_t total = 0;
  for (const DbLevelInfo& l : levels) total += l.bytes;
  return total;
}

std::uint64_t DbScan::memory_bytes() const {
  std::uint64_t total = 0;
  for (const DbLevelInfo& l : levels) total += l.header.is_packed() ? l.header.image_bytes : l.header.entries;
  return total;
}

std::uint64_t DbScan::positions() const {
  return BoardIndexer(levels.front().header.pits, max_seeds()).count_upto(max_seeds());
}

std::vector<DbLevelInfo> scan_database(const fs::path& dir) { return inspect_database(dir).levels; }

}  // namespace kalah

namespace kalah {

namespace {

// What a verify of the database in `dir` starts from: its levels as their headers describe them
// (inspect_database), and the summary's pits, rules and top level from them.
std::pair<DbScan, DbVerifySummary> verify_start(const fs::path& dir,
                                                const std::function<void(const DbScan&)>& started) {
  std::pair<DbScan, DbVerifySummary> out{inspect_database(dir), {}};
  const dbfile::Header& h0 = out.first.levels.front().header;
  out.second.pits = h0.pits;
  out.second.rules = h0.rules;
  out.second.max_seeds = out.first.levels.back().level;
  if (started) started(out.first);
  return out;
}

}  // namespace

DbVerifySummary verify_database(const fs::path& dir, int threads, const std::function<void(const DbScan&)>& started,
                                const std::function<void(int k, std::uint64_t entries)>& level_ok) {
  const auto t0 = std::chrono::steady_clock::now();
  auto [scan, sum] = verify_start(dir, started);
  const BoardIndexer ix(sum.pits, sum.max_seeds);
  HeldLevels levels;  // each level as its file holds it (versions 2 and 3 stay packed)
  for (int k = 0; k <= sum.max_seeds; ++k) {
    // Every checksum, and for a packed level the image's consistency.
    if (scan.levels[k].header.version == dbfile::kPackedVersion)
      levels.add(dbfile::read_packed_level(dir, sum.pits, sum.rules, k, threads));
    else if (scan.levels[k].header.version == dbfile::kPairedVersion)
      levels.add(dbfile::read_paired_level(dir, sum.pits, sum.rules, k, threads));
    else
      levels.add(dbfile::read_level(dir, sum.pits, sum.rules, k, threads));
    std::uint64_t first_bad = 0;
    const std::uint64_t bad = verify_level(ix, sum.rules, k, levels.views(), threads, &first_bad);
    if (bad)
      throw DatabaseError(scan.levels[k].file.string() + ": " + std::to_string(bad) +
                          " entries differ from the values re-derived from their successors (first at index " +
                          std::to_string(first_bad) + ")");
    if (level_ok) level_ok(k, ix.count(k));
  }
  sum.positions = ix.count_upto(sum.max_seeds);
  sum.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return sum;
}

DbVerifySummary verify_database_sample(const fs::path& dir, std::uint64_t samples, std::uint64_t seed, int threads,
                                       const std::function<void(const DbScan&)>& started,
                                       const std::function<void(int k, std::uint64_t entries)>& level_ok,
                                       const std::function<void(const std::string&)>& note) {
  const auto t0 = std::chrono::steady_clock::now();
  auto [scan, sum] = verify_start(dir, started);
  const bool packed = scan.levels.front().header.is_packed();  // load as filed, as a solve does
  const EndgameDatabase db =
      EndgameDatabase::load(dir, sum.pits, sum.rules, sum.max_seeds, 0, true, note, packed ? 0 : -1, threads);
  std::vector<LevelView> views;
  for (int k = 0; k <= sum.max_seeds; ++k) views.push_back(db.view(k));
  const BoardIndexer& ix = db.indexer();
  for (int k = 0; k <= sum.max_seeds; ++k) {
    std::uint64_t first_bad = 0, bad = 0, checked = 0;
    if (ix.count(k) <= samples) {
      bad = verify_level(ix, sum.rules, k, views, threads, &first_bad);
      checked = ix.count(k);
    } else {
      bad = verify_level_sample(ix, sum.rules, k, views, samples, seed, threads, &first_bad);
      checked = samples;
    }
    if (bad)
      throw DatabaseError(scan.levels[k].file.string() + ": " + std::to_string(bad) + " of " + std::to_string(checked) +
                          " entries drawn differ from the values re-derived from their successors (first at index " +
                          std::to_string(first_bad) + ")");
    sum.positions += checked;
    if (level_ok) level_ok(k, checked);
  }
  sum.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return sum;
}

}  // namespace kalah

// solver/db/store.hpp — database directories: a resumable build that writes one level file
// per level as soon as it is complete (solver/db/format.hpp), and a scan of what a directory
// holds. Loading is EndgameDatabase::load (solver/db/database.hpp).
//
// Resuming: `kalah db build` run again on the same directory deletes leftover temporary files,
// reuses every level file that passes all checks (header, rules, pit count, checksums of
// every block) and rebuilds the missing or damaged ones. A build by pairs (format 3) also
// saves each pair of the level under construction in a pair file (dbfile::pair_path) and
// reuses those that pass the same checks, so that it resumes at the pair; a level's pair
// files are removed once its level file is written. Values do not depend on how a level
// was computed, so the result is byte-identical to an uninterrupted build.
//
// A build holds an exclusive lock on DIR/.lock (flock) from start to end: a second build into
// the same directory is refused at once. Before computing a level it checks that the
// directory's filesystem has room for the level's file. Last, it writes DIR/manifest.json
// (solver/db/manifest.hpp), the record of the levels built, which readers check.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "engine/rules.hpp"
#include "solver/db/builder.hpp"
#include "solver/db/format.hpp"

namespace kalah {

// Bytes free for an unprivileged writer on the filesystem holding `dir` (statvfs: f_bavail x
// f_frsize). Throws DatabaseError naming `dir` when the query fails.
std::uint64_t filesystem_free_bytes(const std::filesystem::path& dir);

// Bytes on disk that writing a level of `entries` entries may need, estimated conservatively
// (see store.cpp); prev_entries / prev_bytes describe the level below (0 when unknown).
std::uint64_t level_bytes_estimate(std::uint64_t entries, std::uint64_t prev_entries, std::uint64_t prev_bytes);

struct DbBuildOptions {
  int pits = 6;
  Rules rules;
  int max_seeds = 0;
  int threads = 0;                 // <= 0: all cores (OpenMP default)
  std::uint64_t memory_limit = 0;  // bytes; 0: no limit
  int compression = 3;             // zstd level
  // Level file format: dbfile::kVersion (one byte a board; the build holds every level so),
  // dbfile::kPackedVersion (packed: the build holds the levels below the one it computes packed,
  // and writes each level packed) or dbfile::kPairedVersion (packed by sublevel pairs: as 2, and
  // the level under construction is computed a pair at a time, each pair packed when done). A
  // level file of another format is converted, not rebuilt. kChooseFormat: db_format_for's
  // choice.
  static constexpr std::uint32_t kChooseFormat = 0;
  std::uint32_t format = dbfile::kVersion;
  // Free space of the directory's filesystem, asked before each level is computed (tests
  // inject their own).
  std::function<std::uint64_t(const std::filesystem::path&)> free_bytes = filesystem_free_bytes;
  // Once set (e.g. by a signal handler), the level under construction is abandoned (not
  // written) and build_database throws BuildInterrupted naming it: the levels below it are
  // on disk, and running the build again resumes there.
  const std::atomic<bool>* cancel = nullptr;
  // A build by pairs saves the pairs of a level in pair files when the level has at least this
  // many boards (2^25: a few seconds of work; smaller levels are quicker to compute again than
  // to sync to disk a pair at a time).
  std::uint64_t pair_files_from = std::uint64_t(1) << 25;
};

struct DbBuildEvents {
  std::function<void(const std::string&)> note;  // one-line messages (level reused, rebuilt, ...)
  std::function<void(int k)> level_reused;       // level k was on disk and passed every check
  LevelProgressFn progress;                      // progress inside a level being built
  // A pair of level k (`boards` boards) taken from its pair file instead of computed.
  std::function<void(int k, std::uint64_t boards)> pair_reused;
  // Pair p of level k computed and saved in its pair file.
  std::function<void(int k, int p)> pair_saved;
  std::function<void(int k, double seconds, std::uint64_t bytes)> level_done;  // level written
};

struct DbBuildSummary {
  std::uint64_t positions = 0;      // entries in levels 0..S
  std::uint64_t bytes_on_disk = 0;  // all level files
  int levels_reused = 0;
  int levels_built = 0;
  double seconds = 0;  // whole command, including reuse checks and writing
};

// Bytes of RAM a build to max_seeds needs. Format 1: every level held at once (one byte a
// board) plus the compressed copy of the largest level while it is written. Format 2: levels
// below the top packed (4.2 bits a board, packed_bytes_estimate), the top one at one byte while
// it is computed and packed (in place), and the packed top level (files are written a few
// compressed blocks at a time). Format 3: as 2 with only the top level's largest pair at one
// byte a board.
std::uint64_t db_memory_needed(int pits, int max_seeds, std::uint32_t format = dbfile::kVersion);

// The format a build of levels 0..max_seeds in `dir` gets when none is asked for: the format
// of the build that made `dir` (its manifest's), so that a resumed or grown database is not
// converted, if that fits in memory_limit; else the first of 1, 2, 3 that fits (one byte a
// board builds and probes fastest; the packed formats need less memory, format 3 the least);
// 3 when none does (the build then refuses, naming its need). memory_limit 0: no limit. A
// directory whose manifest cannot be read counts as new.
std::uint32_t db_format_for(const std::filesystem::path& dir, int pits, int max_seeds, std::uint64_t memory_limit);

// Build (or resume) the database in `dir` (created if missing). Throws std::invalid_argument
// for what the build cannot serve (early end, a size out of range, a memory need over the
// limit: checked before anything is touched), DatabaseError when another build
// holds the directory's lock, when the filesystem lacks the room for a level (checked before
// computing it), when `dir` holds a database for other rules or another pit count, or on I/O
// errors. Levels above max_seeds that the directory's previous manifest listed, and whose
// files still match it, stay in the new manifest.
DbBuildSummary build_database(const std::filesystem::path& dir, const DbBuildOptions& options,
                              const DbBuildEvents& events = {});

// One level file as found in a directory.
struct DbLevelInfo {
  int level = 0;
  std::filesystem::path file;
  std::uint64_t bytes = 0;
  std::uint32_t header_crc = 0;  // CRC-32C of header bytes 0..59
  dbfile::Header header;
  std::string program;  // the program that computed it, as the manifest records (empty: not recorded)
};

// What a database directory holds.
struct DbScan {
  std::vector<DbLevelInfo> levels;  // the levels in use, 0..S
  bool has_manifest = false;        // false: a directory built before manifests
  int target_max_seeds = -1;        // with a manifest: the top level its build set out to make
  int max_seeds() const { return levels.back().level; }
  std::uint64_t bytes() const;      // all level files in use
  std::uint64_t positions() const;  // boards in levels 0..max_seeds()
  // Bytes levels 0..max_seeds() take in memory loaded as their files hold them (format 1: a
  // byte a board; format 2: the packed image), and bits a board.
  std::uint64_t memory_bytes() const;
  double bits_per_board() const { return 8.0 * double(memory_bytes()) / double(positions()); }
  // A build stopped part way (crash, full disk, Ctrl-C): fewer levels than it set out to make.
  bool incomplete() const { return has_manifest && target_max_seeds > max_seeds(); }
  std::vector<int> unused_levels;  // level files above the manifest's top (not used)
  // Levels with pair files (a build by pairs stopped inside them), lowest first.
  struct SavedPairs {
    int level = 0;
    int pairs = 0;  // pair files present (unchecked), of SublevelIndexer::pairs(level)
  };
  std::vector<SavedPairs> saved_pairs;
};

// The pair files (dbfile::pair_path) in `dir`, by level, lowest first; present, not checked.
std::vector<DbScan::SavedPairs> find_pair_files(const std::filesystem::path& dir);

// Throws DatabaseError unless `dir` is a directory: "missing" when nothing is there, "not a
// directory" when something else is.
void check_database_dir(const std::filesystem::path& dir);

// The levels of the database in `dir`. With a manifest: exactly the levels it lists, each
// file present (not a dangling link), of the size and header CRC the manifest records, with
// a sound header; level files above them are listed as unused. Without one (a database built
// before manifests): the level files level-000.kdb, level-001.kdb, ... up to the first missing
// one. Throws DatabaseError naming the file when `dir` is missing or not a directory, the
// manifest is damaged, a level is missing, differs from the manifest or has a damaged header,
// there is no level 0, a level is missing below others, or the files disagree on pits or rules.
DbScan inspect_database(const std::filesystem::path& dir);
// inspect_database(dir).levels
std::vector<DbLevelInfo> scan_database(const std::filesystem::path& dir);

struct DbVerifySummary {
  int pits = 0;
  Rules rules;
  int max_seeds = -1;
  std::uint64_t positions = 0;  // entries re-derived, all levels
  double seconds = 0;
};
// Read every level of the database in `dir` (every checksum) and re-derive every entry
// from its successors (solver/db/builder.hpp, verify_level), level by level from 0;
// level_ok(k, entries) after each. Throws DatabaseError naming the first level file that is
// damaged or holds an entry that differs (the count and the first index).
DbVerifySummary verify_database(const std::filesystem::path& dir, int threads,
                                const std::function<void(const DbScan&)>& started = {},
                                const std::function<void(int k, std::uint64_t entries)>& level_ok = {});
// verify_database's quick form: the database loaded as a solve loads it, in the layout of its
// files (EndgameDatabase::load: each level's valid raw cache mapped read-only, its checksum
// checked, else the level file read, its checksums checked, and the cache written for the
// next load, `note` told of a damaged cache), then `samples` random draws of each level's
// entries re-derived from their successors (verify_level_sample; a level with no more boards
// than that has every entry re-derived). The mapped pages are shared with a search that
// mapped the same caches (a job on the same directory), so that search's memory is not
// taken twice. A check on a sample, not a proof: a builder's error that touches a fraction
// f of a level escapes it with probability (1 - f)^samples. `positions` counts the entries
// re-derived (draws, repeats included). Throws as verify_database.
DbVerifySummary verify_database_sample(const std::filesystem::path& dir, std::uint64_t samples, std::uint64_t seed,
                                       int threads, const std::function<void(const DbScan&)>& started = {},
                                       const std::function<void(int k, std::uint64_t entries)>& level_ok = {},
                                       const std::function<void(const std::string&)>& note = {});

}  // namespace kalah

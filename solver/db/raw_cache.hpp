// solver/db/raw_cache.hpp — raw cache files: beside each level file "level-KKK.kdb" a loader
// keeps "level-KKK.raw", the level's entries uncompressed exactly as in memory behind a
// 4096-byte header, and maps it (mmap, read-only) on the next load instead of decompressing
// the level into fresh memory: no zstd, and no kernel zeroing of fresh pages, only a
// CRC-32C pass over the mapping. docs/db-format.md ("Raw cache files") describes the file.
//
// Header (4096 bytes, little endian): magic "KALAHRAW", cache format version, header size,
// the level file's pits, rule fields and level, entry count, the CRC-32C of the level file's
// header bytes 0..59 (so a cache of another or a rebuilt level file is never used), the
// CRC-32C of the entries, the file size, zeros, and last the CRC-32C of header bytes 0..4091.
//
// A cache is written to "level-KKK.raw.tmp.<pid>", synced and dropped from the page cache
// (the next load reads it in huge folios), and renamed into place (the directory not synced:
// the checksums catch a torn file), so loaders running at once never see a partial cache. A
// cache that cannot be written (directory not writable, too little room) is skipped: the
// load never fails because of its cache.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "engine/rules.hpp"
#include "solver/db/bound_level.hpp"
#include "solver/db/format.hpp"
#include "solver/db/level.hpp"
#include "solver/db/packed_level.hpp"
#include "solver/db/paired_level.hpp"

namespace kalah::dbfile {

inline constexpr char kRawMagic[8] = {'K', 'A', 'L', 'A', 'H', 'R', 'A', 'W'};
inline constexpr std::uint32_t kRawVersion = 1;
inline constexpr std::uint32_t kRawHeaderSize = 4096;
// Room a cache leaves free on its filesystem, beyond its own size.
inline constexpr std::uint64_t kRawSpareBytes = std::uint64_t(256) << 20;

// "level-024.raw"
std::filesystem::path raw_path(const std::filesystem::path& dir, int k);

// The cache of the level file whose header is `h` (header bytes 0..59 with CRC-32C
// `header_crc`), mapped read-only, once its header matches (its own checksum, magic, version,
// the level file's fields and header CRC, entry count, file size) and the CRC-32C of its
// entries, computed over the mapping, matches the one its header records. Nothing when there
// is no such cache; *damage (when given) then names a cache whose header matches but whose
// entries do not ("level-KKK.raw: entries checksum mismatch ..."), and is left empty otherwise.
// The checksum runs on `threads` threads (0: all).
std::optional<LevelArray> map_raw_cache(const std::filesystem::path& dir, const Header& h, std::uint32_t header_crc,
                                        std::string* damage = nullptr, int threads = 0);

struct RawWriteResult {
  bool written = false;
  // Why not, when the reason deserves a note (too little room, an I/O error); empty when the
  // directory is simply not writable (a read-only database directory is fine).
  std::string problem;
};

// Write `level`, read from the level file whose header is `h` (CRC-32C of bytes 0..59
// `header_crc`), as the cache of level h.level in `dir`: to raw_path(dir, k) + ".tmp.<pid>",
// then renamed into place. First removes "level-KKK.raw.tmp.<pid>" files of processes that
// no longer exist (left by a loader that was killed while writing). Skipped when the
// filesystem's free space (free_bytes, statvfs when empty) is below the file's size plus
// kRawSpareBytes. Never throws DatabaseError: a failure removes the temporary file.
RawWriteResult write_raw_cache(const std::filesystem::path& dir, const Header& h, std::uint32_t header_crc,
                               const LevelArray& level,
                               const std::function<std::uint64_t(const std::filesystem::path&)>& free_bytes = {});

// Packed raw caches: beside a format-2 level file "level-KKK.kdb" a packed load keeps
// "level-KKK.praw", the packed image laid out for mapping (docs/db-format.md, "Packed raw
// cache files"): a 4096-byte header (magic "KALAHRAW", cache format version 2, the level
// fields, the level file's header CRC, the CRC-32C of everything after the header, the file
// size, the packed shape and section offsets, its own CRC), then the lines, the exceptions
// (each section at a 4096-byte boundary, zero padded), the weights and the group offsets.
// The lines and exceptions are mapped read-only; weights and offsets are copied.
inline constexpr std::uint32_t kPackedRawVersion = 2;

// "level-024.praw"
std::filesystem::path packed_raw_path(const std::filesystem::path& dir, int k);

// The packed cache of the format-2 level file whose header is `h` (CRC `header_crc`), mapped,
// once its header matches and its data's CRC-32C matches; nothing otherwise, with *damage set
// as map_raw_cache sets it. The image is not checked again (PackedLevel::check_image): a cache
// is written only from a level read from its level file, which passed that check.
std::optional<PackedLevel> map_packed_raw_cache(const std::filesystem::path& dir, const BoardIndexer& indexer,
                                                const Header& h, std::uint32_t header_crc,
                                                std::string* damage = nullptr, int threads = 0);

// Write `level`, read from the format-2 level file whose header is `h`, as its packed cache
// (as write_raw_cache writes a cache).
RawWriteResult write_packed_raw_cache(
    const std::filesystem::path& dir, const Header& h, std::uint32_t header_crc, const PackedLevel& level,
    const std::function<std::uint64_t(const std::filesystem::path&)>& free_bytes = {});

// Paired raw caches: beside a format-3 level file, "level-KKK.praw" holds each pair's image laid
// out as a packed cache's (docs/db-format.md, "Packed raw cache files"), pair after pair, each
// from a 4096-byte boundary, behind a 4096-byte header (cache format version 3: the pair count
// and each pair's shape and section offsets).
inline constexpr std::uint32_t kPairedRawVersion = 3;

std::optional<PairedLevel> map_paired_raw_cache(const std::filesystem::path& dir, const Header& h,
                                                std::uint32_t header_crc, std::string* damage = nullptr,
                                                int threads = 0);
RawWriteResult write_paired_raw_cache(
    const std::filesystem::path& dir, const Header& h, std::uint32_t header_crc, const PairedLevel& level,
    const std::function<std::uint64_t(const std::filesystem::path&)>& free_bytes = {});

// Bound caches: beside a format-3 level file, "level-KKK.bnd" holds the level's bounds
// (solver/db/bound_level.hpp: a bit a board) behind a 4096-byte header (cache format version 5,
// the level fields, the level file's header CRC, the CRC-32C of the bits, the file size, the
// sublevels' thresholds). There is no other copy of the bits on disk: a load that finds no
// valid cache makes them from the level file (through its paired cache) and writes the cache.
// (Version 4, bits split at 0, is no longer read: such a file is made again and replaced.)
inline constexpr std::uint32_t kBoundRawVersion = 5;

// "level-024.bnd"
std::filesystem::path bound_path(const std::filesystem::path& dir, int k);
std::optional<BoundLevel> map_bound_cache(const std::filesystem::path& dir, const Header& h, std::uint32_t header_crc,
                                          std::string* damage = nullptr, int threads = 0);
RawWriteResult write_bound_cache(const std::filesystem::path& dir, const Header& h, std::uint32_t header_crc,
                                 const BoundLevel& level,
                                 const std::function<std::uint64_t(const std::filesystem::path&)>& free_bytes = {});

// How EndgameDatabase::load uses the caches across the levels of one load.
struct RawCacheState {
  bool enabled = true;  // false: read the level files only, write no cache
  bool write = true;    // cleared once a cache could not be written: no more tries in this load
  std::function<void(const std::string&)> note;                           // one-line notes
  std::function<std::uint64_t(const std::filesystem::path&)> free_bytes;  // empty: statvfs (tests inject)
};

// Level k as read_level gives it, from its cache when one is valid (the level file's header
// and block table are checked first, as read_header does, and must be level k's for pits and
// rules). Otherwise (cache off, missing, stale or damaged: a damaged one is noted) from the
// level file, after which the cache is written when cache.write allows (a problem worth
// saying is noted, once: cache.write is then cleared). Throws DatabaseError as read_level.
LevelArray load_level(const std::filesystem::path& dir, int pits, const Rules& rules, int k, RawCacheState& cache,
                      int threads = 0);

// Level k of a format-2 level file as read_packed_level gives it, from its packed cache when
// one is valid, else from the level file, writing the cache afterwards (as load_level).
PackedLevel load_packed_level(const std::filesystem::path& dir, int pits, const Rules& rules, int k,
                              RawCacheState& cache, int threads = 0);
// The same for a level packed by pairs (read_paired_level), through its paired cache.
PairedLevel load_paired_level(const std::filesystem::path& dir, int pits, const Rules& rules, int k,
                              RawCacheState& cache, int threads = 0);

// Level k's bounds (BoundLevel) from its bound cache when one is valid, else made from the
// format-3 level file (load_paired_level), after which the cache is written (as load_level).
// Throws DatabaseError as read_paired_level, and for a level file of another format.
BoundLevel load_bound_level(const std::filesystem::path& dir, int pits, const Rules& rules, int k, RawCacheState& cache,
                            int threads = 0);

}  // namespace kalah::dbfile

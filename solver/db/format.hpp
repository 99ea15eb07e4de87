// solver/db/format.hpp — the on-disk level file: one file per level k, "level-KKK.kdb" in the
// database directory (KKK = k, three digits), holding the level as independently readable
// zstd blocks. docs/db-format.md describes it byte by byte.
//
// Version 1 holds the level's bytes (one a board, solver/db/level.hpp); version 2 holds the
// image of the packed level (solver/db/packed_level.hpp: weights, group offsets, lines,
// exceptions, one byte stream) and loads into memory as it is, 2-4 bits a board; version 3
// holds a level packed by sublevel pairs (solver/db/paired_level.hpp): the images of pairs
// 0 .. k/2, one after the other.
//
// Layout (little endian):
//   header, 64 bytes   magic "KALAHDB" 0x1A, format version, header size, m, rule fields,
//                      k, entry count (boards), block size (v1: entries; v2, v3: image bytes),
//                      block count, table offset, file size, CRC-32C of the block table,
//                      CRC-32C of the header's first 60 bytes
//   v2 only, 64 bytes  image bytes, width, weight count, line count, group count, exception
//                      count, zeros, CRC-32C of these 64 bytes' first 60
//   v3 only, 64 bytes  a pair, p = 0 .. k/2: the same for the pair's image, and its index p
//   a pair             (byte 9) and entry count (bytes 40..47)
//   block table        per block 24 bytes: file offset (u64), stored size (u32), CRC-32C of
//                      the block's raw bytes (u32), CRC-32C of the stored bytes (u32), 0 (u32)
//   blocks             each one zstd frame of its bytes (the last block may be shorter)
// Files are written to "level-KKK.kdb.tmp" and renamed into place once complete and synced.
//
// Pair files (version 4), "level-KKK-pair-PPP.kdb": one pair of a level being built by pairs,
// kept so that an interrupted build resumes at the pair, not at the level. The layout of
// version 2 with the 64 bytes of the pair (as in version 3) as second header; the entry count
// is the pair's. Never a level file: level readers refuse them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "engine/rules.hpp"
#include "solver/db/database.hpp"
#include "solver/db/level.hpp"
#include "solver/db/packed_level.hpp"
#include "solver/db/paired_level.hpp"

namespace kalah::dbfile {

inline constexpr char kMagic[8] = {'K', 'A', 'L', 'A', 'H', 'D', 'B', 0x1A};
inline constexpr std::uint32_t kVersion = 1;          // one byte a board
inline constexpr std::uint32_t kPackedVersion = 2;    // packed image
inline constexpr std::uint32_t kPairedVersion = 3;    // packed images of the sublevel pairs
inline constexpr std::uint32_t kPairFileVersion = 4;  // one pair's packed image (a build's checkpoint)
inline constexpr std::uint32_t kHeaderSize = 64;
inline constexpr std::uint32_t kPackedHeaderSize = 128;
inline constexpr std::uint32_t kTableEntrySize = 24;
inline constexpr std::uint32_t kDefaultBlockEntries = 1u << 20;
inline constexpr std::uint32_t kMaxBlockBytes = 1u << 26;  // a reader refuses larger blocks

struct Header {
  std::uint32_t version = kVersion;
  int pits = 0;
  Rules rules;  // sowing, capture, end, early end, pie as built
  int level = 0;
  std::uint64_t entries = 0;
  std::uint32_t block_entries = kDefaultBlockEntries;
  std::uint32_t blocks = 0;
  std::uint64_t table_offset = kHeaderSize;  // = header size
  std::uint64_t file_size = 0;
  // Versions 2..4: the bytes of the packed image (of all pairs); version 2: its shape;
  // version 3: each pair's; version 4: its pair's (one) and which pair it is.
  std::uint64_t image_bytes = 0;
  PackedLevel::Shape packed;
  std::vector<PackedLevel::Shape> pairs;
  int pair = -1;
  bool is_packed() const {
    return version == kPackedVersion || version == kPairedVersion || version == kPairFileVersion;
  }
  // Bits a board once loaded as the file holds it: 8 (version 1) or the packed image's.
  double bits_per_board() const {
    return version == kVersion || entries == 0 ? 8.0 : 8.0 * double(image_bytes) / double(entries);
  }
};

// "level-024.kdb"
std::filesystem::path level_path(const std::filesystem::path& dir, int k);
// "level-034-pair-005.kdb": pair p of level k, saved by a build that has not finished the level.
std::filesystem::path pair_path(const std::filesystem::path& dir, int k, int p);

struct WriteStats {
  std::uint64_t bytes = 0;       // file size
  std::uint32_t header_crc = 0;  // CRC-32C of header bytes 0..59 (as in the manifest)
};

// Compress `level` (k seeds, pits, rules) and write it atomically to level_path(dir, k):
// a temporary file, fsync, rename, fsync of the directory. zstd level `compression`, blocks
// compressed in parallel on `threads` threads. Throws DatabaseError on I/O failure, after
// removing the temporary file (write, fsync, close or rename failed).
WriteStats write_level(const std::filesystem::path& dir, int pits, const Rules& rules, int k, const LevelArray& level,
                       int threads = 0, int compression = 3);

// The same for a packed level: a version-2 file holding its image.
WriteStats write_packed_level(const std::filesystem::path& dir, int pits, const Rules& rules, const PackedLevel& level,
                              int threads = 0, int compression = 3);
// The same for a level packed by pairs (complete): a version-3 file holding the pairs' images.
WriteStats write_paired_level(const std::filesystem::path& dir, int pits, const Rules& rules, const PairedLevel& level,
                              int threads = 0, int compression = 3);

// The same for pair p of level k (its packed image, `pair`) in a pair file, pair_path(dir, k, p).
WriteStats write_pair_file(const std::filesystem::path& dir, int pits, const Rules& rules, int k, int p,
                           const PackedLevel& pair, int threads = 0, int compression = 3);
// Read pair p of level k from its pair file, checking everything (as read_level; the header
// must name the pits, rules, level and pair, and hold the pair's entry count).
PackedLevel read_pair_file(const std::filesystem::path& dir, int pits, const Rules& rules, int k, int p,
                           int threads = 0);

// Write `parts`, one after the other, to `file` atomically: to file + ".tmp", fsync, rename
// over `file`, fsync of the directory. On any failure (create, write, fsync, close, rename) the
// temporary file is removed and DatabaseError names the file and the problem.
void write_file_atomically(const std::filesystem::path& file, const std::vector<std::span<const unsigned char>>& parts);
// The same with `body` writing the temporary file's content through `fd` (it may seek; it
// throws DatabaseError naming `tmp` on failure).
void write_file_atomically(const std::filesystem::path& file,
                           const std::function<void(int fd, const std::filesystem::path& tmp)>& body);

// Read and check the header (and block table checksum) of a level file. Throws
// DatabaseError naming the file and the problem. *header_crc, when given, receives the
// CRC-32C of header bytes 0..59 (the header's own checksum, which a manifest records; a CRC
// of all 64 bytes would be the same constant for every header, as they end with their CRC).
// A pair file (version 4) is refused unless `pair_file` says one is expected.
Header read_header(const std::filesystem::path& file, std::uint32_t* header_crc = nullptr, bool pair_file = false);

// Throws DatabaseError naming `file` unless header `h` is level k's for `pits` and rules with
// the same values as `rules` (Rules::same_values_as), with level k's entry count.
void check_level_header(const std::filesystem::path& file, const Header& h, int pits, const Rules& rules, int k);

// Read level k for `pits` and rules with the same values as `rules` (Rules::same_values_as),
// checking everything: header, sizes, block table, every block's checksums and length.
// Throws DatabaseError naming the file and the problem. *header and *header_crc, when given,
// receive the header read and the CRC-32C of its bytes 0..59 (as read_header gives them), from
// the same bytes as the entries.
// A version-2 or -3 file is unpacked (one byte a board).
LevelArray read_level(const std::filesystem::path& dir, int pits, const Rules& rules, int k, int threads = 0,
                      Header* header = nullptr, std::uint32_t* header_crc = nullptr);

// The same as a packed level: a version-2 file as it is (its image checked for consistency), a
// version-1 or -3 file packed (PackedLevel::pack, width 0).
PackedLevel read_packed_level(const std::filesystem::path& dir, int pits, const Rules& rules, int k, int threads = 0,
                              Header* header = nullptr, std::uint32_t* header_crc = nullptr);
// The same as a level packed by pairs: a version-3 file as it is (every pair's image checked
// for consistency), a version-1 or -2 file packed by pairs (PairedLevel::pack, width 0).
PairedLevel read_paired_level(const std::filesystem::path& dir, int pits, const Rules& rules, int k, int threads = 0,
                              Header* header = nullptr, std::uint32_t* header_crc = nullptr);

}  // namespace kalah::dbfile

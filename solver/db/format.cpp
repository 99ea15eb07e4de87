#include "solver/db/format.hpp"

#include <fcntl.h>
#include <omp.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <atomic>
#include <cassert>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <span>
#include <system_error>
#include <vector>

#include "solver/base/board_index.hpp"
#include "solver/base/sublevel_index.hpp"
#include "solver/db/crc32c.hpp"
#include "solver/db/file_fields.hpp"
#include "solver/db/level_view.hpp"

namespace kalah::dbfile {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const fs::path& file, const std::string& problem) {
  throw DatabaseError(file.string() + ": " + problem);
}

// A pair file where a level file was expected (renamed or copied by hand).
[[noreturn]] void fail_pair_file(const fs::path& file) {
  fail(file, "a pair file (one pair of a level a build had not finished), not a level file");
}

// Pits, rules and level of a header against what the reader expects.
void check_game_fields(const fs::path& file, const Header& h, int pits, const Rules& rules, int k) {
  if (h.pits != pits) fail(file, "built for " + std::to_string(h.pits) + " pits a side, not " + std::to_string(pits));
  if (!h.rules.same_values_as(rules))
    fail(file,
         "built under rules '" + h.rules.describe() + "', which give different values from '" + rules.describe() + "'");
  if (h.level != k) fail(file, "holds level " + std::to_string(h.level) + ", expected " + std::to_string(k));
}

// Bytes of the header of a file of `version` holding level k: 64, 128 (version 2 and pair
// files), or 64 and 64 a pair (version 3).
std::uint32_t header_size_of(std::uint32_t version, int k) {
  if (version == kPackedVersion || version == kPairFileVersion) return kPackedHeaderSize;
  if (version == kPairedVersion && 0 <= k && k <= 127) return kHeaderSize + 64 * SublevelIndexer::pairs(k);
  return kHeaderSize;
}
std::uint32_t header_size_of(const Header& h) { return header_size_of(h.version, h.level); }
// The same from a file's first 64 bytes.
std::uint32_t header_size_of(const unsigned char* data) {
  return header_size_of(get_le<std::uint32_t>(data + 8), get_le<std::uint16_t>(data + 22));
}

// A packed image's 64-byte description (version 2's second header, version 3's per pair; a
// pair's also names the pair and its boards, so that pair headers cannot trade places).
void put_shape(unsigned char* x, std::uint64_t image_bytes, const PackedLevel::Shape& shape, int pair = 0,
               std::uint64_t pair_entries = 0) {
  put_le<std::uint64_t>(x, image_bytes);
  x[8] = static_cast<unsigned char>(shape.width);
  x[9] = static_cast<unsigned char>(pair);
  put_le<std::uint64_t>(x + 40, pair_entries);
  put_le<std::uint32_t>(x + 12, static_cast<std::uint32_t>(shape.weights));
  put_le<std::uint64_t>(x + 16, shape.lines);
  put_le<std::uint64_t>(x + 24, shape.groups);
  put_le<std::uint64_t>(x + 32, shape.exceptions);
  put_le<std::uint32_t>(x + 60, crc32c(x, 60));
}
// Its bytes (the image's size) and shape; fail() when its checksum or sizes are wrong.
PackedLevel::Shape get_shape(const fs::path& file, const unsigned char* x, const std::string& what,
                             std::uint64_t* image_bytes) {
  if (get_le<std::uint32_t>(x + 60) != crc32c(x, 60)) fail(file, what + " checksum mismatch (corrupt header)");
  PackedLevel::Shape shape;
  *image_bytes = get_le<std::uint64_t>(x);
  shape.width = x[8];
  shape.weights = get_le<std::uint32_t>(x + 12);
  shape.lines = get_le<std::uint64_t>(x + 16);
  shape.groups = get_le<std::uint64_t>(x + 24);
  shape.exceptions = get_le<std::uint64_t>(x + 32);
  // Each count is far below 2^56 in a sound header; the bound keeps this sum from wrapping
  // (parse() then checks the shape against the level or pair, which bounds every count).
  constexpr std::uint64_t kBound = std::uint64_t(1) << 56;
  if (shape.weights >= kBound || shape.lines >= kBound / PackedLevel::kLineBytes || shape.groups >= kBound ||
      shape.exceptions >= kBound || *image_bytes != shape.image_bytes())
    fail(file, "inconsistent " + what + " (image size and shape disagree)");
  return shape;
}

std::vector<unsigned char> encode_header(const Header& h, std::uint32_t table_crc) {
  std::vector<unsigned char> b(header_size_of(h), 0);
  std::memcpy(b.data(), kMagic, 8);
  put_le<std::uint32_t>(b.data() + 8, h.version);
  put_le<std::uint32_t>(b.data() + 12, header_size_of(h));
  put_level_fields(b.data(), h);
  put_le<std::uint32_t>(b.data() + 32, h.block_entries);
  put_le<std::uint32_t>(b.data() + 36, h.blocks);
  put_le<std::uint64_t>(b.data() + 40, h.table_offset);
  put_le<std::uint64_t>(b.data() + 48, h.file_size);
  put_le<std::uint32_t>(b.data() + 56, table_crc);
  put_le<std::uint32_t>(b.data() + 60, crc32c(b.data(), 60));
  if (h.version == kPackedVersion) put_shape(b.data() + kHeaderSize, h.image_bytes, h.packed);
  if (h.version == kPairFileVersion)
    put_shape(b.data() + kHeaderSize, h.image_bytes, h.pairs.at(0), h.pair,
              SublevelIndexer::shared(h.pits)->pair_size(h.level, h.pair));
  if (h.version == kPairedVersion) {
    const std::shared_ptr<const SublevelIndexer> order = SublevelIndexer::shared(h.pits);
    for (std::size_t p = 0; p < h.pairs.size(); ++p) {
      const PackedLevel::Shape& s = h.pairs[p];
      put_shape(b.data() + kHeaderSize + 64 * p, s.image_bytes(), s, static_cast<int>(p),
                order->pair_size(h.level, static_cast<int>(p)));
    }
  }
  return b;
}

// The bytes a file's blocks hold, one after the other: `entries` (version 1) or the image.
std::uint64_t stream_bytes(const Header& h) { return h.is_packed() ? h.image_bytes : h.entries; }

// A file's header and block table (as much of them as the file holds, zero-filled to the
// header's size): its first 64 bytes tell the header's size and the block count.
// read(to, n, at) reads n bytes at offset `at` or returns false.
template <class Read>
std::vector<unsigned char> read_head(const fs::path& file, std::uint64_t size, Read&& read) {
  std::vector<unsigned char> head(kHeaderSize, 0);
  const std::uint64_t first = std::min<std::uint64_t>(size, kHeaderSize);
  if (!read(head.data(), first, 0)) fail(file, "read failed");
  if (size < kHeaderSize) return head;
  const std::uint64_t header_size = header_size_of(head.data());
  const std::uint64_t table_end =
      header_size + std::uint64_t(get_le<std::uint32_t>(head.data() + 36)) * kTableEntrySize;
  const std::uint64_t want = table_end <= size ? table_end : std::min(size, header_size);
  head.resize(static_cast<std::size_t>(std::max(want, header_size)), 0);
  if (want > kHeaderSize && !read(head.data() + kHeaderSize, want - kHeaderSize, kHeaderSize))
    fail(file, "read failed");
  return head;
}

// An uninitialised byte buffer (a block's worth: zeroing it would cost more than using it).
class Buffer {
 public:
  Buffer() = default;
  explicit Buffer(std::size_t size) : data_(new unsigned char[size == 0 ? 1 : size]), size_(size) {}
  unsigned char* data() { return data_.get(); }
  std::size_t size() const { return size_; }

 private:
  std::unique_ptr<unsigned char[]> data_;
  std::size_t size_ = 0;
};

// A byte stream made of consecutive memory ranges (a level's bytes, or a packed image's four
// arrays); blocks are cut from it without regard to the ranges.
template <class Byte>
struct Segments {
  std::vector<std::span<Byte>> parts;
  std::uint64_t size() const {
    std::uint64_t n = 0;
    for (const auto& p : parts) n += p.size();
    return n;
  }
  // The memory of stream bytes [at, at + n) when one range holds them all, else null.
  Byte* contiguous(std::uint64_t at, std::uint64_t n) const {
    for (const auto& p : parts) {
      if (at < p.size()) return at + n <= p.size() ? p.data() + at : nullptr;
      at -= p.size();
    }
    return nullptr;
  }
  // Copy stream bytes [at, at + n) to `out` (gather) or from `in` (scatter).
  template <class F>
  void each(std::uint64_t at, std::uint64_t n, F&& f) const {
    std::uint64_t done = 0;
    for (const auto& p : parts) {
      if (n == done) break;
      if (at >= p.size()) {
        at -= p.size();
        continue;
      }
      const std::uint64_t take = std::min<std::uint64_t>(p.size() - at, n - done);
      f(p.data() + at, done, take);
      done += take;
      at = 0;
    }
  }
};

void write_all(int fd, const void* data, std::size_t size, const fs::path& file) {
  if (!write_fully(fd, data, size)) fail(file, std::string("write failed: ") + std::generic_category().message(errno));
}

// A write of `tmp` failed: remove the partial file, then throw `message` (which names the file).
[[noreturn]] void remove_and_throw(const fs::path& tmp, const std::string& message) {
  std::error_code ec;
  fs::remove(tmp, ec);
  throw DatabaseError(message + " (the partial file was removed)");
}

struct BlockEntry {
  std::uint64_t offset = 0;
  std::uint32_t stored = 0;
  std::uint32_t raw_crc = 0;
  std::uint32_t stored_crc = 0;
};

// Header fields and block table of a file already in memory; checks everything but blocks.
// `data` holds the file's first bytes, at least up to the end of the block table when the
// file is that long; `size` is the file's real size.
Header parse(const fs::path& file, const unsigned char* data, std::uint64_t size, std::vector<BlockEntry>* table) {
  if (size < kHeaderSize) fail(file, "truncated: " + std::to_string(size) + " bytes, shorter than the 64-byte header");
  if (std::memcmp(data, kMagic, 8) != 0) fail(file, "not a Kalah database level file (bad magic)");
  Header h;
  h.version = get_le<std::uint32_t>(data + 8);
  if (h.version != kVersion && h.version != kPackedVersion && h.version != kPairedVersion &&
      h.version != kPairFileVersion)
    fail(file, "format version " + std::to_string(h.version) + ", this program reads versions " +
                   std::to_string(kVersion) + ", " + std::to_string(kPackedVersion) + ", " +
                   std::to_string(kPairedVersion) + " and " + std::to_string(kPairFileVersion) + " (pair files)");
  if (get_le<std::uint32_t>(data + 60) != crc32c(data, 60)) fail(file, "header checksum mismatch (corrupt header)");
  const int level = get_le<std::uint16_t>(data + 22);
  if ((h.version == kPairedVersion || h.version == kPairFileVersion) && level > 127)
    fail(file, "invalid header field (level)");
  const std::uint32_t header_size = header_size_of(h.version, level);
  if (get_le<std::uint32_t>(data + 12) != header_size) fail(file, "wrong header size");
  if (size < header_size)
    fail(file, "truncated: " + std::to_string(size) + " bytes, shorter than the " + std::to_string(header_size) +
                   "-byte header");
  if (h.version == kPackedVersion) h.packed = get_shape(file, data + kHeaderSize, "packed header", &h.image_bytes);
  if (h.version == kPairedVersion) {
    for (int p = 0; p < SublevelIndexer::pairs(level); ++p) {
      std::uint64_t bytes = 0;
      const unsigned char* x = data + kHeaderSize + 64 * p;
      const std::string what = "header of pair " + std::to_string(p);
      h.pairs.push_back(get_shape(file, x, what, &bytes));
      if (x[9] != p) fail(file, "inconsistent " + what + " (it describes pair " + std::to_string(x[9]) + ")");
      h.image_bytes += bytes;
    }
  }
  if (h.version == kPairFileVersion) {
    const unsigned char* x = data + kHeaderSize;
    h.pairs.push_back(get_shape(file, x, "pair header", &h.image_bytes));
    h.pair = x[9];
    if (h.pair >= SublevelIndexer::pairs(level)) fail(file, "invalid header field (pair)");
  }
  h.pits = data[16];
  if (h.pits < 1 || h.pits > kMaxPits || data[17] > 1 || data[18] > 1 || data[19] > 1 || data[20] > 1 || data[21] > 1)
    fail(file, "invalid header field (pits or rules)");
  h.rules.sowing = static_cast<Sowing>(data[17]);
  h.rules.capture = static_cast<Capture>(data[18]);
  h.rules.end = static_cast<EndRule>(data[19]);
  h.rules.early_end = data[20] != 0;
  h.rules.pie = data[21] != 0;
  h.level = get_le<std::uint16_t>(data + 22);
  if (h.is_packed()) {
    // Every count of a packed shape follows from m, k and the width: checked here, before any
    // size computed from them is used.
    if (h.level > 127) fail(file, "invalid header field (level)");
    try {
      if (h.version == kPackedVersion)
        PackedLevel::check_shape(BoardRange::level(BoardIndexer(h.pits, h.level), h.level), h.packed);
      const std::shared_ptr<const SublevelIndexer> order = SublevelIndexer::shared(h.pits);
      for (std::size_t i = 0; i < h.pairs.size(); ++i) {
        // A pair file holds one pair, h.pair; a level file its pairs in order.
        const int p = h.version == kPairFileVersion ? h.pair : static_cast<int>(i);
        const BoardRange range = BoardRange::pair(*order, h.level, p);
        if (get_le<std::uint64_t>(data + kHeaderSize + 64 * i + 40) != range.size())
          throw std::invalid_argument("pair " + std::to_string(p) + "'s entry count is not the pair's");
        PackedLevel::check_shape(range, h.pairs[i]);
      }
    } catch (const std::invalid_argument& e) {
      fail(file, std::string("inconsistent packed header: ") + e.what());
    }
  }
  h.entries = get_le<std::uint64_t>(data + 24);
  h.block_entries = get_le<std::uint32_t>(data + 32);
  h.blocks = get_le<std::uint32_t>(data + 36);
  h.table_offset = get_le<std::uint64_t>(data + 40);
  h.file_size = get_le<std::uint64_t>(data + 48);
  if (h.block_entries == 0 || h.block_entries > kMaxBlockBytes || h.table_offset != header_size ||
      h.blocks != (stream_bytes(h) + h.block_entries - 1) / h.block_entries)
    fail(file, "inconsistent header (entry count, block size and block count disagree)");
  if (size != h.file_size)
    fail(file, (size < h.file_size ? "truncated: " : "trailing data: ") + std::to_string(size) +
                   " bytes, the header says " + std::to_string(h.file_size));
  const std::uint64_t table_end = h.table_offset + std::uint64_t(h.blocks) * kTableEntrySize;
  if (table_end > size) fail(file, "truncated block table");
  if (get_le<std::uint32_t>(data + 56) != crc32c(data + h.table_offset, table_end - h.table_offset))
    fail(file, "block table checksum mismatch (corrupt block table)");
  if (table) {
    table->resize(h.blocks);
    std::uint64_t expect = table_end;
    for (std::uint32_t i = 0; i < h.blocks; ++i) {
      const unsigned char* e = data + h.table_offset + std::uint64_t(i) * kTableEntrySize;
      BlockEntry& b = (*table)[i];
      b.offset = get_le<std::uint64_t>(e);
      b.stored = get_le<std::uint32_t>(e + 8);
      b.raw_crc = get_le<std::uint32_t>(e + 12);
      b.stored_crc = get_le<std::uint32_t>(e + 16);
      if (b.offset != expect || b.offset + b.stored > size)
        fail(file, "block " + std::to_string(i) + " lies outside the file (corrupt block table)");
      expect += b.stored;
    }
    if (expect != size) fail(file, "blocks do not fill the file (corrupt block table)");
  }
  return h;
}

// Open a level file for reading and tell its size; fail() naming the file otherwise.
std::ifstream open_for_reading(const fs::path& file, std::uint64_t& size) {
  std::error_code ec;
  if (!fs::exists(file, ec)) fail(file, "missing");
  if (!fs::is_regular_file(file, ec)) fail(file, "not a regular file");
  std::ifstream in(file, std::ios::binary);
  if (!in) fail(file, "cannot be opened");
  in.seekg(0, std::ios::end);
  size = static_cast<std::uint64_t>(in.tellg());
  in.seekg(0);
  return in;
}

}  // namespace

fs::path level_path(const fs::path& dir, int k) {
  char name[32];
  std::snprintf(name, sizeof name, "level-%03d.kdb", k);
  return dir / name;
}

fs::path pair_path(const fs::path& dir, int k, int p) {
  char name[40];
  std::snprintf(name, sizeof name, "level-%03d-pair-%03d.kdb", k, p);
  return dir / name;
}

namespace {

// Write header `h` (every field but the block layout and file size set) and the stream
// `data`, cut into blocks of h.block_entries bytes and compressed on `threads` threads, to
// level_path(dir, h.level) atomically. Blocks are compressed and written a batch at a time
// (a few per thread), the header and block table last, in front: memory holds one batch of
// compressed blocks, not the level's whole compressed copy.
WriteStats write_stream(const fs::path& dir, Header h, const Segments<const unsigned char>& data, int threads,
                        int compression, const fs::path& to = {}) {
  const std::uint64_t total = stream_bytes(h);
  assert(total == data.size());
  h.blocks = static_cast<std::uint32_t>((total + h.block_entries - 1) / h.block_entries);
  if (threads <= 0) threads = omp_get_max_threads();
  const fs::path file = to.empty() ? level_path(dir, h.level) : to;
  h.table_offset = header_size_of(h);
  std::vector<unsigned char> tab(std::size_t(h.blocks) * kTableEntrySize, 0);
  std::vector<unsigned char> head;
  write_file_atomically(file, [&](int fd, const fs::path& tmp) {
    std::uint64_t offset = h.table_offset + tab.size();
    if (::lseek(fd, static_cast<off_t>(offset), SEEK_SET) < 0)
      fail(tmp, std::string("seek failed: ") + std::generic_category().message(errno));
    const std::uint32_t batch = static_cast<std::uint32_t>(4 * threads);
    // Every buffer is sized here: nothing allocates inside the parallel regions (an exception
    // must not leave one).
    const std::size_t largest = static_cast<std::size_t>(std::min<std::uint64_t>(h.block_entries, total));
    std::vector<Buffer> stored(std::min<std::uint32_t>(batch, h.blocks));
    for (Buffer& b : stored) b = Buffer(ZSTD_compressBound(largest));
    std::vector<Buffer> gather_buffers(threads);
    for (Buffer& b : gather_buffers) b = Buffer(largest);
    std::vector<std::size_t> stored_size(batch);
    std::vector<BlockEntry> entries(batch);
    for (std::uint32_t first_block = 0; first_block < h.blocks; first_block += batch) {
      const std::uint32_t n_blocks = std::min(batch, h.blocks - first_block);
      std::atomic<bool> failed{false};
#pragma omp parallel num_threads(threads)
      {
        Buffer& gathered = gather_buffers[omp_get_thread_num()];
#pragma omp for schedule(dynamic, 1)
        for (std::int64_t j = 0; j < static_cast<std::int64_t>(n_blocks); ++j) {
          const std::uint64_t first = static_cast<std::uint64_t>(first_block + j) * h.block_entries;
          const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(h.block_entries, total - first));
          const unsigned char* raw = data.contiguous(first, n);
          if (!raw) {
            data.each(first, n, [&](const unsigned char* p, std::uint64_t at, std::uint64_t len) {
              std::memcpy(gathered.data() + at, p, len);
            });
            raw = gathered.data();
          }
          Buffer& out = stored[j];
          const std::size_t got = ZSTD_compress(out.data(), out.size(), raw, n, compression);
          if (ZSTD_isError(got)) {
            failed = true;
            continue;
          }
          stored_size[j] = got;
          entries[j].stored = static_cast<std::uint32_t>(got);
          entries[j].raw_crc = crc32c(raw, n);
          entries[j].stored_crc = crc32c(out.data(), got);
        }
      }
      if (failed) fail(file, "zstd compression failed");
      for (std::uint32_t j = 0; j < n_blocks; ++j) {
        write_all(fd, stored[j].data(), stored_size[j], tmp);
        const std::size_t at = std::size_t(first_block + j) * kTableEntrySize;
        put_le<std::uint64_t>(tab.data() + at, offset);
        put_le<std::uint32_t>(tab.data() + at + 8, entries[j].stored);
        put_le<std::uint32_t>(tab.data() + at + 12, entries[j].raw_crc);
        put_le<std::uint32_t>(tab.data() + at + 16, entries[j].stored_crc);
        offset += stored_size[j];
      }
    }
    h.file_size = offset;
    head = encode_header(h, crc32c(tab.data(), tab.size()));
    if (::lseek(fd, 0, SEEK_SET) < 0) fail(tmp, std::string("seek failed: ") + std::generic_category().message(errno));
    write_all(fd, head.data(), head.size(), tmp);
    write_all(fd, tab.data(), tab.size(), tmp);
  });
  return WriteStats{h.file_size, crc32c(head.data(), 60)};
}

}  // namespace

namespace {

// The fields of a header every writer sets the same way.
Header level_header(std::uint32_t version, int pits, const Rules& rules, int k, std::uint64_t entries) {
  Header h;
  h.version = version;
  h.pits = pits;
  h.rules = rules;
  h.level = k;
  h.entries = entries;
  return h;
}

}  // namespace

WriteStats write_level(const fs::path& dir, int pits, const Rules& rules, int k, const LevelArray& level, int threads,
                       int compression) {
  const Header h = level_header(kVersion, pits, rules, k, level.size());
  Segments<const unsigned char> data;
  data.parts.emplace_back(reinterpret_cast<const unsigned char*>(level.data()), level.size());
  return write_stream(dir, h, data, threads, compression);
}

WriteStats write_packed_level(const fs::path& dir, int pits, const Rules& rules, const PackedLevel& level, int threads,
                              int compression) {
  Header h = level_header(kPackedVersion, pits, rules, level.level(), level.size());
  h.packed = level.shape();
  Segments<const unsigned char> data;
  data.parts = level.image();
  h.image_bytes = data.size();
  return write_stream(dir, h, data, threads, compression);
}

WriteStats write_paired_level(const fs::path& dir, int pits, const Rules& rules, const PairedLevel& level, int threads,
                              int compression) {
  if (!level.complete())
    throw std::logic_error("write_paired_level: level " + std::to_string(level.level()) + " is incomplete");
  Header h = level_header(kPairedVersion, pits, rules, level.level(), level.size());
  Segments<const unsigned char> data;
  for (int p = 0; p < level.pairs(); ++p) {
    h.pairs.push_back(level.pair(p).shape());
    for (const auto& part : level.pair(p).image()) data.parts.push_back(part);
  }
  h.image_bytes = data.size();
  return write_stream(dir, h, data, threads, compression);
}

WriteStats write_pair_file(const fs::path& dir, int pits, const Rules& rules, int k, int p, const PackedLevel& pair,
                           int threads, int compression) {
  const std::shared_ptr<const SublevelIndexer> order = SublevelIndexer::shared(pits);
  if (k < 0 || k > 127 || p < 0 || p >= SublevelIndexer::pairs(k) || pair.size() != order->pair_size(k, p))
    throw std::logic_error("write_pair_file: pair " + std::to_string(p) + " of level " + std::to_string(k) +
                           " out of range or of the wrong size");
  Header h = level_header(kPairFileVersion, pits, rules, k, pair.size());
  h.pair = p;
  h.pairs.push_back(pair.shape());
  Segments<const unsigned char> data;
  data.parts = pair.image();
  h.image_bytes = data.size();
  return write_stream(dir, h, data, threads, compression, pair_path(dir, k, p));
}

void write_file_atomically(const fs::path& file, const std::vector<std::span<const unsigned char>>& parts) {
  write_file_atomically(file, [&](int fd, const fs::path& tmp) {
    for (const auto& part : parts) write_all(fd, part.data(), part.size(), tmp);
  });
}

void write_file_atomically(const fs::path& file, const std::function<void(int fd, const fs::path& tmp)>& body) {
  fs::path tmp = file;
  tmp += ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail(tmp, std::string("cannot be created: ") + std::generic_category().message(errno));
  // Every failure from here on removes the temporary file: a full disk must not keep a
  // partial file (a retry would find even less space).
  try {
    body(fd, tmp);
  } catch (const DatabaseError& e) {
    ::close(fd);
    remove_and_throw(tmp, e.what());
  } catch (...) {  // std::bad_alloc, ...
    ::close(fd);
    std::error_code ec;
    fs::remove(tmp, ec);
    throw;
  }
  if (::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    remove_and_throw(tmp, tmp.string() + ": fsync failed: " + std::generic_category().message(err));
  }
  if (::close(fd) != 0)
    remove_and_throw(tmp, tmp.string() + ": close failed: " + std::generic_category().message(errno));
  std::error_code ec;
  fs::rename(tmp, file, ec);
  if (ec) remove_and_throw(tmp, file.string() + ": rename from the temporary file failed: " + ec.message());
  fs::path dir = file.parent_path();
  if (dir.empty()) dir = ".";
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

Header read_header(const fs::path& file, std::uint32_t* header_crc, bool pair_file) {
  std::uint64_t size = 0;
  std::ifstream in = open_for_reading(file, size);
  // The block table too (when the file has it), so that its checksum is checked.
  const std::vector<unsigned char> data =
      read_head(file, size, [&](unsigned char* to, std::uint64_t n, std::uint64_t at) {
        in.seekg(static_cast<std::streamoff>(at));
        return static_cast<bool>(in.read(reinterpret_cast<char*>(to), static_cast<std::streamsize>(n)));
      });
  const Header h = parse(file, data.data(), size, nullptr);
  if (h.version == kPairFileVersion && !pair_file) fail_pair_file(file);
  if (header_crc) *header_crc = crc32c(data.data(), 60);
  return h;
}

void check_level_header(const fs::path& file, const Header& h, int pits, const Rules& rules, int k) {
  if (h.version == kPairFileVersion) fail_pair_file(file);
  check_game_fields(file, h, pits, rules, k);
  const BoardIndexer ix(pits, k);
  if (h.entries != ix.count(k))
    fail(file, "holds " + std::to_string(h.entries) + " entries, level " + std::to_string(k) + " has " +
                   std::to_string(ix.count(k)));
}

namespace {

// As check_level_header for the pair file of pair p of level k.
void check_pair_header(const fs::path& file, const Header& h, int pits, const Rules& rules, int k, int p) {
  if (h.version != kPairFileVersion) fail(file, "not a pair file (format version " + std::to_string(h.version) + ")");
  check_game_fields(file, h, pits, rules, k);
  if (h.pair != p) fail(file, "holds pair " + std::to_string(h.pair) + ", expected " + std::to_string(p));
  const std::uint64_t size = SublevelIndexer::shared(pits)->pair_size(k, p);
  if (h.entries != size)
    fail(file, "holds " + std::to_string(h.entries) + " entries, pair " + std::to_string(p) + " of level " +
                   std::to_string(k) + " has " + std::to_string(size));
}

// Read and check the file of level k (header, sizes, block table, every block's checksums and
// length) and hand its stream to `fill`, called once with the parsed header, which returns the
// ranges to decompress into.
// pair >= 0: the file is that pair's pair file instead.
template <class Fill>
void read_stream(const fs::path& file, int pits, const Rules& rules, int k, int threads, Fill&& fill, Header* header,
                 std::uint32_t* header_crc, int pair = -1) {
  // The header and block table first, then each block read on its own (pread): memory holds
  // a block a thread, not the whole compressed file.
  std::uint64_t size = 0;
  { open_for_reading(file, size); }  // missing, not a regular file, unreadable: named
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(file, "cannot be opened: " + std::generic_category().message(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  auto read_at = [&](unsigned char* to, std::uint64_t n, std::uint64_t at) {
    while (n > 0) {
      const ssize_t got = ::pread(fd, to, n, static_cast<off_t>(at));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) return false;
      to += got;
      n -= static_cast<std::uint64_t>(got);
      at += static_cast<std::uint64_t>(got);
    }
    return true;
  };
  const std::vector<unsigned char> head = read_head(file, size, read_at);
  std::vector<BlockEntry> table;
  const Header h = parse(file, head.data(), size, &table);
  if (pair < 0)
    check_level_header(file, h, pits, rules, k);
  else
    check_pair_header(file, h, pits, rules, k, pair);
  const Segments<unsigned char> out = fill(h);
  const std::uint64_t total = stream_bytes(h);
  if (out.size() != total) fail(file, "holds a level of another format than expected (replaced while being read?)");
  std::atomic<std::int64_t> bad{-1};
  std::atomic<int> kind{0};
  if (threads <= 0) threads = omp_get_max_threads();
  // Per-thread buffers sized here: nothing allocates inside the parallel region.
  std::uint32_t largest = 0;
  for (const BlockEntry& b : table) largest = std::max(largest, b.stored);
  std::vector<Buffer> buffers(threads), stored_buffers(threads);
  for (Buffer& b : buffers) b = Buffer(static_cast<std::size_t>(std::min<std::uint64_t>(h.block_entries, total)));
  for (Buffer& b : stored_buffers) b = Buffer(largest);
#pragma omp parallel num_threads(threads)
  {
    Buffer& buffer = buffers[omp_get_thread_num()];
    Buffer& stored = stored_buffers[omp_get_thread_num()];
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(h.blocks); ++i) {
      const BlockEntry& b = table[i];
      const std::uint64_t first = static_cast<std::uint64_t>(i) * h.block_entries;
      const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(h.block_entries, total - first));
      unsigned char* dst = out.contiguous(first, n);
      if (!dst) dst = buffer.data();
      int problem = 0;
      if (!read_at(stored.data(), b.stored, b.offset)) {
        problem = 4;
      } else if (crc32c(stored.data(), b.stored) != b.stored_crc) {
        problem = 1;
      } else {
        const std::size_t got = ZSTD_decompress(dst, n, stored.data(), b.stored);
        if (ZSTD_isError(got) || got != n)
          problem = 2;
        else if (crc32c(dst, n) != b.raw_crc)
          problem = 3;
      }
      if (!problem && dst == buffer.data())
        out.each(first, n, [&](unsigned char* p, std::uint64_t at, std::uint64_t len) {
          std::memcpy(p, buffer.data() + at, len);
        });
      if (problem) {
        std::int64_t expected = -1;
        if (bad.compare_exchange_strong(expected, i)) kind = problem;
      }
    }
  }
  if (bad >= 0) {
    const char* what[] = {"", "stored-bytes checksum mismatch", "does not decompress to its length",
                          "entries checksum mismatch", "cannot be read"};
    fail(file, "block " + std::to_string(bad.load()) + " is corrupt (" + what[kind.load()] + ")");
  }
  if (header) *header = h;
  if (header_crc) *header_crc = crc32c(head.data(), 60);
}

// A version-2 file's level, its image checked for consistency.
PackedLevel read_image(const fs::path& file, int pits, const Rules& rules, int k, int threads, Header* header,
                       std::uint32_t* header_crc) {
  const BoardIndexer ix(pits, k);
  PackedLevel level;
  read_stream(
      file, pits, rules, k, threads,
      [&](const Header& h) {
        if (h.version != kPackedVersion) fail(file, "replaced by a file of another format while being read");
        try {
          level = PackedLevel::with_shape(ix, k, h.packed);
        } catch (const std::invalid_argument& e) {
          fail(file, std::string("inconsistent packed header: ") + e.what());
        }
        Segments<unsigned char> out;
        out.parts = level.image_for_filling();
        return out;
      },
      header, header_crc);
  try {
    level.check_image(threads);
  } catch (const std::invalid_argument& e) {
    fail(file, std::string("corrupt packed image: ") + e.what());
  }
  return level;
}

// A version-3 file's level, every pair's image checked for consistency.
PairedLevel read_pairs(const fs::path& file, int pits, const Rules& rules, int k, int threads, Header* header,
                       std::uint32_t* header_crc) {
  PairedLevel level(pits, k);
  std::vector<PackedLevel> pairs;
  read_stream(
      file, pits, rules, k, threads,
      [&](const Header& h) {
        if (h.version != kPairedVersion) fail(file, "replaced by a file of another format while being read");
        Segments<unsigned char> out;
        for (int p = 0; p < static_cast<int>(h.pairs.size()); ++p) {
          try {
            pairs.push_back(PackedLevel::with_shape(level.range(p), h.pairs[p]));
          } catch (const std::invalid_argument& e) {
            fail(file, "inconsistent header of pair " + std::to_string(p) + ": " + e.what());
          }
          for (const auto& part : pairs.back().image_for_filling()) out.parts.push_back(part);
        }
        return out;
      },
      header, header_crc);
  for (int p = 0; p < static_cast<int>(pairs.size()); ++p) {
    try {
      pairs[p].check_image(threads);
    } catch (const std::invalid_argument& e) {
      fail(file, "corrupt packed image of pair " + std::to_string(p) + ": " + e.what());
    }
    level.add_pair(std::move(pairs[p]));
  }
  return level;
}

}  // namespace

LevelArray read_level(const fs::path& dir, int pits, const Rules& rules, int k, int threads, Header* header,
                      std::uint32_t* header_crc) {
  const fs::path file = level_path(dir, k);
  const std::uint32_t version = read_header(file).version;
  if (version == kPackedVersion)
    return read_image(file, pits, rules, k, threads, header, header_crc).unpack(BoardIndexer(pits, k), threads);
  if (version == kPairedVersion)
    return read_pairs(file, pits, rules, k, threads, header, header_crc).unpack(BoardIndexer(pits, k), threads);
  LevelArray level;
  read_stream(
      file, pits, rules, k, threads,
      [&](const Header& h) {
        if (h.version != kVersion) fail(file, "replaced by a file of another format while being read");
        level = LevelArray(h.entries);
        Segments<unsigned char> out;
        out.parts.emplace_back(reinterpret_cast<unsigned char*>(level.data()), level.size());
        return out;
      },
      header, header_crc);
  return level;
}

PackedLevel read_packed_level(const fs::path& dir, int pits, const Rules& rules, int k, int threads, Header* header,
                              std::uint32_t* header_crc) {
  const fs::path file = level_path(dir, k);
  if (read_header(file).version == kPackedVersion) return read_image(file, pits, rules, k, threads, header, header_crc);
  LevelArray bytes = read_level(dir, pits, rules, k, threads, header, header_crc);
  return PackedLevel::pack(BoardIndexer(pits, k), k, std::move(bytes), 0, threads);  // in place
}

PairedLevel read_paired_level(const fs::path& dir, int pits, const Rules& rules, int k, int threads, Header* header,
                              std::uint32_t* header_crc) {
  const fs::path file = level_path(dir, k);
  const std::uint32_t version = read_header(file).version;
  if (version == kPairedVersion) return read_pairs(file, pits, rules, k, threads, header, header_crc);
  const BoardIndexer ix(pits, k);
  if (version == kPackedVersion) {
    // Repacked from the packed level a pair at a time: never the level at a byte a board.
    const PackedLevel packed = read_image(file, pits, rules, k, threads, header, header_crc);
    return PairedLevel::pack(ix, k, LevelView(packed), 0, threads);
  }
  const LevelArray bytes = read_level(dir, pits, rules, k, threads, header, header_crc);
  return PairedLevel::pack(ix, k, bytes, 0, threads);
}

PackedLevel read_pair_file(const fs::path& dir, int pits, const Rules& rules, int k, int p, int threads) {
  const fs::path file = pair_path(dir, k, p);
  const BoardRange range = BoardRange::pair(*SublevelIndexer::shared(pits), k, p);
  PackedLevel pair;
  read_stream(
      file, pits, rules, k, threads,
      [&](const Header& h) {  // a pair file's (check_pair_header has passed)
        try {
          pair = PackedLevel::with_shape(range, h.pairs.at(0));
        } catch (const std::invalid_argument& e) {
          fail(file, std::string("inconsistent pair header: ") + e.what());
        }
        Segments<unsigned char> out;
        out.parts = pair.image_for_filling();
        return out;
      },
      nullptr, nullptr, p);
  try {
    pair.check_image(threads);
  } catch (const std::invalid_argument& e) {
    fail(file, std::string("corrupt packed image: ") + e.what());
  }
  return pair;
}

}  // namespace kalah::dbfile

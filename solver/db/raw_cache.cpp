#include "solver/db/raw_cache.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <span>
#include <system_error>
#include <utility>
#include <vector>

#include "engine/text.hpp"
#include "solver/db/crc32c.hpp"
#include "solver/db/file_fields.hpp"

namespace kalah::dbfile {

namespace fs = std::filesystem;

namespace {

// Header layout (docs/db-format.md, "Raw cache files").
constexpr std::size_t kOffVersion = 8, kOffHeaderSize = 12, kOffSourceCrc = 32, kOffEntriesCrc = 36, kOffFileSize = 40,
                      kOffHeaderCrc = kRawHeaderSize - 4;

// The fields both cache headers share (bytes 0..47) for level file header `h` (header CRC
// `source_crc`), a cache of format `version` whose data after the header have CRC `data_crc`.
std::vector<unsigned char> cache_prologue(std::uint32_t version, const Header& h, std::uint32_t source_crc,
                                          std::uint32_t data_crc, std::uint64_t file_size) {
  std::vector<unsigned char> b(kRawHeaderSize, 0);
  std::memcpy(b.data(), kRawMagic, 8);
  put_le<std::uint32_t>(b.data() + kOffVersion, version);
  put_le<std::uint32_t>(b.data() + kOffHeaderSize, kRawHeaderSize);
  put_level_fields(b.data(), h);
  put_le<std::uint32_t>(b.data() + kOffSourceCrc, source_crc);
  put_le<std::uint32_t>(b.data() + kOffEntriesCrc, data_crc);
  put_le<std::uint64_t>(b.data() + kOffFileSize, file_size);
  return b;
}

// The cache header for level file header `h` (header CRC `source_crc`) and entries CRC `entries_crc`.
std::vector<unsigned char> encode(const Header& h, std::uint32_t source_crc, std::uint32_t entries_crc) {
  std::vector<unsigned char> b = cache_prologue(kRawVersion, h, source_crc, entries_crc, kRawHeaderSize + h.entries);
  put_le<std::uint32_t>(b.data() + kOffHeaderCrc, crc32c(b.data(), kOffHeaderCrc));
  return b;
}

// A file descriptor closed when the object goes away.
struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
};

// `bytes` bytes of `fd` from `offset`, mapped read-only (MAP_FAILED when not). Asked for huge
// pages before the first touch: a file read into the page cache through such a mapping is
// read in 2 MiB folios, which this and every later mapping then maps with 2 MiB pages (the
// kernel places a file mapping congruent to its offset), where 4 KiB ones cost the search a
// TLB miss at nearly every probe (docs/search.md, "The database on huge pages").
void* map_read_only(int fd, std::size_t bytes, std::uint64_t offset) {
  void* p = ::mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd, static_cast<off_t>(offset));
#ifdef MADV_HUGEPAGE
  if (p != MAP_FAILED) ::madvise(p, bytes, MADV_HUGEPAGE);  // a hint: no huge pages is fine
#endif
  return p;
}

// Remove "<file>.tmp.<pid>" files (file: a cache file of the directory) whose process no longer exists.
void remove_stale_temporaries(const fs::path& dir, const fs::path& file) {
  const std::string prefix = file.filename().string() + ".tmp.";
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string digits = name.substr(prefix.size());
    if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    const long pid = std::stol(digits);
    if (pid <= 0 || pid == ::getpid()) continue;
    if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
      std::error_code rec;
      fs::remove(it->path(), rec);
    }
  }
}

// A cache file mapped whole from offset 0 (map_read_only), unmapped when the object goes away
// unless release() handed its ranges to their owners. The header is read through the mapping,
// not with read(): pages a read() brings into the page cache are small folios, and the
// readahead after them ramps up to 2 MiB folios only over the next megabytes, which then stay
// on 4 KiB pages for every later mapping (about 11 MiB a file on Kalah(6,4), each file's
// first 2 MiB at least).
class WholeMapping {
 public:
  // `bytes` bytes of `fd` (a regular file of that size); empty when it cannot be mapped.
  WholeMapping(int fd, std::uint64_t bytes) : bytes_(static_cast<std::size_t>(bytes)) {
    void* p = map_read_only(fd, bytes_, 0);
    if (p != MAP_FAILED) base_ = static_cast<unsigned char*>(p);
  }
  ~WholeMapping() {
    if (base_) ::munmap(base_, bytes_);
  }
  WholeMapping(const WholeMapping&) = delete;
  WholeMapping& operator=(const WholeMapping&) = delete;
  explicit operator bool() const { return base_ != nullptr; }
  // A copy of the first kRawHeaderSize bytes (the caller checked the file is that long).
  std::vector<unsigned char> header() const { return {base_, base_ + kRawHeaderSize}; }
  // The mapping's ranges now belong to others (LevelArray::adopt_mapping).
  unsigned char* release() { return std::exchange(base_, nullptr); }

 private:
  unsigned char* base_ = nullptr;
  std::size_t bytes_ = 0;
};

// The cache file `file` opened into *fd (the caller closes it); false unless it is a regular
// file of `size` bytes, at least a header.
bool open_cache(const fs::path& file, std::uint64_t size, int* fd) {
  *fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (*fd < 0) return false;
  struct stat st {};
  return ::fstat(*fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) == size &&
         size >= kRawHeaderSize;
}

// Errors of a directory (or filesystem) that is simply not writable.
bool not_writable(int err) { return err == EACCES || err == EPERM || err == EROFS; }

}  // namespace

fs::path raw_path(const fs::path& dir, int k) {
  char name[32];
  std::snprintf(name, sizeof name, "level-%03d.raw", k);
  return dir / name;
}

namespace {

// The cache file `file` whose data, `bytes` bytes, follow its header: mapped, once the header
// is exactly header_for(the header found: the data CRC it records, and any field the data
// need) and the data's CRC-32C, computed over the mapping, matches; nothing otherwise, and
// *damage (when given) then names a cache whose header matches but whose data (`what`:
// "entries", "bits") do not.
template <class HeaderFor>
std::optional<LevelArray> map_flat_cache(const fs::path& file, std::uint64_t bytes, HeaderFor&& header_for,
                                         const char* what, std::string* damage, int threads) {
  if (damage) damage->clear();
  const std::uint64_t size = kRawHeaderSize + bytes;
  int fd = -1;
  const bool opened = open_cache(file, size, &fd);
  const Fd f(fd);
  if (!opened) return std::nullopt;
  WholeMapping whole(f.fd, size);
  if (!whole) return std::nullopt;
  const std::vector<unsigned char> head = whole.header();
  // The header must be the one written for exactly this level file.
  const std::vector<unsigned char> want = header_for(head);
  if (get_le<std::uint32_t>(head.data() + kOffHeaderCrc) != crc32c(head.data(), kOffHeaderCrc) || head != want)
    return std::nullopt;
  LevelArray data = LevelArray::adopt_mapping(whole.release(), static_cast<std::size_t>(size), kRawHeaderSize, bytes);
  // Every read-back is checked: this pass also faults the pages in (in chunks, on the load's threads).
  const std::span<const unsigned char> span(reinterpret_cast<const unsigned char*>(data.data()),
                                            static_cast<std::size_t>(bytes));
  if (crc32c_parallel({&span, 1}, threads) != get_le<std::uint32_t>(head.data() + kOffEntriesCrc)) {
    if (damage) *damage = file.string() + ": " + what + " checksum mismatch (a damaged cache file)";
    return std::nullopt;
  }
  return data;
}

}  // namespace

std::optional<LevelArray> map_raw_cache(const fs::path& dir, const Header& h, std::uint32_t header_crc,
                                        std::string* damage, int threads) {
  return map_flat_cache(
      raw_path(dir, h.level), h.entries,
      [&](const std::vector<unsigned char>& head) {
        return encode(h, header_crc, get_le<std::uint32_t>(head.data() + kOffEntriesCrc));
      },
      "entries", damage, threads);
}

namespace {

// Write `parts` as the cache file `file` of directory `dir`: to "<file>.tmp.<pid>", then
// renamed into place; skipped when the filesystem lacks the room (plus kRawSpareBytes).
RawWriteResult write_cache_file(const fs::path& dir, const fs::path& file,
                                const std::vector<std::span<const unsigned char>>& parts,
                                const std::function<std::uint64_t(const fs::path&)>& free_bytes) {
  RawWriteResult r;
  std::uint64_t need = 0;
  for (const auto& part : parts) need += part.size();
  std::uint64_t available = 0;
  if (free_bytes) {
    available = free_bytes(dir);
  } else {
    struct statvfs st {};
    if (::statvfs(dir.c_str(), &st) != 0) return r;
    available = static_cast<std::uint64_t>(st.f_bavail) * st.f_frsize;
  }
  if (available < need + kRawSpareBytes) {
    r.problem = file.string() + ": not written: the cache needs " + byte_text(need) + " and leaves " +
                byte_text(kRawSpareBytes) + " free, the filesystem has " + byte_text(available) + " free";
    return r;
  }
  remove_stale_temporaries(dir, file);
  fs::path tmp = file;
  tmp += ".tmp." + std::to_string(::getpid());
  // O_EXCL: another thread of this process may be writing the same cache.
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    if (!not_writable(errno) && errno != EEXIST)
      r.problem = tmp.string() + ": cannot be created: " + std::generic_category().message(errno);
    return r;
  }
  bool ok = true;
  for (const auto& part : parts) ok = ok && write_fully(fd, part.data(), part.size());
  // Out of the page cache once on disk: written pages stay in small folios, and the next
  // load's mapping reads the file anew in huge ones (map_read_only); the loader that writes
  // the cache holds the level in its own memory, so the cached copy was a second one. Best
  // effort: where the file cannot be synced it stays cached (a torn file fails its checksum).
  if (ok && ::fdatasync(fd) == 0) ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  int err = ok ? 0 : errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    err = errno;
  }
  std::error_code ec;
  if (ok) {
    fs::rename(tmp, file, ec);
    if (ec) {
      ok = false;
      err = ec.value();
    }
  }
  if (!ok) {
    fs::remove(tmp, ec);
    if (!not_writable(err))
      r.problem =
          file.string() + ": not written: " + std::generic_category().message(err) + " (the partial file was removed)";
    return r;
  }
  r.written = true;
  return r;
}

}  // namespace

RawWriteResult write_raw_cache(const fs::path& dir, const Header& h, std::uint32_t header_crc, const LevelArray& level,
                               const std::function<std::uint64_t(const fs::path&)>& free_bytes) {
  if (level.size() != h.entries) return {};
  const std::vector<unsigned char> head = encode(h, header_crc, crc32c(level.data(), level.size()));
  return write_cache_file(
      dir, raw_path(dir, h.level),
      {head, std::span<const unsigned char>(reinterpret_cast<const unsigned char*>(level.data()), level.size())},
      free_bytes);
}

namespace {

// Level k through its cache: the mapped cache when `map` gives one (a damaged one is noted),
// else `read` (which also gives the header and header CRC read with the level's data), after
// which `write` writes the cache when cache.write allows (a problem worth saying noted, once).
template <class Level, class Map, class Read, class Write>
Level load_through_cache(const fs::path& file, RawCacheState& cache, Map&& map, Read&& read, Write&& write) {
  std::string damage;
  if (std::optional<Level> mapped = map(&damage)) return std::move(*mapped);
  if (!damage.empty() && cache.note)
    cache.note(damage + "; loading " + file.filename().string() + " instead and rewriting the cache");
  // The cache is written with the header read together with the data (the level file may
  // have been replaced since read_header).
  Header read_header_back;
  std::uint32_t header_crc = 0;
  Level level = read(&read_header_back, &header_crc);
  if (cache.write) {
    const RawWriteResult w = write(read_header_back, header_crc, level);
    if (!w.written) {
      cache.write = false;
      if (!w.problem.empty() && cache.note)
        cache.note(w.problem + "; no more cache files written in this load (--no-db-cache turns them off)");
    }
  }
  return level;
}

}  // namespace

LevelArray load_level(const fs::path& dir, int pits, const Rules& rules, int k, RawCacheState& cache, int threads) {
  if (!cache.enabled) return read_level(dir, pits, rules, k, threads);
  const fs::path file = level_path(dir, k);
  std::uint32_t header_crc = 0;
  const Header h = read_header(file, &header_crc);
  check_level_header(file, h, pits, rules, k);
  return load_through_cache<LevelArray>(
      file, cache, [&](std::string* damage) { return map_raw_cache(dir, h, header_crc, damage, threads); },
      [&](Header* read, std::uint32_t* crc) { return read_level(dir, pits, rules, k, threads, read, crc); },
      [&](const Header& read, std::uint32_t crc, const LevelArray& level) {
        return write_raw_cache(dir, read, crc, level, cache.free_bytes);
      });
}

namespace {

// Packed cache header fields (after the level fields at 16..31 and the CRCs and size at 32..47).
constexpr std::size_t kOffWidth = 48, kOffWeights = 52, kOffLines = 56, kOffGroups = 64, kOffExceptions = 72,
                      kOffLinesAt = 80, kOffExceptionsAt = 88, kOffTailAt = 96;
// Paired cache header fields: the pair count, then a 56-byte entry a pair from kOffPairs.
constexpr std::size_t kOffPairCount = 48, kOffPairs = 64, kPairEntry = 56;

std::uint64_t page_round(std::uint64_t n) { return (n + kRawHeaderSize - 1) / kRawHeaderSize * kRawHeaderSize; }

// Where the sections of a packed image of `shape` lie in a cache file when its lines start at
// `lines_at` (a page boundary): lines, exceptions (from a page boundary), then the tail
// (weights and group offsets, from the next page boundary after the exceptions).
struct PackedLayout {
  std::uint64_t lines_at = kRawHeaderSize, exceptions_at = 0, tail_at = 0, end = 0;
  explicit PackedLayout(const PackedLevel::Shape& shape, std::uint64_t start = kRawHeaderSize) : lines_at(start) {
    exceptions_at = page_round(lines_at + shape.lines * PackedLevel::kLineBytes);
    tail_at = exceptions_at + page_round(shape.exceptions);
    end = tail_at + shape.weights * sizeof(std::int16_t) + shape.groups * sizeof(std::uint64_t);
  }
};

// The layouts of a paired cache's pairs, each from the page boundary after the one before.
std::vector<PackedLayout> paired_layouts(const Header& h) {
  std::vector<PackedLayout> out;
  std::uint64_t at = kRawHeaderSize;
  for (const PackedLevel::Shape& shape : h.pairs) {
    out.emplace_back(shape, at);
    at = page_round(out.back().end);
  }
  return out;
}

std::vector<unsigned char> encode_packed(const Header& h, std::uint32_t source_crc, std::uint32_t data_crc) {
  const PackedLayout at(h.packed);
  std::vector<unsigned char> b = cache_prologue(kPackedRawVersion, h, source_crc, data_crc, at.end);
  put_le<std::uint32_t>(b.data() + kOffWidth, static_cast<std::uint32_t>(h.packed.width));
  put_le<std::uint32_t>(b.data() + kOffWeights, static_cast<std::uint32_t>(h.packed.weights));
  put_le<std::uint64_t>(b.data() + kOffLines, h.packed.lines);
  put_le<std::uint64_t>(b.data() + kOffGroups, h.packed.groups);
  put_le<std::uint64_t>(b.data() + kOffExceptions, h.packed.exceptions);
  put_le<std::uint64_t>(b.data() + kOffLinesAt, at.lines_at);
  put_le<std::uint64_t>(b.data() + kOffExceptionsAt, at.exceptions_at);
  put_le<std::uint64_t>(b.data() + kOffTailAt, at.tail_at);
  put_le<std::uint32_t>(b.data() + kOffHeaderCrc, crc32c(b.data(), kOffHeaderCrc));
  return b;
}

std::vector<unsigned char> encode_paired(const Header& h, std::uint32_t source_crc, std::uint32_t data_crc) {
  const std::vector<PackedLayout> layouts = paired_layouts(h);
  std::vector<unsigned char> b =
      cache_prologue(kPairedRawVersion, h, source_crc, data_crc, layouts.empty() ? kRawHeaderSize : layouts.back().end);
  put_le<std::uint32_t>(b.data() + kOffPairCount, static_cast<std::uint32_t>(h.pairs.size()));
  for (std::size_t p = 0; p < h.pairs.size(); ++p) {
    unsigned char* e = b.data() + kOffPairs + p * kPairEntry;
    const PackedLevel::Shape& shape = h.pairs[p];
    put_le<std::uint32_t>(e, static_cast<std::uint32_t>(shape.width));
    put_le<std::uint32_t>(e + 4, static_cast<std::uint32_t>(shape.weights));
    put_le<std::uint64_t>(e + 8, shape.lines);
    put_le<std::uint64_t>(e + 16, shape.groups);
    put_le<std::uint64_t>(e + 24, shape.exceptions);
    put_le<std::uint64_t>(e + 32, layouts[p].lines_at);
    put_le<std::uint64_t>(e + 40, layouts[p].exceptions_at);
    put_le<std::uint64_t>(e + 48, layouts[p].tail_at);
  }
  put_le<std::uint32_t>(b.data() + kOffHeaderCrc, crc32c(b.data(), kOffHeaderCrc));
  return b;
}

// One packed image mapped from a cache file: two read-only mappings, [lines_at, exceptions_at)
// and [exceptions_at, second_end), owned by the lines and the exceptions; second_end is the
// image's end, or the next pair's start (the padding between them is checked too).
struct MappedImage {
  LevelArray lines, exceptions;
  const unsigned char* second = nullptr;
  std::size_t first_bytes = 0, second_bytes = 0;
  // The mapped bytes in file order, for their checksum.
  void append_spans(std::vector<std::span<const unsigned char>>& out) const {
    out.emplace_back(reinterpret_cast<const unsigned char*>(lines.data()), first_bytes);
    out.emplace_back(second, second_bytes);
  }
};

// The image at `at` of a cache file mapped whole at `file` (WholeMapping, released): its two
// ranges, page-aligned, each unmapped with what owns it. One mapping a file rather than two an
// image, so that it is placed congruent to the file and every 2 MiB of it can be a huge page (a
// pair's own mapping loses the partial 2 MiB at both its ends: Kalah(6,4)'s 215 MiB held
// 90 MiB on huge pages so). The first image's lines own the header's page too (`first`):
// unmapping one page of a huge page maps the rest of its 2 MiB with 4 KiB pages.
MappedImage carve_image(unsigned char* file, const PackedLayout& at, const PackedLevel::Shape& shape,
                        std::uint64_t second_end, bool first) {
  MappedImage m;
  const std::uint64_t from = first ? 0 : at.lines_at;
  m.first_bytes = static_cast<std::size_t>(at.exceptions_at - at.lines_at);
  m.second_bytes = static_cast<std::size_t>(second_end - at.exceptions_at);
  m.lines =
      LevelArray::adopt_mapping(file + from, static_cast<std::size_t>(at.exceptions_at - from),
                                static_cast<std::size_t>(at.lines_at - from), shape.lines * PackedLevel::kLineBytes);
  m.exceptions = LevelArray::adopt_mapping(file + at.exceptions_at, m.second_bytes, 0, shape.exceptions);
  m.second = file + at.exceptions_at;
  return m;
}

// The packed level over `range` from a mapped image whose checksum held; its weights and group
// offsets are copied from the tail. Not checked again (PackedLevel::check_image): a cache is
// written only from a level read from its level file, whose image passed that check, and its
// CRC, which held, was taken over those bytes (the check cost a 20-seed load half its CPU).
// Throws std::invalid_argument when the arrays are not of the shape's sizes.
PackedLevel adopt_image(MappedImage&& m, const PackedLayout& at, const PackedLevel::Shape& shape,
                        const BoardRange& range) {
  const unsigned char* rest = m.second + (at.tail_at - at.exceptions_at);
  std::vector<std::int16_t> weights(shape.weights);
  std::vector<std::uint64_t> group_first(shape.groups);
  std::memcpy(weights.data(), rest, weights.size() * sizeof(std::int16_t));
  std::memcpy(group_first.data(), rest + weights.size() * sizeof(std::int16_t),
              group_first.size() * sizeof(std::uint64_t));
  return PackedLevel::adopt(range, shape, std::move(m.lines), std::move(m.exceptions), std::move(weights),
                            std::move(group_first));
}

// A packed image's sections as cache file parts (lines, padding, exceptions, padding, weights,
// group offsets), appended to `parts`; `zeros` holds a page of zeros.
void append_image(const PackedLevel& level, const PackedLayout& at, const std::vector<unsigned char>& zeros,
                  std::vector<std::span<const unsigned char>>& parts) {
  const std::vector<std::span<const unsigned char>> image = level.image();  // weights, groups, lines, exceptions
  parts.push_back(image[2]);
  parts.emplace_back(zeros.data(), at.exceptions_at - at.lines_at - image[2].size());
  parts.push_back(image[3]);
  parts.emplace_back(zeros.data(), at.tail_at - at.exceptions_at - image[3].size());
  parts.push_back(image[0]);
  parts.push_back(image[1]);
}

std::uint32_t crc_of(const std::vector<std::span<const unsigned char>>& parts) {
  std::uint32_t crc = 0;
  bool first = true;
  for (const auto& part : parts) {
    crc = first ? crc32c(part.data(), part.size()) : crc32c(part.data(), part.size(), crc);
    first = false;
  }
  return crc;
}

}  // namespace

fs::path packed_raw_path(const fs::path& dir, int k) {
  char name[32];
  std::snprintf(name, sizeof name, "level-%03d.praw", k);
  return dir / name;
}

std::optional<PackedLevel> map_packed_raw_cache(const fs::path& dir, const BoardIndexer& ix, const Header& h,
                                                std::uint32_t header_crc, std::string* damage, int threads) {
  if (damage) damage->clear();
  if (h.version != kPackedVersion) return std::nullopt;
  const fs::path file = packed_raw_path(dir, h.level);
  const PackedLayout at(h.packed);
  int fd = -1;
  const bool opened = open_cache(file, at.end, &fd);
  const Fd f(fd);
  if (!opened) return std::nullopt;
  WholeMapping whole(f.fd, at.end);
  if (!whole) return std::nullopt;
  const std::vector<unsigned char> head = whole.header();
  const std::uint32_t data_crc = get_le<std::uint32_t>(head.data() + kOffEntriesCrc);
  if (head != encode_packed(h, header_crc, data_crc)) return std::nullopt;
  MappedImage m = carve_image(whole.release(), at, h.packed, at.end, true);
  // Every read-back is checked: this pass also faults the pages in (in chunks, on the load's threads).
  std::vector<std::span<const unsigned char>> spans;
  m.append_spans(spans);
  if (crc32c_parallel(spans, threads) != data_crc) {
    if (damage) *damage = file.string() + ": data checksum mismatch (a damaged cache file)";
    return std::nullopt;
  }
  try {
    return adopt_image(std::move(m), at, h.packed, BoardRange::level(ix, h.level));
  } catch (const std::invalid_argument& e) {
    if (damage) *damage = file.string() + ": " + e.what() + " (a damaged cache file)";
    return std::nullopt;
  }
}

RawWriteResult write_packed_raw_cache(const fs::path& dir, const Header& h, std::uint32_t header_crc,
                                      const PackedLevel& level,
                                      const std::function<std::uint64_t(const fs::path&)>& free_bytes) {
  if (h.version != kPackedVersion || !(level.shape() == h.packed)) return {};
  const std::vector<unsigned char> zeros(kRawHeaderSize, 0);
  std::vector<std::span<const unsigned char>> data;
  append_image(level, PackedLayout(h.packed), zeros, data);
  const std::vector<unsigned char> head = encode_packed(h, header_crc, crc_of(data));
  std::vector<std::span<const unsigned char>> parts{head};
  parts.insert(parts.end(), data.begin(), data.end());
  return write_cache_file(dir, packed_raw_path(dir, h.level), parts, free_bytes);
}

std::optional<PairedLevel> map_paired_raw_cache(const fs::path& dir, const Header& h, std::uint32_t header_crc,
                                                std::string* damage, int threads) {
  if (damage) damage->clear();
  if (h.version != kPairedVersion || h.pairs.empty()) return std::nullopt;
  const fs::path file = packed_raw_path(dir, h.level);
  const std::vector<PackedLayout> layouts = paired_layouts(h);
  int fd = -1;
  const bool opened = open_cache(file, layouts.back().end, &fd);
  const Fd f(fd);
  if (!opened) return std::nullopt;
  WholeMapping mapping(f.fd, layouts.back().end);
  if (!mapping) return std::nullopt;
  const std::vector<unsigned char> head = mapping.header();
  const std::uint32_t data_crc = get_le<std::uint32_t>(head.data() + kOffEntriesCrc);
  if (head != encode_paired(h, header_crc, data_crc)) return std::nullopt;
  unsigned char* const whole = mapping.release();
  std::vector<MappedImage> images;
  std::vector<std::span<const unsigned char>> spans;
  for (std::size_t p = 0; p < layouts.size(); ++p) {
    // Each pair's second range runs to the next pair's lines: the checksum covers every byte.
    const std::uint64_t second_end = p + 1 < layouts.size() ? layouts[p + 1].lines_at : layouts[p].end;
    images.push_back(carve_image(whole, layouts[p], h.pairs[p], second_end, p == 0));
    images.back().append_spans(spans);
  }
  // Every read-back is checked: this pass also faults the pages in (in chunks, on the load's threads).
  if (crc32c_parallel(spans, threads) != data_crc) {
    if (damage) *damage = file.string() + ": data checksum mismatch (a damaged cache file)";
    return std::nullopt;
  }
  try {
    PairedLevel level(h.pits, h.level);
    for (std::size_t p = 0; p < layouts.size(); ++p)
      level.add_pair(adopt_image(std::move(images[p]), layouts[p], h.pairs[p], level.range(static_cast<int>(p))));
    return level;
  } catch (const std::invalid_argument& e) {
    if (damage) *damage = file.string() + ": " + e.what() + " (a damaged cache file)";
    return std::nullopt;
  }
}

RawWriteResult write_paired_raw_cache(const fs::path& dir, const Header& h, std::uint32_t header_crc,
                                      const PairedLevel& level,
                                      const std::function<std::uint64_t(const fs::path&)>& free_bytes) {
  if (h.version != kPairedVersion || !level.complete() || static_cast<int>(h.pairs.size()) != level.pairs()) return {};
  for (int p = 0; p < level.pairs(); ++p)
    if (!(level.pair(p).shape() == h.pairs[p])) return {};
  const std::vector<PackedLayout> layouts = paired_layouts(h);
  const std::vector<unsigned char> zeros(kRawHeaderSize, 0);
  std::vector<std::span<const unsigned char>> data;
  for (int p = 0; p < level.pairs(); ++p) {
    append_image(level.pair(p), layouts[p], zeros, data);
    if (p + 1 < level.pairs()) data.emplace_back(zeros.data(), layouts[p + 1].lines_at - layouts[p].end);
  }
  const std::vector<unsigned char> head = encode_paired(h, header_crc, crc_of(data));
  std::vector<std::span<const unsigned char>> parts{head};
  parts.insert(parts.end(), data.begin(), data.end());
  return write_cache_file(dir, packed_raw_path(dir, h.level), parts, free_bytes);
}

PackedLevel load_packed_level(const fs::path& dir, int pits, const Rules& rules, int k, RawCacheState& cache,
                              int threads) {
  if (!cache.enabled) return read_packed_level(dir, pits, rules, k, threads);
  const fs::path file = level_path(dir, k);
  std::uint32_t header_crc = 0;
  const Header h = read_header(file, &header_crc);
  check_level_header(file, h, pits, rules, k);
  const BoardIndexer ix(pits, k);
  return load_through_cache<PackedLevel>(
      file, cache, [&](std::string* damage) { return map_packed_raw_cache(dir, ix, h, header_crc, damage, threads); },
      [&](Header* read, std::uint32_t* crc) { return read_packed_level(dir, pits, rules, k, threads, read, crc); },
      [&](const Header& read, std::uint32_t crc, const PackedLevel& level) {
        // A format-1 file packed at load has no packed cache (its own raw cache serves it).
        return read.version == kPackedVersion ? write_packed_raw_cache(dir, read, crc, level, cache.free_bytes)
                                              : RawWriteResult{true, {}};
      });
}

PairedLevel load_paired_level(const fs::path& dir, int pits, const Rules& rules, int k, RawCacheState& cache,
                              int threads) {
  if (!cache.enabled) return read_paired_level(dir, pits, rules, k, threads);
  const fs::path file = level_path(dir, k);
  std::uint32_t header_crc = 0;
  const Header h = read_header(file, &header_crc);
  check_level_header(file, h, pits, rules, k);
  return load_through_cache<PairedLevel>(
      file, cache, [&](std::string* damage) { return map_paired_raw_cache(dir, h, header_crc, damage, threads); },
      [&](Header* read, std::uint32_t* crc) { return read_paired_level(dir, pits, rules, k, threads, read, crc); },
      [&](const Header& read, std::uint32_t crc, const PairedLevel& level) {
        // A level file of another format packed by pairs at load has no packed cache.
        return read.version == kPairedVersion ? write_paired_raw_cache(dir, read, crc, level, cache.free_bytes)
                                              : RawWriteResult{true, {}};
      });
}

fs::path bound_path(const fs::path& dir, int k) {
  char name[32];
  std::snprintf(name, sizeof name, "level-%03d.bnd", k);
  return dir / name;
}

namespace {

// Bound cache header field: the thresholds t(0..k), a signed byte each, from kOffThresholds.
constexpr std::size_t kOffThresholds = 48;

std::vector<unsigned char> encode_bound(const Header& h, std::uint32_t source_crc, std::uint32_t bits_crc,
                                        const std::vector<std::int8_t>& thresholds) {
  std::vector<unsigned char> b = cache_prologue(kBoundRawVersion, h, source_crc, bits_crc,
                                                kRawHeaderSize + BoundLevel::bytes_for(h.pits, h.level));
  static_assert(kOffThresholds + 256 < kOffHeaderCrc);
  if (thresholds.size() > 256) return {};  // no such level: matches no header
  std::memcpy(b.data() + kOffThresholds, thresholds.data(), thresholds.size());
  put_le<std::uint32_t>(b.data() + kOffHeaderCrc, crc32c(b.data(), kOffHeaderCrc));
  return b;
}

}  // namespace

std::optional<BoundLevel> map_bound_cache(const fs::path& dir, const Header& h, std::uint32_t header_crc,
                                          std::string* damage, int threads) {
  // The thresholds as the header found holds them; the rest of it must be as written for this
  // level file, and its CRC then covers them.
  std::vector<std::int8_t> thresholds(static_cast<std::size_t>(h.level) + 1);
  std::optional<LevelArray> bits = map_flat_cache(
      bound_path(dir, h.level), BoundLevel::bytes_for(h.pits, h.level),
      [&](const std::vector<unsigned char>& head) {
        if (thresholds.size() <= 256) std::memcpy(thresholds.data(), head.data() + kOffThresholds, thresholds.size());
        return encode_bound(h, header_crc, get_le<std::uint32_t>(head.data() + kOffEntriesCrc), thresholds);
      },
      "bits", damage, threads);
  if (!bits) return std::nullopt;
  try {
    return BoundLevel(h.pits, h.level, std::move(*bits), std::move(thresholds));
  } catch (const std::invalid_argument&) {  // thresholds no level could have, under a valid CRC
    if (damage) *damage = bound_path(dir, h.level).string() + ": thresholds out of range (a damaged cache file)";
    return std::nullopt;
  }
}

RawWriteResult write_bound_cache(const fs::path& dir, const Header& h, std::uint32_t header_crc,
                                 const BoundLevel& level,
                                 const std::function<std::uint64_t(const fs::path&)>& free_bytes) {
  const LevelArray& bits = level.bits();
  if (level.level() != h.level || level.pits() != h.pits || bits.size() != BoundLevel::bytes_for(h.pits, h.level))
    return {};
  const std::span<const unsigned char> data(reinterpret_cast<const unsigned char*>(bits.data()),
                                            static_cast<std::size_t>(bits.size()));
  const std::vector<unsigned char> head =
      encode_bound(h, header_crc, crc32c(data.data(), data.size()), level.thresholds());
  if (head.empty()) return {};
  return write_cache_file(dir, bound_path(dir, h.level), {head, data}, free_bytes);
}

BoundLevel load_bound_level(const fs::path& dir, int pits, const Rules& rules, int k, RawCacheState& cache,
                            int threads) {
  const fs::path file = level_path(dir, k);
  std::uint32_t header_crc = 0;
  const Header h = read_header(file, &header_crc);
  check_level_header(file, h, pits, rules, k);
  if (h.version != kPairedVersion)
    throw DatabaseError(file.string() + ": bounds are made from a level packed by pairs (format 3), this is format " +
                        std::to_string(h.version));
  std::string damage;
  if (cache.enabled) {
    if (std::optional<BoundLevel> mapped = map_bound_cache(dir, h, header_crc, &damage, threads))
      return std::move(*mapped);
    if (!damage.empty() && cache.note)
      cache.note(damage + "; making the bounds from " + file.filename().string() + " again");
  }
  BoundLevel level = BoundLevel::from_values(load_paired_level(dir, pits, rules, k, cache, threads), threads);
  if (cache.enabled && cache.write) {
    const RawWriteResult w = write_bound_cache(dir, h, header_crc, level, cache.free_bytes);
    if (!w.written) {
      cache.write = false;
      if (!w.problem.empty() && cache.note)
        cache.note(w.problem + "; no more cache files written in this load (--no-db-cache turns them off)");
    }
  }
  return level;
}

}  // namespace kalah::dbfile

// solver/db/file_fields.hpp — byte-level pieces shared by the database's two file kinds,
// level files (format.cpp) and raw cache files (raw_cache.cpp): little-endian fields, the
// level fields both headers hold at the same place, and a write that finishes short writes.
//
// Level fields, bytes 16..31 of both headers: m (u8), sowing, capture, end, early end, pie
// (u8 each: the enum values, 0/1), k (u16), entry count (u64).
#pragma once

#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>

#include "solver/db/format.hpp"

namespace kalah::dbfile {

template <class T>
void put_le(unsigned char* out, T v) {
  for (std::size_t i = 0; i < sizeof(T); ++i)
    out[i] = static_cast<unsigned char>(static_cast<std::uint64_t>(v) >> (8 * i));
}

template <class T>
T get_le(const unsigned char* p) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) v |= static_cast<std::uint64_t>(p[i]) << (8 * i);
  return static_cast<T>(v);
}

inline constexpr std::size_t kLevelFieldsAt = 16;

// Writes the level fields of `h` at header + kLevelFieldsAt.
inline void put_level_fields(unsigned char* header, const Header& h) {
  unsigned char* b = header + kLevelFieldsAt;
  b[0] = static_cast<unsigned char>(h.pits);
  b[1] = static_cast<unsigned char>(h.rules.sowing);
  b[2] = static_cast<unsigned char>(h.rules.capture);
  b[3] = static_cast<unsigned char>(h.rules.end);
  b[4] = h.rules.early_end ? 1 : 0;
  b[5] = h.rules.pie ? 1 : 0;
  put_le<std::uint16_t>(b + 6, static_cast<std::uint16_t>(h.level));
  put_le<std::uint64_t>(b + 8, h.entries);
}

// Writes all `size` bytes to fd (again after a short write or EINTR); false, with errno
// set, when a write fails.
inline bool write_fully(int fd, const void* data, std::size_t size) {
  const auto* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, p, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace kalah::dbfile

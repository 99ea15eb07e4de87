#include "solver/db/level.hpp"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <new>

namespace kalah {

void detail::LevelFree::operator()(std::int8_t* p) const {
  if (map_base)
    ::munmap(map_base, map_bytes);
  else
    std::free(p);
}

LevelArray::LevelArray(std::uint64_t size) : size_(size) {
  constexpr std::size_t kHuge = std::size_t(2) << 20;
  const std::size_t bytes = size == 0 ? 1 : static_cast<std::size_t>(size);
  const std::size_t align = bytes >= kHuge ? kHuge : 64;
  const std::size_t rounded = (bytes + align - 1) / align * align;
  void* p = std::aligned_alloc(align, rounded);
  if (!p) throw std::bad_alloc();
  if (align == kHuge) ::madvise(p, rounded, MADV_HUGEPAGE);
  data_.reset(static_cast<std::int8_t*>(p));
}

LevelArray LevelArray::copy() const {
  LevelArray c(size_);
  if (size_ > 0) std::memcpy(c.data(), data(), static_cast<std::size_t>(size_));
  return c;
}

LevelArray LevelArray::adopt_mapping(void* map_base, std::size_t map_bytes, std::size_t offset, std::uint64_t size) {
  LevelArray a;
  a.size_ = size;
  a.data_ = std::unique_ptr<std::int8_t[], detail::LevelFree>(static_cast<std::int8_t*>(map_base) + offset,
                                                              detail::LevelFree{map_base, map_bytes});
  return a;
}

}  // namespace kalah

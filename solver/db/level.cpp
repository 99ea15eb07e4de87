#include "solver/db/level.hpp"

#include <sys/mman.h>

#include <cstdlib>
#include <new>

namespace kalah {

void LevelArray::Free::operator()(std::int8_t* p) const { std::free(p); }

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

}  // namespace kalah

#include "solver/search/transposition_table.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cassert>
#include <cstdlib>
#include <cstring>
#include <new>

namespace kalah::search {

TranspositionTable::TranspositionTable(std::size_t bytes) {
  const std::size_t bucket_bytes = kBucketEntries * sizeof(std::uint64_t);
  buckets_ = 1;
  index_bits_ = 0;
  while (buckets_ * 2 * bucket_bytes <= bytes && index_bits_ < 40) {
    buckets_ *= 2;
    ++index_bits_;
  }
  // Anonymous memory: zeroed by the kernel page by page as it is first touched, on huge
  // pages where the system allows it (fewer TLB misses for the random accesses).
  void* p = mmap(nullptr, this->bytes(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
  madvise(p, this->bytes(), MADV_HUGEPAGE);
#endif
  words_ = static_cast<std::uint64_t*>(p);
}

TranspositionTable::~TranspositionTable() { munmap(words_, bytes()); }

void TranspositionTable::store(std::uint64_t index, std::uint64_t tag, int lower, int upper, int move, int work) {
  assert(-255 <= lower && lower <= upper && upper <= 255);
  assert(index < buckets_ && (tag >> kTagBits) == 0);
  std::uint64_t* bucket = words_ + index * kBucketEntries;
  int victim = 0;
  int victim_work = 1 << 30;
  for (int i = 0; i < kBucketEntries; ++i) {
    std::atomic_ref<std::uint64_t> slot(bucket[i]);
    const std::uint64_t w = slot.load(std::memory_order_relaxed);
    if (w != 0 && (w >> 28) == tag) {
      // Same board: merge the bounds (both old and new are true).
      TableEntry e = decode(w);
      e.lower = std::max(e.lower, lower);
      e.upper = std::min(e.upper, upper);
      assert(e.lower <= e.upper);  // two true bounds of one board cannot cross
      if (move >= 0) e.move = move;
      e.work = std::max(e.work, work);
      slot.store(encode(tag, e), std::memory_order_relaxed);
      return;
    }
    const int wk = w == 0 ? -1 : static_cast<int>((w >> 22) & 63);
    if (wk < victim_work) {
      victim_work = wk;
      victim = i;
    }
  }
  TableEntry e;
  e.lower = lower;
  e.upper = upper;
  e.move = move;
  e.work = std::min(work, 63);
  std::atomic_ref<std::uint64_t>(bucket[victim]).store(encode(tag, e), std::memory_order_relaxed);
}

std::size_t TranspositionTable::used() const {
  std::size_t n = 0;
  const std::size_t words = buckets_ * kBucketEntries;
  for (std::size_t i = 0; i < words; ++i)
    if (std::atomic_ref<std::uint64_t>(words_[i]).load(std::memory_order_relaxed) != 0) ++n;
  return n;
}

void TranspositionTable::clear() {
#ifdef MADV_DONTNEED
  // Give the pages back: they read as zero again.
  if (madvise(words_, bytes(), MADV_DONTNEED) == 0) return;
#endif
  std::memset(words_, 0, bytes());
}

}  // namespace kalah::search

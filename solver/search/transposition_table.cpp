#include "solver/search/transposition_table.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cstdlib>
#include <cstring>
#include <new>

namespace kalah::search {

int TranspositionTable::index_bits_within(std::size_t bytes) {
  int bits = 0;
  while ((std::size_t(2) << bits) * kBucketBytes <= bytes && bits < 40) ++bits;
  return bits;
}

TranspositionTable::TranspositionTable(std::size_t bytes, std::size_t initial_bytes) {
  const int max_bits = index_bits_within(bytes);
  index_bits_ = initial_bytes == 0 ? max_bits : std::min(max_bits, index_bits_within(initial_bytes));
  max_buckets_ = std::size_t(1) << max_bits;
  buckets_ = std::size_t(1) << index_bits_;
  // Anonymous memory for the largest size: zeroed by the kernel page by page as it is first
  // touched, on huge pages where the system allows it (fewer TLB misses for the random
  // accesses); address space only until then.
  void* p = mmap(nullptr, max_bytes(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
  madvise(p, max_bytes(), MADV_HUGEPAGE);
#endif
  words_ = static_cast<std::uint64_t*>(p);
}

TranspositionTable::~TranspositionTable() { munmap(words_, max_bytes()); }

void TranspositionTable::grow(int threads) {
  assert(can_grow());
  const std::size_t half = buckets_;
  const std::uint64_t kept_bits = (std::uint64_t(1) << 28) - 1;  // everything below the tag
  // Bucket i splits into i (tag bit 0) and i + half (tag bit 1); the upper bucket is new
  // (all zero), so the two are written from the old entries alone.
#pragma omp parallel for num_threads(std::max(threads, 1)) schedule(static, 4096)
  for (std::size_t i = 0; i < half; ++i) {
    std::uint64_t* low = words_ + i * kBucketEntries;
    std::uint64_t* high = words_ + (i + half) * kBucketEntries;
    std::uint64_t stay[kBucketEntries] = {}, move[kBucketEntries] = {};
    int n_stay = 0, n_move = 0;
    for (int s = 0; s < kBucketEntries; ++s) {
      const std::uint64_t w = low[s];
      if (w == 0) continue;
      const std::uint64_t tag = w >> 28;
      // Nonzero still: a stored entry has a bound or a move, so its low bits are not all zero.
      const std::uint64_t moved = ((tag >> 1) << 28) | (w & kept_bits);
      if (tag & 1)
        move[n_move++] = moved;
      else
        stay[n_stay++] = moved;
    }
    for (int s = 0; s < kBucketEntries; ++s) {
      low[s] = stay[s];
      if (move[s]) high[s] = move[s];  // (an empty slot stays untouched)
    }
  }
  buckets_ *= 2;
  ++index_bits_;
}

bool TranspositionTable::store(std::uint64_t index, std::uint64_t tag, int lower, int upper, int move, int work) {
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
      return false;
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
  return victim_work < 0;
}

std::size_t TranspositionTable::used() const {
  std::size_t n = 0;
  const std::size_t words = buckets_ * kBucketEntries;
  for (std::size_t i = 0; i < words; ++i)
    if (std::atomic_ref<std::uint64_t>(words_[i]).load(std::memory_order_relaxed) != 0) ++n;
  return n;
}

std::uint64_t TranspositionTable::digest() const {
  constexpr std::uint64_t kWork = std::uint64_t(63) << 22;
  std::uint64_t h = 0;
  const std::size_t words = buckets_ * kBucketEntries;
  for (std::size_t i = 0; i < words; ++i) {
    const std::uint64_t w = std::atomic_ref<std::uint64_t>(words_[i]).load(std::memory_order_relaxed);
    if (w != 0) h = (h ^ (w & ~kWork) ^ (std::uint64_t(i) << 40 | std::uint64_t(i) >> 24)) * 0x9E3779B97F4A7C15ull;
  }
  return h;
}

void TranspositionTable::populate(int threads) {
  const std::size_t end = bytes();
  if (populated_bytes_.load(std::memory_order_relaxed) >= end) return;  // (most calls)
  const std::size_t begin = populated_bytes_.exchange(end);
  if (begin >= end) return;
  const std::size_t page = static_cast<std::size_t>(std::max(sysconf(_SC_PAGESIZE), 512L));
  const std::size_t stride = page / sizeof(std::uint64_t);
  const std::size_t first = begin / sizeof(std::uint64_t), last = end / sizeof(std::uint64_t);
  // A write faults a page in (a read would map the shared zero page, to fault again when
  // written); an OR of zero leaves a searcher's entry as it is.
#pragma omp parallel for num_threads(std::max(threads, 1)) schedule(static)
  for (std::size_t w = first; w < last; w += stride)
    std::atomic_ref<std::uint64_t>(words_[w]).fetch_or(0, std::memory_order_relaxed);
}

void TranspositionTable::clear() {
  populated_bytes_.store(0);
#ifdef MADV_DONTNEED
  // Give the pages back: they read as zero again.
  if (madvise(words_, max_bytes(), MADV_DONTNEED) == 0) return;
#endif
  std::memset(words_, 0, bytes());
}

}  // namespace kalah::search

// solver/search/transposition_table.hpp — a shared, lock-free table of proven bounds.
//
// Every entry is one 64-bit word, read and written atomically (std::atomic_ref, relaxed), so
// any number of threads share the table without locks and a reader never sees half an entry.
// Entry layout (bit 0 = least significant):
//    0..8   lower bound of the remainder value, stored as lower + 255   (0: no bound, -255)
//    9..17  upper bound, stored as 255 - upper                           (0: no bound, +255)
//   18..21  best sowing + 1 (0: none)
//   22..27  work: log2 of the nodes searched to prove the bounds (replacement priority)
//   28..63  tag: the key bits above the bucket index (board_key.hpp), 36 bits
// An all-zero word means "no information" for any board, so the table needs no valid bit.
// The bounds are facts about a board (not about a search window), so entries stay true for
// the table's lifetime and across searches of the same pit count, seed cap and rules.
// Buckets hold 4 entries (32 bytes, half a cache line); a store replaces the entry with the
// same tag, else the one with the least work.
//
// Growth. The table reserves its largest size up front (address space only) and uses a
// power-of-two prefix of it, so a small problem touches (and the kernel zeroes) only the
// pages it needs. grow() doubles the buckets in place while no searcher runs: the bucket
// index is the low bits of a board's mixed key and the tag the bits above it
// (board_key.hpp), so with one more index bit an entry of bucket i moves to bucket
// i + 2^index_bits when its tag's lowest bit is 1, else stays, and loses that bit of tag.
// Each old bucket splits into two, so nothing is lost.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace kalah::search {

struct TableEntry {
  int lower = -255;
  int upper = 255;
  int move = -1;  // 0-based pit, -1 none
  int work = 0;
};

class TranspositionTable {
 public:
  static constexpr int kTagBits = 36;
  static constexpr int kBucketEntries = 4;
  static constexpr std::size_t kBucketBytes = kBucketEntries * sizeof(std::uint64_t);

  // A table using at most `bytes` bytes (rounded down to a power-of-two number of buckets,
  // at least one), starting at `initial_bytes` (likewise rounded; 0 or more than `bytes`:
  // the whole table at once). Memory is obtained zeroed and touched only when used.
  explicit TranspositionTable(std::size_t bytes, std::size_t initial_bytes = 0);
  ~TranspositionTable();
  TranspositionTable(const TranspositionTable&) = delete;
  TranspositionTable& operator=(const TranspositionTable&) = delete;

  // log2 of the buckets a table of `bytes` bytes has (the largest power of two that fits, at
  // least one bucket).
  static int index_bits_within(std::size_t bytes);

  int index_bits() const { return index_bits_; }
  std::size_t bytes() const { return buckets_ * kBucketBytes; }  // in use now
  std::size_t capacity() const { return buckets_ * kBucketEntries; }
  std::size_t max_bytes() const { return max_buckets_ * kBucketBytes; }
  bool can_grow() const { return buckets_ < max_buckets_; }
  // Double the buckets (can_grow() must hold). Every entry keeps its board; keys split with
  // the old index_bits() are stale afterwards. Not thread-safe: call while nobody probes or
  // stores. Runs on `threads` threads.
  void grow(int threads = 1);

  // The bounds known for (index, tag); a default TableEntry if none.
  TableEntry probe(std::uint64_t index, std::uint64_t tag) const {
    const std::uint64_t* bucket = words_ + index * kBucketEntries;
    for (int i = 0; i < kBucketEntries; ++i) {
      const std::uint64_t w =
          std::atomic_ref<std::uint64_t>(const_cast<std::uint64_t&>(bucket[i])).load(std::memory_order_relaxed);
      if ((w >> 28) == tag && w != 0) return decode(w);
    }
    return {};
  }

  // Start loading a bucket into the cache (before probing it).
  void prefetch(std::uint64_t index) const { __builtin_prefetch(words_ + index * kBucketEntries); }

  // Record bounds (merged with those already held for the same board). Returns true when
  // the entry went into an empty slot (the table holds one board more).
  bool store(std::uint64_t index, std::uint64_t tag, int lower, int upper, int move, int work);

  // Entries in use (a scan of the table).
  std::size_t used() const;
  // A checksum of the entries, slot by slot, without their work (a scan; Solver::table_digest).
  std::uint64_t digest() const;
  // Forget everything (the size stays).
  void clear();

  // Fault in the pages of the buckets in use that no call has faulted in yet (all of them the
  // first time, the new half after a growth), split among `threads` threads. Otherwise the
  // first searcher to touch a page pays for it, and in the first passes of a solve that is
  // one thread while the others wait: 16 MiB of huge pages cost 2-40 ms on a virtual machine
  // whose host backs its memory lazily (session 68, docs/search.md). Safe beside searchers
  // (each page gets an atomic OR of zero), but pointless on one thread.
  void populate(int threads);

 private:
  static TableEntry decode(std::uint64_t w) {
    TableEntry e;
    e.lower = static_cast<int>(w & 511) - 255;
    e.upper = 255 - static_cast<int>((w >> 9) & 511);
    e.move = static_cast<int>((w >> 18) & 15) - 1;
    e.work = static_cast<int>((w >> 22) & 63);
    return e;
  }
  static std::uint64_t encode(std::uint64_t tag, const TableEntry& e) {
    return (tag << 28) | (std::uint64_t(e.work) << 22) | (std::uint64_t(e.move + 1) << 18) |
           (std::uint64_t(255 - e.upper) << 9) | std::uint64_t(e.lower + 255);
  }

  std::uint64_t* words_ = nullptr;
  std::size_t buckets_ = 0;
  std::size_t max_buckets_ = 0;
  int index_bits_ = 0;
  std::atomic<std::size_t> populated_bytes_{0};  // populate()'s progress: a prefix of the memory
};

}  // namespace kalah::search

// solver/search/near_table.hpp — one searcher's small table of bounds for boards below the
// shared table (search_near), sized to stay in the core's cache.
//
// Below `--tt-above-db` seeds above the database the shared table is not used: its cache
// and TLB misses cost more than searching the small subtrees again. Most transpositions
// there are close to each other (two orders of the same two sowings a few plies up), so a
// table of a few thousand boards catches them at the price of an L1/L2 access.
//
// Entry: 16 bytes, the board's 128-bit encoding (board_bits.hpp) with bytes 14 and 15, which
// are zero on boards of up to 7 pits a side, holding the lower and the upper bound + 128
// (so boards of at most 127 seeds in play, whose values are within [-127, 127]). An all-zero
// entry matches no board searched (a board with no seeds is terminal). Direct mapped; a store
// replaces what is there, merging with the bounds of the same board. Owned by one searcher:
// no atomics.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <vector>

#include "solver/base/board_bits.hpp"

namespace kalah::search {

class NearTable {
 public:
  static constexpr int kMaxPits = 7;     // bytes 14, 15 of the board free
  static constexpr int kMaxSeeds = 127;  // values within a byte's range
  static constexpr int kNoLower = -128, kNoUpper = 127;
  static constexpr std::size_t kEntryBytes = sizeof(base::u128);

  // 2^bits entries (0: no table: probes find nothing, stores do nothing).
  explicit NearTable(int bits = 0) : bits_(bits), entries_(bits > 0 ? std::size_t(1) << bits : 0) {
    assert(0 <= bits && bits < 48);
  }
  // log2 of the entries of a table of at most `bytes` bytes (0: under one entry's bytes).
  static int bits_within(std::size_t bytes) {
    int bits = 0;
    while ((kEntryBytes << (bits + 1)) <= bytes && bits < 40) ++bits;
    return bytes >= kEntryBytes ? bits : 0;
  }

  bool enabled() const { return bits_ > 0; }
  std::size_t bytes() const { return entries_.size() * kEntryBytes; }

  // The bounds held for board x in [*lower, *upper] (narrowed, never widened).
  void probe(base::u128 x, int* lower, int* upper) const {
    if (!enabled()) return;
    const base::u128 e = entries_[slot(x)];
    if (holds(e, x)) narrow(e, lower, upper);
  }

  // Record bounds for board x (merged with those held for it).
  void store(base::u128 x, int lower, int upper) {
    assert(kNoLower <= lower && upper <= kNoUpper);
    if (!enabled()) return;
    base::u128& e = entries_[slot(x)];
    if (holds(e, x)) narrow(e, &lower, &upper);
    e = x | (base::u128(static_cast<unsigned>(lower + 128)) << 112) |
        (base::u128(static_cast<unsigned>(upper + 128)) << 120);
  }

  void clear() { std::fill(entries_.begin(), entries_.end(), base::u128(0)); }

 private:
  static constexpr base::u128 kBoardMask = (base::u128(1) << 112) - 1;

  std::size_t slot(base::u128 x) const {
    const auto lo = static_cast<std::uint64_t>(x), hi = static_cast<std::uint64_t>(x >> 64);
    return static_cast<std::size_t>(((lo ^ (hi * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull) >> (64 - bits_));
  }
  static bool holds(base::u128 e, base::u128 x) { return ((e ^ x) & kBoardMask) == 0; }
  // [*lower, *upper] narrowed by entry e's bounds.
  static void narrow(base::u128 e, int* lower, int* upper) {
    *lower = std::max(*lower, static_cast<int>(static_cast<std::uint8_t>(e >> 112)) - 128);
    *upper = std::min(*upper, static_cast<int>(static_cast<std::uint8_t>(e >> 120)) - 128);
  }

  int bits_;
  std::vector<base::u128> entries_;
};

}  // namespace kalah::search

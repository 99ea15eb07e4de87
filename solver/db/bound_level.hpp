// solver/db/bound_level.hpp — a level held as bounds for the search: one bit a board, whether
// its remainder value is above its sublevel's median.
//
// Why. At equal memory a level of bounds holds about four times the boards of an exact packed
// level (solver/db/paired_level.hpp: 3.8-3.9 bits a board), and the search mostly needs no
// more than a bound near the database: a child whose bound lies outside the window needs no
// search (docs/search.md, "Levels of bounds"). A sublevel's median splits its boards in
// halves, so the bit says the most it can; it cut the nodes more than a split at 0 on every
// benchmark game (Kalah(5,6): 19.6 M nodes against 34.1 M). The value stays exact: the search
// only uses the bit as the bounds it proves.
//
// Encoding. Level k's boards in pair order (solver/base/sublevel_index.hpp: pair p holds the
// boards with p or k - p seeds on the mover's side), one bit a board, set when the value v is
// above the threshold t(s) of its sublevel s (the seeds on the mover's side): the lower median
// of the sublevel's values, one of level k's values (its parity). Pair p's bits start at bit
// 512 x (the 64-byte lines of the pairs before it), bit i of a pair in bit i % 64 of its
// little-endian 64-bit word i / 64. A set bit bounds v to [t + 2, k], a clear one to [-k, t].
// A level may hold some of its pairs only (keep_pairs): the others are never read, and not
// counted in bytes().
#pragma once

#include <cassert>
#include <cstdint>
#include <memory>
#include <vector>

#include "solver/base/board_bits.hpp"
#include "solver/base/sublevel_index.hpp"
#include "solver/db/level.hpp"
#include "solver/db/paired_level.hpp"

namespace kalah {

class BoundLevel {
 public:
  BoundLevel() = default;
  // Level k of `pits` pits a side over `bits`, bytes_for(pits, k) bytes laid out as above, and
  // `thresholds` t(0..k) (built by from_values, or a mapped cache file). Throws
  // std::invalid_argument for another size, or a threshold not a value of level k.
  BoundLevel(int pits, int k, LevelArray bits, std::vector<std::int8_t> thresholds);
  // The bits of the exact level `exact` (complete, packed by pairs). Throws std::bad_alloc.
  static BoundLevel from_values(const PairedLevel& exact, int threads = 0);

  // Bytes of the bits of level k, and where pair p's start (a multiple of 64).
  static std::uint64_t bytes_for(int pits, int k);
  static std::uint64_t pair_offset(int pits, int k, int p);
  static std::uint64_t pair_bytes(int pits, int k, int p) {
    return pair_offset(pits, k, p + 1) - pair_offset(pits, k, p);
  }
  // A bit for each of level k's pairs: every pair held.
  static std::uint64_t all_pairs(int k) {
    return SublevelIndexer::pairs(k) == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << SublevelIndexer::pairs(k)) - 1;
  }

  int level() const { return k_; }
  int pits() const { return pits_; }
  // Keep only the pairs whose bit is set in `mask` (the others are no longer probed or counted).
  void keep_pairs(std::uint64_t mask) { held_ &= mask; }
  bool holds_pair(int p) const { return held_ >> p & 1; }
  std::uint64_t held_pairs() const { return held_; }
  std::uint64_t bytes() const;                    // of the pairs held
  bool mapped() const { return bits_.mapped(); }  // a cache file's mapping
  const LevelArray& bits() const { return bits_; }
  void make_private() { bits_.make_private(); }

  // The threshold of sublevel s (s seeds on the mover's side), and all of them (t(0..k)).
  int threshold(int s) const { return thresholds_[static_cast<std::size_t>(s)]; }
  const std::vector<std::int8_t>& thresholds() const { return thresholds_; }

  // Where the bit of the board `bits` (its pair held) is, and its sublevel's threshold.
  // M: the pit count when known at compile time (the search), else 0.
  struct Place {
    std::uint64_t slot;  // the bit's position from the first word
    int threshold;
  };
  template <int M = 0>
  Place place(base::u128 bits) const {
    assert(M == 0 || M == pits_);
    int s = 0;
    const std::uint64_t at = order_->template side_position_t<M>(bits, k_, &s);
    const int p = SublevelIndexer::pair_of_side(k_, s);
    assert(holds_pair(p));
    return {8 * pair_bytes_[p] + at, thresholds_[static_cast<std::size_t>(s)]};
  }
  const void* address_at(std::uint64_t slot) const { return words() + slot / 64; }
  bool above_at(std::uint64_t slot) const { return words()[slot / 64] >> (slot % 64) & 1; }
  bool above(base::u128 bits) const { return above_at(place(bits).slot); }

  // The bounds of a board of level k whose sublevel's threshold is t and whose bit is `above`,
  // as remainder values (t has k's parity, as every value of level k).
  static int lower(int k, int t, bool above) { return above ? t + 2 : -k; }
  static int upper(int k, int t, bool above) { return above ? k : t; }
  // The lower median of the values of a sublevel given by their counts (count[v + k]: how many
  // boards have value v); every threshold is one of level k's values.
  static int median(int k, const std::vector<std::uint64_t>& count);

 private:
  int pits_ = 0, k_ = 0;
  std::uint64_t held_ = 0;                        // a bit a pair held
  std::shared_ptr<const SublevelIndexer> order_;  // SublevelIndexer::shared(pits)
  std::vector<std::uint64_t> pair_bytes_;         // [p]: pair_offset(pits, k, p)
  std::vector<std::int8_t> thresholds_;           // [s]: t(s), s = 0..k
  LevelArray bits_;
  const std::uint64_t* words() const { return reinterpret_cast<const std::uint64_t*>(bits_.data()); }
};

}  // namespace kalah

// solver/db/bound_level.hpp — a level held as bounds for the search: one bit a board, whether
// its remainder value is above 0.
//
// Why. At equal memory a level of bounds holds about four times the boards of an exact packed
// level (solver/db/paired_level.hpp: 3.8-3.9 bits a board), and the search mostly needs no
// more than a bound near the database: a child whose bound lies outside the window needs no
// search (docs/search.md, "Levels of bounds"). The value stays exact: the search only uses
// the bit as the bounds it proves.
//
// Encoding. Level k's boards in pair order (solver/base/sublevel_index.hpp: pair p holds the
// boards with p or k - p seeds on the mover's side), one bit a board, set when the value v is
// above 0; pair p's bits start at bit 512 x (the 64-byte lines of the pairs before it), bit i
// of a pair in bit i % 64 of its little-endian 64-bit word i / 64. A set bit bounds v to
// [1 or 2 (v has k's parity), k], a clear one to [-k, 0 or -1]. A level may hold some of its
// pairs only (keep_pairs): the others are never read, and not counted in bytes().
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
  // Level k of `pits` pits a side over `bits`, bytes_for(pits, k) bytes laid out as above
  // (built by from_values, or a mapped cache file). Throws std::invalid_argument for another size.
  BoundLevel(int pits, int k, LevelArray bits);
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

  // The bit of the board `bits` (its pair held): its position, then its word's address (for a
  // prefetch) and the bit. M: the pit count when known at compile time (the search), else 0.
  template <int M = 0>
  std::uint64_t slot(base::u128 bits) const {
    assert(M == 0 || M == pits_);
    int p = 0;
    const std::uint64_t at = order_->template pair_position_t<M>(bits, k_, &p);
    assert(holds_pair(p));
    return 8 * pair_bytes_[p] + at;
  }
  const void* address_at(std::uint64_t slot) const { return words() + slot / 64; }
  bool above_at(std::uint64_t slot) const { return words()[slot / 64] >> (slot % 64) & 1; }
  bool above(base::u128 bits) const { return above_at(slot(bits)); }

  // The bounds of a board of level k whose bit is `above`, as remainder values.
  static int lower(int k, bool above) { return above ? 2 - k % 2 : -k; }
  static int upper(int k, bool above) { return above ? k : -(k % 2); }

 private:
  int pits_ = 0, k_ = 0;
  std::uint64_t held_ = 0;                        // a bit a pair held
  std::shared_ptr<const SublevelIndexer> order_;  // SublevelIndexer::shared(pits)
  std::vector<std::uint64_t> pair_bytes_;         // [p]: pair_offset(pits, k, p)
  LevelArray bits_;
  const std::uint64_t* words() const { return reinterpret_cast<const std::uint64_t*>(bits_.data()); }
};

}  // namespace kalah

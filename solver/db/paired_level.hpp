// solver/db/paired_level.hpp — one database level packed a pair of sublevels at a time: the
// layout a level takes when it is built in pieces (solver/db/builder.hpp, build_paired_level),
// so that levels 0..34 of Kalah(6, n) can be built and held in 24 GiB.
//
// Encoding. Pair p of level k (p = 0 .. k / 2) holds the boards with p or k - p seeds on the
// mover's side, in pair order (solver/base/sublevel_index.hpp), as one PackedLevel
// (solver/db/packed_level.hpp) with its own predictor weights and width. A probe sums the
// mover's pits to find the pair, ranks the two sides for the position in it (a few table
// reads that stay in the L1 cache), and reads the pair's line: one memory read, as for a
// PackedLevel. The pairs are independent: each is packed as soon as it is built.
#pragma once

#include <cassert>
#include <cstdint>
#include <memory>
#include <vector>

#include "solver/base/board_bits.hpp"
#include "solver/base/board_index.hpp"
#include "solver/base/board_range.hpp"
#include "solver/base/sublevel_index.hpp"
#include "solver/db/level.hpp"
#include "solver/db/packed_level.hpp"

namespace kalah {

class LevelView;

class PairedLevel {
 public:
  PairedLevel() = default;
  // Level k of `pits` pits a side with no pair yet: add_pair() adds pairs 0, 1, ... in turn.
  PairedLevel(int pits, int k);

  // Pack level k read through `values` (any layout: LevelView, solver/db/level_view.hpp), a
  // pair at a time. width as PackedLevel::pack (0: each pair's smallest). Throws
  // std::invalid_argument as PackedLevel::pack does.
  static PairedLevel pack(const BoardIndexer& indexer, int k, const LevelView& values, int width = 0, int threads = 0);
  // The same for a level of one byte a board in index order.
  static PairedLevel pack(const BoardIndexer& indexer, int k, const LevelArray& values, int width = 0, int threads = 0);

  // Add the next pair, packed over range(pairs()). Throws std::invalid_argument when it is not
  // that pair's (size, level, pits) or the level is complete.
  void add_pair(PackedLevel pair);
  // The boards of pair p in pair order, for packing or unpacking it.
  BoardRange range(int p) const { return BoardRange::pair(*order_, k_, p); }
  const SublevelIndexer& order() const { return *order_; }

  int level() const { return k_; }
  int pits() const { return pits_; }
  int pairs() const { return static_cast<int>(pairs_.size()); }
  bool complete() const { return pairs() == SublevelIndexer::pairs(k_); }
  // A partial level: only the pairs whose bit is set in `mask` kept, the others released
  // (empty; a probe of their boards is the caller's error: EndgameDatabase::holds). Requires
  // a complete level.
  void keep_pairs(std::uint64_t mask);
  bool holds_pair(int p) const { return p < pairs() && (held_ >> p & 1); }
  std::uint64_t held_pairs() const { return held_; }  // a bit a pair
  void make_private() {                               // PackedLevel::make_private of every pair
    for (PackedLevel& pair : pairs_) pair.make_private();
  }
  const PackedLevel& pair(int p) const { return pairs_[p]; }
  std::uint64_t size() const { return size_; }  // boards of the pairs held
  std::uint64_t bytes() const;                  // memory held by the pairs
  double bits_per_board() const { return size_ ? 8.0 * double(bytes()) / double(size_) : 0.0; }
  bool mapped() const;                 // some pair maps a packed raw cache
  std::uint64_t mapped_bytes() const;  // memory held by the pairs that map one

  // Where the board `bits` is stored: its pair in the top 8 bits, its position in the pair
  // below. A caller that prefetches and then reads ranks the board once.
  static constexpr int kSlotShift = 56;
  // M: the pit count when the caller knows it at compile time (the search), 0 when it does not.
  template <int M = 0>
  std::uint64_t slot(base::u128 bits) const {
    assert(M == 0 || M == pits_);
    int p = 0;
    const std::uint64_t at = order_->template pair_position_t<M>(bits, k_, &p);
    return static_cast<std::uint64_t>(p) << kSlotShift | at;
  }
  // Remainder value of the board `bits` at `slot`, and the line that reads, for a prefetch.
  template <int M = 0>
  int value_at(std::uint64_t slot, base::u128 bits) const {
    assert(static_cast<int>(slot >> kSlotShift) < pairs());
    return pairs_[slot >> kSlotShift].template value<M>(slot & kSlotMask, bits);
  }
  const void* address_at(std::uint64_t slot) const { return pairs_[slot >> kSlotShift].address(slot & kSlotMask); }
  // The same for the board `bits` of this (complete) level.
  int value(base::u128 bits) const { return value_at(slot(bits), bits); }
  const void* address(base::u128 bits) const { return address_at(slot(bits)); }

  // Every entry, one byte a board in index order (requires every pair).
  LevelArray unpack(const BoardIndexer& indexer, int threads = 0) const;
  // PackedLevel::check_image of every pair.
  void check_image(int threads = 0) const;

 private:
  int pits_ = 0, k_ = 0;
  std::uint64_t size_ = 0;
  std::uint64_t held_ = 0;  // a bit a pair held
  static constexpr std::uint64_t kSlotMask = (std::uint64_t(1) << kSlotShift) - 1;
  std::shared_ptr<const SublevelIndexer> order_;  // SublevelIndexer::shared(pits)
  std::vector<PackedLevel> pairs_;
};

}  // namespace kalah

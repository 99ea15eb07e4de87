// solver/db/level_view.hpp — a read-only view of one complete database level, whichever way it
// is held in memory: one byte a board (LevelArray, solver/db/level.hpp), packed in index order
// (PackedLevel, solver/db/packed_level.hpp) or packed by sublevel pairs (PairedLevel,
// solver/db/paired_level.hpp). The builder reads lower levels through it, and the database
// serves probes through it, so neither depends on the layout. A probe passes both the board's
// index in its level and its bits: the first two layouts read the index, a paired level
// ranks the bits its own way.
//
// A view does not own its level: the level must outlive it.
#pragma once

#include <cassert>
#include <cstdint>
#include <deque>
#include <span>
#include <vector>

#include "solver/base/board_bits.hpp"
#include "solver/db/level.hpp"
#include "solver/db/packed_level.hpp"
#include "solver/db/paired_level.hpp"

namespace kalah {

class LevelView {
 public:
  LevelView() = default;
  explicit LevelView(const LevelArray& bytes) : bytes_(bytes.data()), size_(bytes.size()) {}
  explicit LevelView(const PackedLevel& packed) : packed_(&packed), size_(packed.size()) {}
  explicit LevelView(const PairedLevel& paired) : paired_(&paired), size_(paired.size()) {}

  std::uint64_t size() const { return size_; }
  bool packed() const { return packed_ || paired_; }  // 2-4 bits a board, either order
  bool paired() const { return paired_ != nullptr; }

  // Where the board `bits` (cells as bytes) with `index` in this level is stored: the index,
  // or for a level packed by pairs its slot (PairedLevel::slot). Probes by slot, after a
  // prefetch by slot, rank the board once.
  std::uint64_t slot(std::uint64_t index, base::u128 bits) const { return paired_ ? paired_->slot(bits) : index; }
  // The same when the index costs work: index() is called only for a layout that reads it.
  // M: the pit count when the caller knows it at compile time (the search), 0 when it does not.
  template <int M = 0, class IndexFn>
  std::uint64_t slot_of(base::u128 bits, IndexFn&& index) const {
    return paired_ ? paired_->template slot<M>(bits) : index();
  }
  template <int M = 0>
  int value_at(std::uint64_t slot, base::u128 bits) const {
    if (bytes_) return bytes_[slot];
    if (packed_) return packed_->template value<M>(slot, bits);
    return paired_->template value_at<M>(slot, bits);
  }
  const void* address_at(std::uint64_t slot) const {
    if (bytes_) return bytes_ + slot;
    if (packed_) return packed_->address(slot);
    return paired_->address_at(slot);
  }

  // Remainder value of the board `bits` at `index` in this level.
  int value(std::uint64_t index, base::u128 bits) const {
    assert(index < size_);
    return paired_ ? paired_->value(bits) : value_at(index, bits);
  }
  // The memory a value() of the same board reads first, for a prefetch.
  const void* address(std::uint64_t index, base::u128 bits) const { return address_at(slot(index, bits)); }

 private:
  const std::int8_t* bytes_ = nullptr;
  const PackedLevel* packed_ = nullptr;
  const PairedLevel* paired_ = nullptr;
  std::uint64_t size_ = 0;
};

// Complete levels 0, 1, ... owned in either layout, with a view of each. A level never moves
// once added (deques), so the views stay valid as levels are added.
class HeldLevels {
 public:
  const LevelView& add(LevelArray level) { return views_.emplace_back(bytes_.emplace_back(std::move(level))); }
  const LevelView& add(PackedLevel level) { return views_.emplace_back(packed_.emplace_back(std::move(level))); }
  const LevelView& add(PairedLevel level) { return views_.emplace_back(paired_.emplace_back(std::move(level))); }
  std::span<const LevelView> views() const { return views_; }
  int size() const { return static_cast<int>(views_.size()); }
  // The level added last, in the layout it was added in (requires one).
  const LevelArray& last_bytes() const { return bytes_.back(); }
  const PackedLevel& last_packed() const { return packed_.back(); }
  const PairedLevel& last_paired() const { return paired_.back(); }

 private:
  std::deque<LevelArray> bytes_;
  std::deque<PackedLevel> packed_;
  std::deque<PairedLevel> paired_;
  std::vector<LevelView> views_;
};

}  // namespace kalah

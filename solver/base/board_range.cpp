#include "solver/base/board_range.hpp"

#include <cassert>

namespace kalah {

Board BoardRange::board(std::uint64_t position) const {
  assert(position < size_);
  if (ix_) return ix_->board(k_, position);
  const std::uint64_t first = sx_->count(k_, pair_);
  const int s = position < first ? pair_ : k_ - pair_;
  return sx_->board(k_, sx_->first(k_, s) + (position < first ? position : position - first));
}

void BoardRange::next(Board& b) const {
  if (ix_) {
    [[maybe_unused]] const bool more = ix_->next(b);
    assert(more);
    return;
  }
  // The mover's side varies fastest, then the opponent's; after the first sublevel's last
  // board comes the second's first (all seeds in each side's last pit).
  if (sx_->next_side(b.cells.data())) return;
  if (sx_->next_side(b.cells.data() + pits_)) return;
  int s = 0;
  for (int i = 0; i < pits_; ++i) s += b.cells[i];
  assert(s == pair_ && 2 * pair_ != k_);
  b = Board{};
  b.cells[pits_ - 1] = static_cast<std::uint8_t>(k_ - pair_);
  b.cells[2 * pits_ - 1] = static_cast<std::uint8_t>(pair_);
}

std::uint64_t BoardRange::position(const Board& b) const {
  if (ix_) return ix_->index(b);
  int p = 0;
  const std::uint64_t at = sx_->pair_position(b, k_, &p);
  assert(p == pair_);
  return at;
}

}  // namespace kalah

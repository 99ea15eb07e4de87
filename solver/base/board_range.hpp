// solver/base/board_range.hpp — the boards of one database level in a storage order: either
// the whole level in index order (BoardIndexer, solver/base/board_index.hpp) or one pair of
// sublevels in pair order (SublevelIndexer, solver/base/sublevel_index.hpp). A packed level
// (solver/db/packed_level.hpp) is packed over a range: position i of the range holds board(i).
//
// A range refers to its indexer, which must outlive it.
#pragma once

#include <cassert>
#include <cstdint>

#include "engine/board.hpp"
#include "solver/base/board_index.hpp"
#include "solver/base/sublevel_index.hpp"

namespace kalah {

class BoardRange {
 public:
  // Level k in index order (requires k <= ix.max_seeds()).
  static BoardRange level(const BoardIndexer& ix, int k) {
    assert(0 <= k && k <= ix.max_seeds());
    BoardRange r;
    r.ix_ = &ix;
    r.pits_ = ix.pits();
    r.k_ = k;
    r.size_ = ix.count(k);
    return r;
  }
  // Pair p of level k in pair order (requires k <= sx.max_seeds(), 0 <= p <= k / 2).
  static BoardRange pair(const SublevelIndexer& sx, int k, int p) {
    assert(0 <= p && 2 * p <= k && k <= sx.max_seeds());
    BoardRange r;
    r.sx_ = &sx;
    r.pits_ = sx.pits();
    r.k_ = k;
    r.pair_ = p;
    r.size_ = sx.pair_size(k, p);
    return r;
  }

  int pits() const { return pits_; }
  int level() const { return k_; }
  int pair() const { return pair_; }  // -1 for a whole level
  std::uint64_t size() const { return size_; }

  // The board at `position` (requires position < size()).
  Board board(std::uint64_t position) const;
  // Step `b` to the board at the next position (requires b not to be the last).
  void next(Board& b) const;
  // Position of `b` in the range (requires b to lie in it).
  std::uint64_t position(const Board& b) const;

 private:
  const BoardIndexer* ix_ = nullptr;
  const SublevelIndexer* sx_ = nullptr;
  int pits_ = 0, k_ = 0, pair_ = -1;
  std::uint64_t size_ = 0;
};

}  // namespace kalah

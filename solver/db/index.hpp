// solver/db/index.hpp — the bijection between boards with exactly k seeds in the pits and
// the integers [0, count(k)), by the combinatorial number system.
//
// Encoding. Let n = 2m and c[0..n) be the cells of a mover-relative Board (engine/board.hpp:
// the mover's pits, then the opponent's, each in sowing order), summing to k. With the
// prefix sums P[i] = c[0] + ... + c[i], the board's index is
//     index(c) = sum over i = 0..n-2 of C(P[i] + i, i + 1)
// (the colexicographic rank of the (n-1)-subset {P[i] + i} of [0, k + n - 1), i.e. the
// "stars and bars" positions of the n-1 bars). It is a bijection onto [0, C(k+n-1, n-1)).
// Index order is the descending lexicographic order of the reversed cells (c[n-1], ...,
// c[0]): the board with all seeds in the last cell has index 0, the one with all seeds in
// cell 0 the last index. The last cell is implied by k.
// Levels k = 0..S together hold C(S+n, n) boards.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "engine/board.hpp"

namespace kalah {

class BoardIndexer {
 public:
  BoardIndexer() = default;
  // Tables for boards of `pits` pits a side with at most `max_seeds` seeds in the pits.
  // Throws std::invalid_argument when a level would not fit in 63 bits.
  BoardIndexer(int pits, int max_seeds);

  int pits() const { return m_; }
  int max_seeds() const { return max_seeds_; }

  // C(n, r) for n <= max_seeds + 2m, r <= 2m (0 when r > n).
  std::uint64_t binomial(int n, int r) const { return r > n ? 0 : binom_[n * (kCells + 1) + r]; }
  // Boards with exactly k seeds: C(k + 2m - 1, 2m - 1).
  std::uint64_t count(int k) const { return binomial(k + 2 * m_ - 1, 2 * m_ - 1); }
  // Boards with at most k seeds, all levels 0..k: C(k + 2m, 2m).
  std::uint64_t count_upto(int k) const { return binomial(k + 2 * m_, 2 * m_); }

  // Index of `b` within its level (requires seeds(b) <= max_seeds()).
  std::uint64_t index(const Board& b) const {
    std::uint64_t r = 0;
    int prefix = 0;
    const int last = 2 * m_ - 1;
    for (int i = 0; i < last; ++i) {
      prefix += b.cells[i];
      r += term_[i * stride_ + prefix];
    }
    return r;
  }
  // The board with k seeds and index `idx` (requires idx < count(k)).
  Board board(int k, std::uint64_t idx) const;
  // Step `b` (k seeds) to the board with the next index; returns false (b unspecified)
  // after the last one.
  bool next(Board& b) const;

  // term(i, p) = C(p + i, i + 1), the contribution of cell i when the prefix sum is p.
  std::uint64_t term(int i, int p) const { return term_[i * stride_ + p]; }

 private:
  static constexpr int kCells = 2 * kMaxPits;
  int m_ = 0;
  int max_seeds_ = -1;
  int stride_ = 0;
  std::vector<std::uint64_t> binom_;  // [n][r], n <= max_seeds + 2m, r <= kCells
  std::vector<std::uint64_t> term_;   // [i][p], i < 2m - 1, p <= max_seeds
};

}  // namespace kalah

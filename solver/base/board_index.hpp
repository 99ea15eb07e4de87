// solver/base/board_index.hpp — the combinatorial rank of boards: the bijection between
// boards with exactly k seeds in the pits and [0, count(k)) (an endgame database level's
// index), and between boards with at most K seeds and [0, count_upto(K)) (a transposition
// table key). The one implementation both use.
//
// Encoding. Let n = 2m and c[0..n) be the cells of a mover-relative Board (engine/board.hpp:
// the mover's pits, then the opponent's, each in sowing order), summing to k. With the
// prefix sums P[i] = c[0] + ... + c[i], the term of cell i is C(P[i] + i, i + 1) and
//     index(c) = sum over i = 0..n-2 of term(i, P[i])
// (the colexicographic rank of the (n-1)-subset {P[i] + i} of [0, k + n - 1), i.e. the
// "stars and bars" positions of the n-1 bars). It is a bijection onto [0, C(k+n-1, n-1)).
// Index order is the descending lexicographic order of the reversed cells (c[n-1], ...,
// c[0]): the board with all seeds in the last cell has index 0, the one with all seeds in
// cell 0 the last index. The last cell is implied by k.
// Adding the last cell's term, term(n-1, k) = C(k + n - 1, n) = count_upto(k - 1), gives
//     rank(c) = index(c) + count_upto(k - 1)
// a bijection between boards with at most K seeds and [0, C(K+n, n)), levels in order.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "engine/board.hpp"
#include "solver/base/board_bits.hpp"

namespace kalah {

class BoardIndexer {
 public:
  // Rows of the term table are this long: a prefix sum is a byte.
  static constexpr int kTermStride = 256;

  BoardIndexer() = default;
  // Tables for boards of `pits` pits a side with at most `max_seeds` seeds in the pits.
  // Throws std::invalid_argument when the boards would not fit in 63 bits.
  BoardIndexer(int pits, int max_seeds);

  int pits() const { return m_; }
  int max_seeds() const { return max_seeds_; }

  // C(n, r) for n <= max_seeds + 2m, r <= 2m (0 when r > n).
  std::uint64_t binomial(int n, int r) const { return r > n ? 0 : binom_[n * (kCells + 1) + r]; }
  // Boards with exactly k seeds: C(k + 2m - 1, 2m - 1).
  std::uint64_t count(int k) const { return binomial(k + 2 * m_ - 1, 2 * m_ - 1); }
  // Boards with at most k seeds, all levels 0..k: C(k + 2m, 2m) (0 for k < 0).
  std::uint64_t count_upto(int k) const { return k < 0 ? 0 : binomial(k + 2 * m_, 2 * m_); }

  // Index of `b` within its level (requires seeds(b) <= max_seeds()).
  std::uint64_t index(const Board& b) const {
    std::uint64_t r = 0;
    int prefix = 0;
    const int last = 2 * m_ - 1;
    for (int i = 0; i < last; ++i) {
      prefix += b.cells[i];
      r += term(i, prefix);
    }
    return r;
  }
  // Rank of `b` among all boards with at most max_seeds() seeds.
  std::uint64_t rank(const Board& b) const {
    int k = 0;
    for (int i = 0; i < 2 * m_; ++i) k += b.cells[i];
    return index(b) + term(2 * m_ - 1, k);
  }
  // The same for a compile-time pit count M == pits() and a board as bits: the prefix sums
  // of all cells at once, then one read a cell.
  template <int M>
  std::uint64_t index_m(base::u128 bits) const {
    return sum_terms<2 * M - 1>(bits);
  }
  template <int M>
  std::uint64_t rank_m(base::u128 bits) const {
    return sum_terms<2 * M>(bits);
  }

  // The board with k seeds and index `idx` (requires idx < count(k)).
  Board board(int k, std::uint64_t idx) const;
  // Step `b` (k seeds) to the board with the next index; returns false (b unspecified)
  // after the last one.
  bool next(Board& b) const;

  // term(i, p) = C(p + i, i + 1), the contribution of cell i when the prefix sum is p
  // (i < 2m, p <= max_seeds).
  std::uint64_t term(int i, int p) const { return term_[static_cast<std::size_t>(i) * kTermStride + p]; }

 private:
  static constexpr int kCells = 2 * kMaxPits;

  template <int Cells>
  std::uint64_t sum_terms(base::u128 bits) const {
    alignas(16) std::uint8_t pre[16];
    const base::u128 p = base::prefix_sums(bits);
    std::memcpy(pre, &p, sizeof pre);
    const std::uint64_t* t = term_.data();
    std::uint64_t r = 0;
    for (int i = 0; i < Cells; ++i) r += t[i * kTermStride + pre[i]];
    return r;
  }

  int m_ = 0;
  int max_seeds_ = -1;
  std::vector<std::uint64_t> binom_;  // [n][r], n <= max_seeds + 2m, r <= kCells
  std::vector<std::uint64_t> term_;   // [i][p], i < 2m, p <= max_seeds (stride kTermStride)
};

}  // namespace kalah

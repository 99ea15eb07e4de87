// solver/base/sublevel_index.hpp — an order of a database level by sublevels: the first
// brick of building a level a few sublevels at a time (issue 14: levels 0..34 in 24 GiB).
//
// Sublevel (k, s) holds the boards of level k with s seeds on the mover's side (cells
// c[0..m)) and k - s on the opponent's (c[m..2m)). A sowing that banks nothing stays on the
// mover's side and passes the turn, so inside level k it leads from sublevel (k, s) only to
// (k, k - s), seen from the opponent: each pair {s, k - s} is closed under same-level moves
// and can be computed on its own once the lower levels are complete (sublevel_index_test
// checks this for every rule set). Sublevel (k, s) has sides(s) x sides(k - s) boards, where
// sides(t) = C(t + m - 1, m - 1) is the number of ways to put t seeds in m pits.
//
// Encoding. A side's rank is the colexicographic rank of its composition, as BoardIndexer
// ranks a whole board: with prefix sums P[i] = c[0] + ... + c[i], the sum over i < m - 1 of
// C(P[i] + i, i + 1). A board's position in its sublevel is
//     rank(opponent's side) x sides(s) + rank(mover's side)
// (the mover's pits vary fastest, as in index order), and in its level
//     first(k, s) + position in the sublevel,   first(k, s) = boards of sublevels (k, 0..s-1).
// position() is a bijection of level k onto [0, BoardIndexer::count(k)).
//
// Pairs. Pair p of level k (p = 0 .. k / 2) is sublevel (k, p) followed by sublevel (k, k - p)
// (one sublevel when 2p = k). A board's position in its pair is its position in its sublevel,
// plus count(k, p) when it lies in the second one. A level packed a pair at a time
// (solver/db/paired_level.hpp) stores its boards so.
#pragma once

#include <cassert>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "engine/board.hpp"
#include "solver/base/board_bits.hpp"

namespace kalah {

class SublevelIndexer {
 public:
  SublevelIndexer() = default;
  // Tables for `pits` pits a side and levels of at most `max_seeds` seeds.
  SublevelIndexer(int pits, int max_seeds);
  // One indexer of `pits` pits for every level (127 seeds), shared by the process: the levels
  // of a database then probe through one set of small tables.
  static std::shared_ptr<const SublevelIndexer> shared(int pits);

  int pits() const { return m_; }
  int max_seeds() const { return max_seeds_; }

  // Compositions of t seeds into the m pits of one side: C(t + m - 1, m - 1).
  std::uint64_t sides(int t) const { return binomial(t + m_ - 1, m_ - 1); }
  // Boards of sublevel (k, s), and the boards of sublevels (k, 0..s-1) before it.
  std::uint64_t count(int k, int s) const { return sides(s) * sides(k - s); }
  std::uint64_t first(int k, int s) const { return first_[static_cast<std::size_t>(k) * (max_seeds_ + 2) + s]; }

  // Rank of the side cells[0..m) holding t seeds, in [0, sides(t)).
  std::uint64_t side_rank(const std::uint8_t* cells) const {
    std::uint64_t r = 0;
    int prefix = 0;
    for (int i = 0; i + 1 < m_; ++i) {
      prefix += cells[i];
      r += binomial(prefix + i, i + 1);
    }
    return r;
  }
  // Pairs of level k, and the boards of pair p.
  static int pairs(int k) { return k / 2 + 1; }
  // The pair of a board of level k with s seeds on the mover's side.
  static int pair_of_side(int k, int s) { return s <= k - s ? s : k - s; }
  // The pair of the board `bits` of level k, `pits` a side (its mover's cells summed at once).
  static int pair_of(int pits, int k, base::u128 bits) {
    const std::uint64_t low = static_cast<std::uint64_t>(bits);
    const std::uint64_t own = pits >= 8 ? low : low & ((std::uint64_t(1) << (8 * pits)) - 1);
    return pair_of_side(k, static_cast<int>((own * 0x0101010101010101ull) >> 56));  // byte sum: at most 255
  }
  std::uint64_t pair_size(int k, int p) const { return count(k, p) + (2 * p == k ? 0 : count(k, k - p)); }

  // Position of the board `bits` (k seeds) in its pair, and the seeds on the mover's side in
  // *side (the board's pair: pair_of_side). The ranks' prefix sums come from the whole board
  // at once, then one table read a cell.
  template <int M>
  [[gnu::always_inline]] std::uint64_t side_position_m(base::u128 bits, int k, int* side) const {
    alignas(16) std::uint8_t pre[16];
    const base::u128 sums = base::prefix_sums(bits);
    std::memcpy(pre, &sums, sizeof pre);
    const int s = pre[M - 1];
    assert(pre[2 * M - 1] == k && k <= max_seeds_);
    const std::uint64_t* t = term_.data();
    std::uint64_t mover = 0, opponent = 0;
    for (int i = 0; i + 1 < M; ++i) {
      mover += t[i * term_stride_ + pre[i]];
      opponent += t[i * term_stride_ + pre[M + i] - s];
    }
    *side = s;
    return pair_base_[static_cast<std::size_t>(k) * term_stride_ + s] + opponent * sides_[s] + mover;
  }
  // side_position_m<M> likewise (M = 0: the pit count known at run time).
  template <int M>
  [[gnu::always_inline]] std::uint64_t side_position_t(base::u128 bits, int k, int* side) const {
    if constexpr (M > 0)
      return side_position_m<M>(bits, k, side);
    else
      return side_position(bits, k, side);
  }
  std::uint64_t side_position(base::u128 bits, int k, int* side) const {
    switch (m_) {
      case 1: return side_position_m<1>(bits, k, side);
      case 2: return side_position_m<2>(bits, k, side);
      case 3: return side_position_m<3>(bits, k, side);
      case 4: return side_position_m<4>(bits, k, side);
      case 5: return side_position_m<5>(bits, k, side);
      case 6: return side_position_m<6>(bits, k, side);
      case 7: return side_position_m<7>(bits, k, side);
      default: return side_position_m<8>(bits, k, side);
    }
  }
  // The position in its pair and the pair, for a pit count known at compile time (M > 0), else
  // pair_position.
  template <int M>
  [[gnu::always_inline]] std::uint64_t pair_position_t(base::u128 bits, int k, int* pair) const {
    int side = 0;
    const std::uint64_t at = side_position_t<M>(bits, k, &side);
    *pair = pair_of_side(k, side);
    return at;
  }
  std::uint64_t pair_position(base::u128 bits, int k, int* pair) const {
    int side = 0;
    const std::uint64_t at = side_position(bits, k, &side);
    *pair = pair_of_side(k, side);
    return at;
  }
  // The same for a Board.
  std::uint64_t pair_position(const Board& b, int k, int* pair) const {
    return pair_position(base::to_bits(b), k, pair);
  }

  // Step `cells`, one side of t > 0 or 0 seeds, to the side of the next rank. Returns false
  // after the last rank (all seeds in cell 0), leaving the side at rank 0 (all in cell m - 1).
  bool next_side(std::uint8_t* cells) const;

  // Position of `b` (k seeds) in its level, and its sublevel in *s when given.
  std::uint64_t position(const Board& b, int* s = nullptr) const;
  // The board of level k at `position` (requires position < C(k + 2m - 1, 2m - 1)).
  Board board(int k, std::uint64_t position) const;

 private:
  std::uint64_t binomial(int n, int r) const { return r < 0 || r > n ? 0 : binom_[n * (m_ + 1) + r]; }
  // The side of t seeds with rank r into cells[0..m).
  void unrank_side(int t, std::uint64_t r, std::uint8_t* cells) const;

  int m_ = 0, max_seeds_ = 0;
  std::vector<std::uint64_t> binom_;      // C(n, r), n <= max_seeds + m, r <= m
  std::vector<std::uint64_t> first_;      // [k][s], s = 0..k+1
  int term_stride_ = 0;                   // max_seeds + 1
  std::vector<std::uint64_t> term_;       // [i][prefix]: C(prefix + i, i + 1), i < m - 1
  std::vector<std::uint64_t> sides_;      // [t]: sides(t)
  std::vector<std::uint64_t> pair_base_;  // [k][s]: where sublevel (k, s) starts in its pair
};

}  // namespace kalah

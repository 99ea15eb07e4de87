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
#pragma once

#include <cstdint>
#include <vector>

#include "engine/board.hpp"

namespace kalah {

class SublevelIndexer {
 public:
  SublevelIndexer() = default;
  // Tables for `pits` pits a side and levels of at most `max_seeds` seeds.
  SublevelIndexer(int pits, int max_seeds);

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
  // Position of `b` (k seeds) in its level, and its sublevel in *s when given.
  std::uint64_t position(const Board& b, int* s = nullptr) const;
  // The board of level k at `position` (requires position < C(k + 2m - 1, 2m - 1)).
  Board board(int k, std::uint64_t position) const;

 private:
  std::uint64_t binomial(int n, int r) const { return r < 0 || r > n ? 0 : binom_[n * (m_ + 1) + r]; }
  // The side of t seeds with rank r into cells[0..m).
  void unrank_side(int t, std::uint64_t r, std::uint8_t* cells) const;

  int m_ = 0, max_seeds_ = 0;
  std::vector<std::uint64_t> binom_;  // C(n, r), n <= max_seeds + m, r <= m
  std::vector<std::uint64_t> first_;  // [k][s], s = 0..k+1
};

}  // namespace kalah

#include "solver/base/board_index.hpp"

#include <limits>
#include <string>

namespace kalah {

BoardIndexer::BoardIndexer(int pits, int max_seeds) : m_(pits), max_seeds_(max_seeds) {
  if (pits < 1 || pits > kMaxPits) throw std::invalid_argument("pit count out of range 1..8");
  if (max_seeds < 0 || max_seeds > kMaxSeeds) throw std::invalid_argument("seed count out of range 0..255");
  const int rows = max_seeds + kCells + 1;
  binom_.assign(static_cast<std::size_t>(rows) * (kCells + 1), 0);
  constexpr std::uint64_t kLimit = std::numeric_limits<std::uint64_t>::max() / 2;
  for (int n = 0; n < rows; ++n) {
    binom_[n * (kCells + 1)] = 1;
    for (int r = 1; r <= kCells && r <= n; ++r) {
      const std::uint64_t a = binom_[(n - 1) * (kCells + 1) + r - 1];
      const std::uint64_t b = r <= n - 1 ? binom_[(n - 1) * (kCells + 1) + r] : 0;
      binom_[n * (kCells + 1) + r] = (a >= kLimit || b >= kLimit || a + b >= kLimit) ? kLimit : a + b;
    }
  }
  if (count_upto(max_seeds) >= kLimit)
    throw std::invalid_argument("boards of up to " + std::to_string(max_seeds) + " seeds on " + std::to_string(pits) +
                                "+" + std::to_string(pits) + " pits are too many to rank in 63 bits");
  term_.assign(static_cast<std::size_t>(2 * m_) * kTermStride, 0);
  for (int i = 0; i < 2 * m_; ++i)
    for (int p = 0; p <= max_seeds; ++p) term_[static_cast<std::size_t>(i) * kTermStride + p] = binomial(p + i, i + 1);
}

Board BoardIndexer::board(int k, std::uint64_t idx) const {
  Board b;
  const int n = 2 * m_;
  int above = k;  // P[i+1], with P[n-1] = k
  for (int i = n - 2; i >= 0; --i) {
    // Largest prefix p <= above with term(i, p) <= idx.
    int p = above;
    while (p > 0 && term(i, p) > idx) --p;
    idx -= term(i, p);
    b.cells[i + 1] = static_cast<std::uint8_t>(above - p);
    above = p;
  }
  b.cells[0] = static_cast<std::uint8_t>(above);
  return b;
}

bool BoardIndexer::next(Board& b) const {
  // Colex successor of the subset {P[i] + i}: with t the first non-empty cell after cell 0,
  // cells 0..t-1 (only cell 0 can hold seeds) collapse into cell t-1 plus one seed from t.
  const int n = 2 * m_;
  int t = 1;
  while (t < n && b.cells[t] == 0) ++t;
  if (t == n) return false;
  const int low = b.cells[0];
  b.cells[0] = 0;
  b.cells[t - 1] = static_cast<std::uint8_t>(low + 1);
  --b.cells[t];
  return true;
}

}  // namespace kalah

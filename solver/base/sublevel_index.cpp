#include "solver/base/sublevel_index.hpp"

#include <cassert>
#include <mutex>
#include <stdexcept>

namespace kalah {

SublevelIndexer::SublevelIndexer(int pits, int max_seeds) : m_(pits), max_seeds_(max_seeds) {
  if (pits < 1 || pits > kMaxPits || max_seeds < 0 || max_seeds > 127)
    throw std::invalid_argument("SublevelIndexer: pits 1..8 and at most 127 seeds");
  const int rows = max_seeds + m_ + 1;
  binom_.assign(static_cast<std::size_t>(rows) * (m_ + 1), 0);
  for (int n = 0; n < rows; ++n) {
    binom_[n * (m_ + 1)] = 1;
    for (int r = 1; r <= m_ && r <= n; ++r)
      binom_[n * (m_ + 1) + r] = binom_[(n - 1) * (m_ + 1) + r - 1] + (r <= n - 1 ? binom_[(n - 1) * (m_ + 1) + r] : 0);
  }
  first_.assign(static_cast<std::size_t>(max_seeds + 1) * (max_seeds + 2), 0);
  for (int k = 0; k <= max_seeds; ++k)
    for (int s = 0; s <= k; ++s)
      first_[static_cast<std::size_t>(k) * (max_seeds + 2) + s + 1] = first(k, s) + count(k, s);
  term_stride_ = max_seeds + 1;
  term_.assign(static_cast<std::size_t>(m_) * term_stride_, 0);
  for (int i = 0; i + 1 < m_; ++i)
    for (int p = 0; p <= max_seeds; ++p) term_[static_cast<std::size_t>(i) * term_stride_ + p] = binomial(p + i, i + 1);
  sides_.resize(term_stride_);
  for (int t = 0; t <= max_seeds; ++t) sides_[t] = sides(t);
  pair_base_.assign(static_cast<std::size_t>(term_stride_) * term_stride_, 0);
  for (int k = 0; k <= max_seeds; ++k)
    for (int s = 0; s <= k; ++s)
      pair_base_[static_cast<std::size_t>(k) * term_stride_ + s] = 2 * s > k ? count(k, k - s) : 0;
}

std::shared_ptr<const SublevelIndexer> SublevelIndexer::shared(int pits) {
  if (pits < 1 || pits > kMaxPits) throw std::invalid_argument("SublevelIndexer: pits 1..8");
  static std::mutex mutex;
  static std::shared_ptr<const SublevelIndexer> made[kMaxPits + 1];
  const std::lock_guard<std::mutex> lock(mutex);
  if (!made[pits]) made[pits] = std::make_shared<const SublevelIndexer>(pits, 127);
  return made[pits];
}

bool SublevelIndexer::next_side(std::uint8_t* cells) const {
  // As BoardIndexer::next on one side: the first non-empty cell t after cell 0 gives a seed
  // to cell t - 1, which also takes cell 0's.
  int t = 1;
  while (t < m_ && cells[t] == 0) ++t;
  if (t == m_) {
    cells[m_ - 1] = cells[0];
    if (m_ > 1) cells[0] = 0;
    return false;
  }
  const int low = cells[0];
  cells[0] = 0;
  cells[t - 1] = static_cast<std::uint8_t>(low + 1);
  --cells[t];
  return true;
}

std::uint64_t SublevelIndexer::position(const Board& b, int* s_out) const {
  int s = 0, k = 0;
  for (int i = 0; i < m_; ++i) s += b.cells[i];
  k = s;
  for (int i = m_; i < 2 * m_; ++i) k += b.cells[i];
  assert(k <= max_seeds_);
  if (s_out) *s_out = s;
  return first(k, s) + side_rank(b.cells.data() + m_) * sides(s) + side_rank(b.cells.data());
}

void SublevelIndexer::unrank_side(int t, std::uint64_t r, std::uint8_t* cells) const {
  // As BoardIndexer::board for one side: from the last prefix sum down.
  int above = t;
  for (int i = m_ - 2; i >= 0; --i) {
    int p = above;
    while (p > 0 && binomial(p + i, i + 1) > r) --p;
    r -= binomial(p + i, i + 1);
    cells[i + 1] = static_cast<std::uint8_t>(above - p);
    above = p;
  }
  cells[0] = static_cast<std::uint8_t>(above);
}

Board SublevelIndexer::board(int k, std::uint64_t position) const {
  assert(0 <= k && k <= max_seeds_);
  int s = 0;
  while (s < k && first(k, s + 1) <= position) ++s;
  const std::uint64_t at = position - first(k, s);
  Board b{};
  unrank_side(s, at % sides(s), b.cells.data());
  unrank_side(k - s, at / sides(s), b.cells.data() + m_);
  return b;
}

}  // namespace kalah

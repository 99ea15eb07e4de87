#include "solver/db/bound_level.hpp"

#include <omp.h>

#include <algorithm>
#include <cassert>
#include <cstring>
#include <stdexcept>
#include <string>

namespace kalah {

std::uint64_t BoundLevel::pair_offset(int pits, int k, int p) {
  const SublevelIndexer& order = *SublevelIndexer::shared(pits);
  std::uint64_t bytes = 0;
  for (int q = 0; q < p; ++q) bytes += (order.pair_size(k, q) + 511) / 512 * 64;
  return bytes;
}

std::uint64_t BoundLevel::bytes_for(int pits, int k) { return pair_offset(pits, k, SublevelIndexer::pairs(k)); }

BoundLevel::BoundLevel(int pits, int k, LevelArray bits, std::vector<std::int8_t> thresholds)
    : pits_(pits),
      k_(k),
      order_(SublevelIndexer::shared(pits)),
      thresholds_(std::move(thresholds)),
      bits_(std::move(bits)) {
  if (k < 0 || k > order_->max_seeds() || bits_.size() != bytes_for(pits, k))
    throw std::invalid_argument("BoundLevel: " + std::to_string(bits_.size()) + " bytes are not the bits of level " +
                                std::to_string(k) + " of " + std::to_string(pits) + " pits");
  if (thresholds_.size() != static_cast<std::size_t>(k) + 1)
    throw std::invalid_argument("BoundLevel: " + std::to_string(thresholds_.size()) +
                                " thresholds for the sublevels 0.." + std::to_string(k) + " of level " +
                                std::to_string(k));
  for (const int t : thresholds_)
    if (t < -k || t > k || (t + k) % 2 != 0)
      throw std::invalid_argument("BoundLevel: the threshold " + std::to_string(t) + " is not a value of level " +
                                  std::to_string(k));
  for (int p = 0; p <= SublevelIndexer::pairs(k); ++p) pair_bytes_.push_back(pair_offset(pits, k, p));
  held_ = all_pairs(k);
}

int BoundLevel::median(int k, const std::vector<std::uint64_t>& count) {
  assert(count.size() == 2 * static_cast<std::size_t>(k) + 1);
  std::uint64_t n = 0;
  for (const std::uint64_t c : count) n += c;
  std::uint64_t below = 0;  // boards of value at most v
  for (int v = -k; v < k; v += 2) {
    below += count[static_cast<std::size_t>(v + k)];
    if (below >= (n + 1) / 2) return v;  // the value at index (n - 1) / 2 in sorted order
  }
  return k;
}

BoundLevel BoundLevel::from_values(const PairedLevel& exact, int threads) {
  if (!exact.complete()) throw std::invalid_argument("BoundLevel::from_values: the exact level is incomplete");
  if (threads <= 0) threads = omp_get_max_threads();
  const int pits = exact.pits(), k = exact.level();
  const SublevelIndexer& order = *SublevelIndexer::shared(pits);
  LevelArray bits(bytes_for(pits, k));
  std::memset(bits.data(), 0, bits.size());
  auto* words = reinterpret_cast<std::uint64_t*>(bits.data());
  std::vector<std::int8_t> thresholds(static_cast<std::size_t>(k) + 1);
  for (int p = 0; p < exact.pairs(); ++p) {
    const LevelArray values = exact.pair(p).unpack(exact.range(p), threads);
    // The pair's first sublevel (p seeds on the mover's side), then the second (k - p).
    const std::uint64_t first_end = order.count(k, p);
    for (int half = 0; half < (2 * p == k ? 1 : 2); ++half) {  // one sublevel when 2p = k
      const int s = half == 0 ? p : k - p;
      const std::uint64_t from = s == p ? 0 : first_end, to = s == p ? first_end : values.size();
      std::vector<std::uint64_t> count(2 * static_cast<std::size_t>(k) + 1);
      for (std::uint64_t i = from; i < to; ++i) ++count[static_cast<std::size_t>(values[i] + k)];
      for (std::size_t u = 1; u < count.size(); u += 2)  // the bounds rely on every value having k's parity
        if (count[u] != 0)
          throw std::logic_error("BoundLevel::from_values: a value of level " + std::to_string(k) +
                                 " without its parity");
      thresholds[static_cast<std::size_t>(s)] = static_cast<std::int8_t>(median(k, count));
    }
    const int t_first = thresholds[static_cast<std::size_t>(p)], t_second = thresholds[static_cast<std::size_t>(k - p)];
    std::uint64_t* pair = words + pair_offset(pits, k, p) / 8;
    const auto n_words = static_cast<std::int64_t>((values.size() + 63) / 64);
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::int64_t w = 0; w < n_words; ++w) {
      std::uint64_t word = 0;
      const std::uint64_t first = static_cast<std::uint64_t>(w) * 64;
      const std::uint64_t end = std::min<std::uint64_t>(first + 64, values.size());
      for (std::uint64_t i = first; i < end; ++i)
        word |= std::uint64_t(values[i] > (i < first_end ? t_first : t_second)) << (i - first);
      pair[w] = word;
    }
  }
  return BoundLevel(pits, k, std::move(bits), std::move(thresholds));
}

std::uint64_t BoundLevel::bytes() const {
  std::uint64_t bytes = 0;
  for (int p = 0; p < SublevelIndexer::pairs(k_); ++p)
    if (holds_pair(p)) bytes += pair_bytes_[p + 1] - pair_bytes_[p];
  return bytes;
}

}  // namespace kalah

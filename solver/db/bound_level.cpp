#include "solver/db/bound_level.hpp"

#include <omp.h>

#include <algorithm>
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

BoundLevel::BoundLevel(int pits, int k, LevelArray bits)
    : pits_(pits), k_(k), order_(SublevelIndexer::shared(pits)), bits_(std::move(bits)) {
  if (k < 0 || k > order_->max_seeds() || bits_.size() != bytes_for(pits, k))
    throw std::invalid_argument("BoundLevel: " + std::to_string(bits_.size()) + " bytes are not the bits of level " +
                                std::to_string(k) + " of " + std::to_string(pits) + " pits");
  for (int p = 0; p <= SublevelIndexer::pairs(k); ++p) pair_bytes_.push_back(pair_offset(pits, k, p));
  held_ = all_pairs(k);
}

BoundLevel BoundLevel::from_values(const PairedLevel& exact, int threads) {
  if (!exact.complete()) throw std::invalid_argument("BoundLevel::from_values: the exact level is incomplete");
  if (threads <= 0) threads = omp_get_max_threads();
  const int pits = exact.pits(), k = exact.level();
  LevelArray bits(bytes_for(pits, k));
  std::memset(bits.data(), 0, bits.size());
  auto* words = reinterpret_cast<std::uint64_t*>(bits.data());
  for (int p = 0; p < exact.pairs(); ++p) {
    const LevelArray values = exact.pair(p).unpack(exact.range(p), threads);
    std::uint64_t* pair = words + pair_offset(pits, k, p) / 8;
    const auto n_words = static_cast<std::int64_t>((values.size() + 63) / 64);
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::int64_t w = 0; w < n_words; ++w) {
      std::uint64_t word = 0;
      const std::uint64_t first = static_cast<std::uint64_t>(w) * 64;
      const std::uint64_t end = std::min<std::uint64_t>(first + 64, values.size());
      for (std::uint64_t i = first; i < end; ++i) word |= std::uint64_t(values[i] > 0) << (i - first);
      pair[w] = word;
    }
  }
  return BoundLevel(pits, k, std::move(bits));
}

std::uint64_t BoundLevel::bytes() const {
  std::uint64_t bytes = 0;
  for (int p = 0; p < SublevelIndexer::pairs(k_); ++p)
    if (holds_pair(p)) bytes += pair_bytes_[p + 1] - pair_bytes_[p];
  return bytes;
}

}  // namespace kalah

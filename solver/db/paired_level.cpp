#include "solver/db/paired_level.hpp"

#include <omp.h>

#include <bit>
#include <stdexcept>
#include <string>

#include "solver/db/level_view.hpp"
#include "solver/db/range_loop.hpp"

namespace kalah {

PairedLevel::PairedLevel(int pits, int k) : pits_(pits), k_(k), order_(SublevelIndexer::shared(pits)) {
  if (k < 0 || k > order_->max_seeds()) throw std::invalid_argument("PairedLevel: level out of range 0..127");
  // A slot keeps a pair's positions below 2^56.
  for (int p = 0; p < SublevelIndexer::pairs(k); ++p)
    if (order_->pair_size(k, p) >> kSlotShift)
      throw std::invalid_argument("PairedLevel: level " + std::to_string(k) + " of " + std::to_string(pits) +
                                  " pits has too many boards");
}

void PairedLevel::add_pair(PackedLevel pair) {
  if (complete()) throw std::invalid_argument("level " + std::to_string(k_) + " already holds all its pairs");
  const BoardRange r = range(pairs());
  if (pair.level() != k_ || pair.pits() != pits_ || pair.size() != r.size())
    throw std::invalid_argument("a packed pair that is not pair " + std::to_string(pairs()) + " of level " +
                                std::to_string(k_));
  size_ += pair.size();
  held_ |= std::uint64_t(1) << pairs();
  pairs_.push_back(std::move(pair));
}

void PairedLevel::keep_pairs(std::uint64_t mask) {
  if (!complete())
    throw std::invalid_argument("PairedLevel::keep_pairs: level " + std::to_string(k_) + " is incomplete");
  for (int p = 0; p < pairs(); ++p) {
    if (!holds_pair(p) || (mask >> p & 1)) continue;
    size_ -= pairs_[p].size();
    pairs_[p] = PackedLevel();
    held_ &= ~(std::uint64_t(1) << p);
  }
}

PairedLevel PairedLevel::pack(const BoardIndexer& ix, int k, const LevelView& values, int width, int threads) {
  if (k < 0 || k > ix.max_seeds() || values.size() != ix.count(k))
    throw std::invalid_argument("PairedLevel::pack: level out of range or values of another level");
  if (threads <= 0) threads = omp_get_max_threads();
  PairedLevel out(ix.pits(), k);
  // A pair at a time: memory holds the pair at a byte a board, not the level.
  for (int p = 0; p < SublevelIndexer::pairs(k); ++p) {
    const BoardRange r = out.range(p);
    LevelArray pair(r.size());
    for_each_in_range(r, threads, [&](std::uint64_t i, const Board& b, base::u128 bits) {
      pair[i] = static_cast<std::int8_t>(values.value(ix.index(b), bits));
    });
    out.add_pair(PackedLevel::pack(r, std::move(pair), width, threads));
  }
  return out;
}

PairedLevel PairedLevel::pack(const BoardIndexer& ix, int k, const LevelArray& values, int width, int threads) {
  return pack(ix, k, LevelView(values), width, threads);
}

std::uint64_t PairedLevel::bytes() const {
  std::uint64_t total = 0;
  for (const PackedLevel& p : pairs_) total += p.bytes();
  return total;
}

bool PairedLevel::mapped() const {
  for (const PackedLevel& p : pairs_)
    if (p.mapped()) return true;
  return false;
}

std::uint64_t PairedLevel::mapped_bytes() const {
  std::uint64_t total = 0;
  for (const PackedLevel& p : pairs_) total += p.mapped() ? p.bytes() : 0;
  return total;
}

LevelArray PairedLevel::unpack(const BoardIndexer& ix, int threads) const {
  if (!complete() || std::popcount(held_) != pairs() || ix.pits() != pits_ || k_ > ix.max_seeds())
    throw std::invalid_argument("PairedLevel::unpack: an incomplete level or an indexer of other boards");
  if (threads <= 0) threads = omp_get_max_threads();
  LevelArray out(ix.count(k_));
  for (int p = 0; p < pairs(); ++p) {
    const PackedLevel& pair = pairs_[p];
    for_each_in_range(range(p), threads, [&](std::uint64_t i, const Board& b, base::u128 bits) {
      out[ix.index(b)] = static_cast<std::int8_t>(pair.value(i, bits));
    });
  }
  return out;
}

void PairedLevel::check_image(int threads) const {
  for (int p = 0; p < pairs(); ++p) {
    if (!holds_pair(p)) continue;
    try {
      pairs_[p].check_image(threads);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("pair " + std::to_string(p) + ": " + e.what());
    }
  }
}

}  // namespace kalah

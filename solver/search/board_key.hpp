// solver/search/board_key.hpp — exact transposition-table keys for boards.
//
// Encoding. A board of the search holds at most K seeds in its 2m pits (K = the seeds in
// the pits of the root: seeds in the pits never increase). Adding a slack cell K - k makes
// it a composition of K into 2m+1 parts, ranked by the combinatorial number system: with
// partial sums P_j = c_0 + ... + c_j, the bars sit at p_j = P_j + j and
//     rank = sum_{j<2m} C(p_j, j+1)      in [0, C(K+2m, 2m)),
// a bijection between boards with at most K seeds and that range. The rank fits in B bits;
// a bijective mix on B bits (xor-shifts and odd multipliers mod 2^B) spreads it, and the mix
// is split into a bucket index (low bits) and a tag (the rest). (index, tag) determines the
// board exactly, so a table hit whose tag matches is never a false hit.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/board.hpp"

namespace kalah::search {

class BoardKey {
 public:
  struct Split {
    std::uint64_t index;  // bucket index, < 2^index_bits
    std::uint64_t tag;    // the remaining high bits, < 2^(bits - index_bits) (or 0)
  };

  BoardKey() = default;
  // Keys for boards of `pits` pits a side holding at most `max_seeds` seeds in the pits.
  // Throws std::length_error when the key space exceeds 63 bits.
  BoardKey(int pits, int max_seeds) : pits_(pits), max_seeds_(max_seeds) {
    __extension__ typedef unsigned __int128 u128;
    const int cells = 2 * pits;
    // C(n, r) for n <= max_seeds + cells, r <= cells, saturated at 2^64-1.
    const int rows = max_seeds + cells + 1;
    table_.assign(static_cast<std::size_t>(rows) * kCols, 0);
    std::vector<u128> prev(kCols, 0), cur(kCols, 0);
    u128 total = 0;
    for (int n = 0; n < rows; ++n) {
      for (int r = 0; r < kCols; ++r) {
        if (r == 0)
          cur[r] = 1;
        else if (n == 0)
          cur[r] = 0;
        else {
          cur[r] = prev[r - 1] + prev[r];
          const u128 cap = u128(1) << 100;  // keep the recurrence from overflowing
          if (cur[r] > cap) cur[r] = cap;
        }
        const u128 sat = cur[r] > u128(~std::uint64_t(0)) ? u128(~std::uint64_t(0)) : cur[r];
        table_[static_cast<std::size_t>(n) * kCols + r] = static_cast<std::uint64_t>(sat);
      }
      if (n == max_seeds + cells) total = cur[cells];
      prev.swap(cur);
    }
    bits_ = 1;
    while (bits_ < 100 && (u128(1) << bits_) < total) ++bits_;
    if (bits_ > 63)
      throw std::length_error("transposition-table keys for " + std::to_string(max_seeds) + " seeds in " +
                              std::to_string(pits) + "+" + std::to_string(pits) +
                              " pits need more than 63 bits; the position is too large to search");
    mask_ = (std::uint64_t(1) << bits_) - 1;
    boards_ = total > u128(~std::uint64_t(0)) ? ~std::uint64_t(0) : static_cast<std::uint64_t>(total);
    // term_[j][P] = C(P + j, j + 1) for the partial sums P <= max_seeds (rank_m's rows).
    term_.assign(static_cast<std::size_t>(cells) * kTermStride, 0);
    for (int j = 0; j < cells; ++j)
      for (int p = 0; p <= max_seeds && p < kTermStride; ++p)
        term_[static_cast<std::size_t>(j) * kTermStride + p] = table_[static_cast<std::size_t>(p + j) * kCols + (j + 1)];
  }

  int bits() const { return bits_; }
  int max_seeds() const { return max_seeds_; }
  // Boards with at most max_seeds seeds in the pits, C(max_seeds + 2m, 2m): the most a
  // transposition table can ever hold (saturated at 2^64 - 1).
  std::uint64_t boards() const { return boards_; }

  // Combinatorial rank of `b` (at most max_seeds seeds in the pits).
  std::uint64_t rank(const Board& b) const {
    std::uint64_t r = 0;
    int partial = 0;
    const int cells = 2 * pits_;
    for (int j = 0; j < cells; ++j) {
      partial += b.cells[j];
      r += table_[static_cast<std::size_t>(partial + j) * kCols + (j + 1)];
    }
    return r;
  }

  // The same for a compile-time pit count M == pits: the partial sums P_j of all cells at
  // once as byte-wise prefix sums of the 16 cell bytes (no byte overflows: at most 255 seeds),
  // then one read a cell in a row of precomputed terms.
  template <int M>
  std::uint64_t rank_m(const Board& b) const {
    __extension__ typedef unsigned __int128 u128;
    u128 p;
    std::memcpy(&p, b.cells.data(), sizeof p);
    p += p << 8;
    p += p << 16;
    p += p << 32;
    p += p << 64;
    alignas(16) std::uint8_t pre[16];
    std::memcpy(pre, &p, sizeof pre);
    std::uint64_t r = 0;
    const std::uint64_t* t = term_.data();
    for (int j = 0; j < 2 * M; ++j) r += t[j * kTermStride + pre[j]];
    return r;
  }

  // Bijective mix of a rank on bits() bits.
  std::uint64_t mix(std::uint64_t x) const {
    const int h = bits_ / 2 + 1;
    x ^= x >> h;
    x = (x * 0x9E3779B97F4A7C15ULL) & mask_;
    x ^= x >> (bits_ / 3 + 1);
    x = (x * 0xD6E8FEB86659FD93ULL) & mask_;
    x ^= x >> h;
    return x;
  }

  Split split(const Board& b, int index_bits) const { return split_rank(rank(b), index_bits); }
  template <int M>
  Split split_m(const Board& b, int index_bits) const {
    return split_rank(rank_m<M>(b), index_bits);
  }
  Split split_rank(std::uint64_t rank, int index_bits) const {
    const std::uint64_t x = mix(rank);
    return {x & ((std::uint64_t(1) << index_bits) - 1), index_bits >= bits_ ? 0 : x >> index_bits};
  }

 private:
  static constexpr int kCols = 2 * kMaxPits + 1;
  static constexpr int kTermStride = 256;  // a partial sum is a byte
  int pits_ = 0;
  int max_seeds_ = 0;
  int bits_ = 1;
  std::uint64_t mask_ = 1;
  std::uint64_t boards_ = 1;
  std::vector<std::uint64_t> table_;  // table_[n * kCols + r] = C(n, r)
  std::vector<std::uint64_t> term_;   // term_[j * kTermStride + P] = C(P + j, j + 1)
};

}  // namespace kalah::search

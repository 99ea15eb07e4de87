// solver/search/board_key.hpp — exact transposition-table keys for boards.
//
// Encoding. A board of the search holds at most K seeds in its 2m pits (K = the seeds in
// the pits of the root: seeds in the pits never increase). Its rank among all boards with at
// most K seeds (solver/base/board_index.hpp, BoardIndexer::rank) lies in [0, C(K+2m, 2m))
// and fits in B bits; a bijective mix on B bits (xor-shifts and odd multipliers mod 2^B)
// spreads it, and the mix is split into a bucket index (low bits) and a tag (the rest).
// (index, tag) determines the board exactly, so a table hit whose tag matches is never a
// false hit.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "engine/board.hpp"
#include "solver/base/board_index.hpp"

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
  BoardKey(int pits, int max_seeds) {
    try {
      rank_ = BoardIndexer(pits, max_seeds);
    } catch (const std::invalid_argument&) {
      throw std::length_error("transposition-table keys for " + std::to_string(max_seeds) + " seeds in " +
                              std::to_string(pits) + "+" + std::to_string(pits) +
                              " pits need more than 63 bits; the position is too large to search");
    }
    boards_ = rank_.count_upto(max_seeds);
    bits_ = 1;
    while (bits_ < 63 && (std::uint64_t(1) << bits_) < boards_) ++bits_;
    mask_ = (std::uint64_t(1) << bits_) - 1;
  }

  int bits() const { return bits_; }
  int max_seeds() const { return rank_.max_seeds(); }
  // Boards with at most max_seeds seeds in the pits, C(max_seeds + 2m, 2m): the most a
  // transposition table can ever hold.
  std::uint64_t boards() const { return boards_; }

  // Combinatorial rank of `b` (at most max_seeds seeds in the pits).
  std::uint64_t rank(const Board& b) const { return rank_.rank(b); }
  // The same for a compile-time pit count M == pits.
  template <int M>
  std::uint64_t rank_m(const Board& b) const {
    return rank_.rank_m<M>(base::to_bits(b));
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
  BoardIndexer rank_;
  int bits_ = 1;
  std::uint64_t mask_ = 1;
  std::uint64_t boards_ = 1;
};

}  // namespace kalah::search

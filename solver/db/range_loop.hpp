// solver/db/range_loop.hpp — f(position, board) for every board of a BoardRange
// (solver/base/board_range.hpp), in chunks of consecutive boards on several threads: each chunk
// unranks its first board once and steps to the next with next().
#pragma once

#include <algorithm>
#include <cstdint>

#include "solver/base/board_bits.hpp"
#include "solver/base/board_range.hpp"

namespace kalah {

// F: void(std::uint64_t position, const Board& board, base::u128 bits), safe to call from
// several threads at once (OpenMP, dynamic schedule over chunks of 2^16 boards).
template <class F>
void for_each_in_range(const BoardRange& range, int threads, F&& f) {
  const std::uint64_t size = range.size();
  constexpr std::uint64_t kChunk = std::uint64_t(1) << 16;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (std::uint64_t first = 0; first < size; first += kChunk) {
    const std::uint64_t end = std::min(size, first + kChunk);
    Board b = range.board(first);
    for (std::uint64_t i = first; i < end; ++i) {
      f(i, b, base::to_bits(b));
      if (i + 1 < end) range.next(b);
    }
  }
}

}  // namespace kalah

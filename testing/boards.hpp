// testing/boards.hpp — small helpers to write engine test cases: mover-relative boards
// from two lists (the mover's pits, the opponent's pits, each from its owner's left) and
// rule sets by option.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/board.hpp"
#include "engine/rules.hpp"

namespace kalah::test {

inline Board board_of(const std::vector<int>& mover, const std::vector<int>& opponent) {
  Board b;
  const int m = static_cast<int>(mover.size());
  for (int i = 0; i < m; ++i) {
    b.cells[i] = static_cast<std::uint8_t>(mover[i]);
    b.cells[m + i] = static_cast<std::uint8_t>(opponent[i]);
  }
  return b;
}

// The mover's pits of a board (for comparisons with readable failure messages).
inline std::vector<int> mover_pits(const Board& b, int m) {
  std::vector<int> v;
  for (int i = 0; i < m; ++i) v.push_back(b.cells[i]);
  return v;
}
inline std::vector<int> opponent_pits(const Board& b, int m) {
  std::vector<int> v;
  for (int i = 0; i < m; ++i) v.push_back(b.cells[m + i]);
  return v;
}

inline Rules kalah_rules(Capture capture, EndRule end = EndRule::Either) {
  Rules r;
  r.capture = capture;
  r.end = end;
  return r;
}

inline Rules relay_rules() { return Rules::preset("relay"); }

}  // namespace kalah::test

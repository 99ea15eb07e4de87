// solver/base/board_bits.hpp — a Board (engine/board.hpp) as one 128-bit integer, for the
// move generator and the ranks.
//
// Encoding: byte i of the integer is cell i of the Board (the mover's pits, then the
// opponent's, each in sowing order); bytes from 2m on are zero. Whole-board operations are
// then integer operations: a plain sowing is one addition, flipping the sides two shifts,
// and the prefix sums the ranks need (board_index.hpp) four shifted additions.
#pragma once

#include <cassert>
#include <cstdint>
#include <cstring>

#include "engine/board.hpp"

namespace kalah::base {

__extension__ typedef unsigned __int128 u128;

inline u128 to_bits(const Board& b) {
  u128 x;
  std::memcpy(&x, b.cells.data(), sizeof x);
  return x;
}
inline Board from_bits(u128 x) {
  Board b;
  std::memcpy(b.cells.data(), &x, sizeof x);
  return b;
}
inline int byte_of(u128 x, int i) { return static_cast<int>(static_cast<std::uint64_t>(x >> (8 * i)) & 0xff); }
// byte_of for a cell of the mover's side (i < kMaxPits = 8): one 64-bit shift, where a shift
// of the whole 128 bits by a variable amount takes several instructions.
inline int own_byte_of(u128 x, int i) {
  assert(0 <= i && i < kMaxPits);
  return static_cast<int>((static_cast<std::uint64_t>(x) >> (8 * i)) & 0xff);
}
inline u128 byte_at(int i, int v) { return static_cast<u128>(static_cast<unsigned>(v)) << (8 * i); }

// Byte i of the result is cells 0..i summed (no byte overflows: a board holds at most 255
// seeds).
inline u128 prefix_sums(u128 x) {
  x += x << 8;
  x += x << 16;
  x += x << 32;
  x += x << 64;
  return x;
}

}  // namespace kalah::base

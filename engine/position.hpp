// engine/position.hpp — an absolute Kalah position and its text format.
//
// Text format (used wherever a position is read or printed):
//     S1,S2,...,Sm/N1,...,Nm/storeS/storeN/X
// South's pits then North's, each listed from its owner's left (sowing order), then the two
// stores and the side to move X = S or N. Kalah(6,4) at the start:
//     4,4,4,4,4,4/4,4,4,4,4,4/0/0/S
// Limits: 1..8 pits a side, at most 255 seeds in pits and stores together.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "engine/board.hpp"

namespace kalah {

enum class Side : std::uint8_t { South = 0, North = 1 };
inline Side opponent(Side s) { return s == Side::South ? Side::North : Side::South; }
inline char side_letter(Side s) { return s == Side::South ? 'S' : 'N'; }
inline const char* side_name(Side s) { return s == Side::South ? "South" : "North"; }

// Thrown for malformed position text or sizes out of range; the message names the problem.
struct PositionError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

struct Position {
  int pits = 0;                                              // m, pits per side
  std::array<std::array<std::uint8_t, kMaxPits>, 2> side{};  // [Side][pit from owner's left]
  std::array<int, 2> store{};                                // [Side]
  Side to_move = Side::South;

  // Kalah(m, n) at the start. Throws PositionError when m or the seed total is out of range.
  static Position start(int pits, int seeds_per_pit);
  // Parse the text format. expected_pits > 0 also checks the pit count against it.
  static Position parse(std::string_view text, int expected_pits = 0);
  std::string to_text() const;

  int pit_seeds(Side s) const;
  int total_seeds() const { return pit_seeds(Side::South) + pit_seeds(Side::North) + store[0] + store[1]; }
  int store_of(Side s) const { return store[static_cast<int>(s)]; }
  int margin() const { return store[0] - store[1]; }  // South minus North, stores only
  // A start position: South to move, empty stores, every pit holding the same count (where
  // the pie rule applies).
  bool is_start() const;

  // The pits seen from the side to move (see board.hpp), and back.
  Board board() const;
  void set_board(const Board& b);  // b is seen from to_move

  bool operator==(const Position&) const = default;
};

// Check a board size: 1 <= m <= 8 and 2*m*n <= 255. Throws PositionError naming the limit.
void check_size(int pits, int seeds_per_pit);

}  // namespace kalah

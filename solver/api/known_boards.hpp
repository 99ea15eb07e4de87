// solver/api/known_boards.hpp — boards whose values are known before any search: an opening
// book (solver/book) answers from here first, for solve, openings, label and the explorer.
//
// A known board holds its remainder value for the mover (engine/board.hpp) and each legal
// sowing's value for the mover through that sowing (value_through: the seeds it banked
// plus, or minus, the value of the board it leads to). Both are exact under the value rules
// the source was built for. Implementations must allow find() from several threads at once.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "engine/board.hpp"
#include "engine/rules.hpp"

namespace kalah::api {

struct KnownBoard {
  int value = 0;                       // the board's remainder value for the mover
  std::array<int, kMaxPits> sowing{};  // [pit] the mover's value through sowing it
  std::uint8_t legal = 0;              // bit pit: sowing[pit] is a legal sowing's value
  bool is_legal(int pit) const { return (legal >> pit) & 1; }
};

class KnownBoards {
 public:
  virtual ~KnownBoards() = default;
  virtual int pits() const = 0;
  virtual Rules value_rules() const = 0;  // the rules its values hold under (Rules::value_rules)
  virtual std::string name() const = 0;   // for messages and reports (e.g. the book's file)
  // Fills `out` and returns true when `b` (seen from its mover) is known.
  virtual bool find(const Board& b, KnownBoard& out) const = 0;
};

}  // namespace kalah::api

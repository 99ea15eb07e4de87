// engine/notation.hpp — game records: the Finnish notation and the Irving et al. notation.
//
// Finnish (seed 001): turns separated by commas, each comma item "South's sowings-North's
// sowings"; a side may be empty ("2-", "-63*"). Pits are 1-based from the owner's left,
// the sowings of one turn written together ("31" = pit 3 then pit 1); '*' after a pit marks
// a capture.  Example, Kalah(6,3): "45-46, 1*-5, 2-, -63*, 6-, -561646562, 4-3, 656-".
// Irving et al.: turns separated by '-', pits 0-based, the digits of one turn together:
// "25-10-3-..." = South sows 2 then 5, North sows 1 then 0, South 3, ...
// Both assume at most 9 pits a side (one digit a pit), which covers m <= 8.
// Under the pie rule, the token "swap" stands for North's swap (Irving: a turn of its own;
// Finnish: North's side of an item).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/game.hpp"

namespace kalah {

enum class Notation { Finnish, Irving };
Notation parse_notation(std::string_view name);  // "finnish" | "irving"; throws std::invalid_argument

// Write the sowings of a game (in order, as played from a position with `first` to move).
std::string format_irving(const std::vector<SowingRecord>& sowings);
std::string format_finnish(const std::vector<SowingRecord>& sowings, Side first);

// One complete turn of a replayed game.
struct ReplayedTurn {
  Side side = Side::South;
  std::vector<SowingRecord> sowings;  // empty for a swap
  bool swap = false;
  Position after;                     // the position after the turn
  std::string text;                   // the turn as written in the record
};

struct Replay {
  std::vector<ReplayedTurn> turns;
  Position final_position;            // the position after the last turn
  bool over = false;                  // the game has ended (naturally or early)
  bool ended_early = false;           // early end stopped it
  bool swapped = false;               // North took the pie-rule swap
  std::vector<std::string> warnings;  // e.g. unmarked or wrongly marked captures
};

// Thrown when a record cannot be read or replayed; the message names the turn and the move.
struct RecordError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

Replay replay(const Position& start, const Rules& rules, Notation notation, std::string_view record);

}  // namespace kalah

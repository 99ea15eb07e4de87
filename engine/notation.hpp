// engine/notation.hpp — game records: the Finnish notation and the Irving et al. notation.
//
// Finnish (seed 001): turns separated by commas, each comma item "South's sowings-North's
// sowings"; a side may be empty ("2-", "-63*"). Pits are 1-based from the owner's left,
// the sowings of one turn written together ("31" = pit 3 then pit 1); '*' after a pit marks
// a capture.  Example, Kalah(6,3): "45-46, 1*-5, 2-, -63*, 6-, -561646562, 4-3, 656-".
// Every non-empty side of an item is one complete turn of that side.
// Irving et al.: turns separated by '-', pits 0-based, the digits of one turn together:
// "25-10-3-..." = South sows 2 then 5, North sows 1 then 0, South 3, ...
// Both assume at most 9 pits a side (one digit a pit), which covers m <= 8.
// Under the pie rule, the token "swap" stands for North's swap (Irving: a turn of its own,
// after which North is still to move: "25-swap-10"; Finnish: North's side of the first
// item, North's first sowings then open the next item: "25-swap, -10, 3-3").
// Whitespace around and inside turns is ignored. Turns are numbered from 1 as written: every
// Irving turn, every non-empty side of a Finnish item, a swap included.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "engine/game.hpp"

namespace kalah {

enum class Notation { Finnish, Irving };
Notation parse_notation(std::string_view name);  // "finnish" | "irving"; throws std::invalid_argument
std::string_view to_string(Notation);

// Write the sowings of a game (in order, as played from a position with `first` to move).
// A pie swap cannot be expressed here (use the Replay overloads below).
std::string format_irving(const std::vector<SowingRecord>& sowings);
std::string format_finnish(const std::vector<SowingRecord>& sowings, Side first);

// One complete turn of a replayed game (or North's pie swap).
struct ReplayedTurn {
  int number = 0;  // 1-based, counting the turns as written in the record
  Side side = Side::South;
  std::vector<SowingRecord> sowings;  // empty for a swap
  bool swap = false;
  Position after;                     // the position after the turn
  std::string text;                   // the turn as written in the record (whitespace removed)
  std::vector<std::string> warnings;  // this turn's warnings (also in Replay::warnings)
};

struct Replay {
  Position start;  // where the record starts
  std::vector<ReplayedTurn> turns;
  Position final_position;            // the position after the last turn
  bool over = false;                  // the game has ended (naturally or early)
  bool ended_early = false;           // early end stopped it
  bool swapped = false;               // North took the pie-rule swap
  std::vector<std::string> warnings;  // e.g. unmarked or wrongly marked captures

  std::vector<SowingRecord> sowings() const;  // every sowing, in order
};

// Write a replayed game back, swap included; replay(format(r)) gives r's turns again.
std::string format_irving(const Replay& game);
std::string format_finnish(const Replay& game);

// Thrown when a record cannot be read or replayed; the message names the turn (number and
// text as written), the move and the reason: turn 10 ("213"): South pit 3 is empty.
struct RecordError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Replay `record` from `start`. Checks every sowing's legality, that the sowings of one turn
// follow extra turns exactly (a turn may not go on after a sowing without an extra turn,
// nor stop while the mover still has one and the game goes on), that each Finnish side is
// the side to move and that no turn comes after the end of the game. Capture marks are
// checked against the sowings: a mismatch is a warning, not an error (the Finnish article
// itself leaves a capture unmarked).
Replay replay(const Position& start, const Rules& rules, Notation notation, std::string_view record);

}  // namespace kalah

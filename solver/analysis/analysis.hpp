// solver/analysis/analysis.hpp — what users ask of a position, computed from any exact oracle.
//
// An oracle returns the remainder value of a board with its mover to move (engine/board.hpp):
// the reference solver, an endgame database or the alpha-beta search. From it this file
// derives, for an absolute Position: its value (final South-minus-North margin with perfect
// play, the position's stores included), the best sowings, a principal variation to the end
// of the game, the value of every first sowing and every complete first turn, and the
// pie-rule value. Early end is ignored here: margins are to the natural end.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "engine/game.hpp"

namespace kalah {

using Oracle = std::function<int(const Board&)>;

// Value of sowing `pit` from `b` for b's mover (remainder value), using the oracle below it;
// *extra_turn (if given) receives whether the sowing earned an extra turn.
int value_after_sowing(const Board& b, int m, int pit, const Rules& rules, const Oracle& oracle,
                       bool* extra_turn = nullptr);

// The value of p alone (final South minus North with perfect play): one oracle call.
int position_value(const Position& p, const Rules& rules, const Oracle& oracle);

// The order in which a principal variation prefers among equally good sowings of b (b's
// mover's legal pits, 0-based, most preferred first, written to pits[0..count)): those that
// earn an extra turn, then captures, then by seeds banked, then the pit nearest the store.
// A function of the board and rules alone, so a line is the same whatever found it (threads,
// database, book); it is also about the order the search tries sowings in, so the line's
// sowing is most often the one the value's own proof used (docs/search.md).
int line_order(const Board& b, int m, const Rules& rules, int* pits);

struct PositionSolution {
  int value = 0;                 // final South minus North with perfect play
  std::vector<int> best;         // best sowings (0-based) of the side to move; empty at the end
  std::vector<SowingRecord> pv;  // a principal variation to the natural end (by line_order)
  Position final_position;       // where the principal variation ends
};
PositionSolution solve_position(const Position& p, const Rules& rules, const Oracle& oracle);
// The same with a faster way to find the best sowings of a non-terminal board b whose
// remainder value is known, e.g. by bound tests instead of an exact value for every sowing:
// all of them (ascending 0-based pits) for the position's own board; with first_only, along
// the line beyond, at least the first of line_order(b) that attains the value (the others are
// not used). It must agree with the oracle.
using BestSowings = std::function<std::vector<int>(const Board& b, int value, bool first_only)>;
PositionSolution solve_position(const Position& p, const Rules& rules, const Oracle& oracle,
                                const BestSowings& best_sowings);

struct SowingValue {
  int pit = 0;              // 0-based pit of the side to move
  int value = 0;            // South-minus-North margin after it, perfect play after
  bool extra_turn = false;  // the sowing ends in the own store
};
struct TurnValue {
  std::vector<int> pits;  // the sowings of the complete turn, 0-based
  int value = 0;          // South-minus-North margin with perfect play after the turn
};
struct Openings {
  int value = 0;                   // value of the position
  std::vector<SowingValue> moves;  // every first sowing
  std::vector<TurnValue> turns;    // every complete first turn
  // Pie rule (only from a start position): North keeps or swaps after South's first turn,
  // so the first player gets max over turns of -|turn value|.
  std::optional<int> pie_value;            // the first player's margin under the pie rule
  std::vector<std::vector<int>> balanced;  // the turns attaining it (most balanced openings)
};
Openings analyse_openings(const Position& p, const Rules& rules, const Oracle& oracle);

// Every legal sowing of p's mover with its value (South minus North), best for the mover
// first (ties: the lower pit first), and p's value as the best of them: no oracle call on p
// itself. At the end of the game: no sowings, the final margin.
struct MoveValues {
  int value = 0;
  std::vector<SowingValue> moves;
};
MoveValues move_values(const Position& p, const Rules& rules, const Oracle& oracle);
// The same when each sowing's value is already known (an opening book's entry): through(pit)
// is the mover's remainder value through sowing `pit` (value_through), asked for legal pits.
MoveValues move_values_known(const Position& p, const Rules& rules, const std::function<int(int pit)>& through);
// The same for every complete turn of p's mover (extra-turn chains followed to the end).
struct TurnValues {
  int value = 0;
  std::vector<TurnValue> turns;
};
TurnValues turn_values(const Position& p, const Rules& rules, const Oracle& oracle);
// How much worse `value` is than `best` for `mover` (>= 0 when best is the mover's best).
inline int margin_lost(Side mover, int best, int value) { return mover == Side::South ? best - value : value - best; }
// The same, filling `out` as it goes (the value, then the sowings in pit order, then the
// turns, then the pie value): when the oracle throws, `out` keeps what was finished.
void analyse_openings(const Position& p, const Rules& rules, const Oracle& oracle, Openings& out);

}  // namespace kalah

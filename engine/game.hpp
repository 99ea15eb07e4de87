// engine/game.hpp — a game in progress: absolute positions, turns, game end, pie swap.
//
// Game applies sowings to an absolute Position under a Rules set, ends the game by the end
// rule (remaining seeds go to their owners), stops early when early end is on and a store
// holds more than half of all seeds, and offers North the pie-rule swap after South's
// complete first turn. Pits are 0-based here (0 = the owner's leftmost pit); notations
// convert to their own numbering.
//
// Swap semantics: the players exchange seats, the board stays. The position (sides, stores,
// side to move) is unchanged; swapped() records that the first player now owns North.
#pragma once

#include <stdexcept>
#include <vector>

#include "engine/board.hpp"
#include "engine/position.hpp"
#include "engine/rules.hpp"

namespace kalah {

// An illegal move: empty pit, pit out of range, game already over, swap not allowed.
struct IllegalMove : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct SowingRecord {
  Side side = Side::South;  // who sowed
  int pit = 0;              // 0-based pit of that side
  SowOutcome outcome;       // what the sowing did (extra turn, capture, relays, seeds stored)
  bool game_over = false;   // the game ended after this sowing
};

class Game {
 public:
  Game(const Position& start, const Rules& rules);

  const Position& position() const { return position_; }
  const Rules& rules() const { return rules_; }
  Side to_move() const { return position_.to_move; }
  bool over() const { return over_; }
  bool ended_early() const { return ended_early_; }
  bool swapped() const { return swapped_; }

  bool is_legal(int pit) const;
  std::vector<int> legal_pits() const;

  // Sow one pit of the side to move. Throws IllegalMove (message names the pit and why).
  SowingRecord sow(int pit);

  // Pie rule: North may swap after South's complete first turn, before North's first sowing.
  bool can_swap() const;
  void swap();  // throws IllegalMove unless can_swap()

  // South's store minus North's (sides, not players). The final margin once over().
  int margin() const { return position_.margin(); }

 private:
  void check_end();

  Position position_;
  Rules rules_;
  bool over_ = false;
  bool ended_early_ = false;
  bool swapped_ = false;
  bool pie_pending_ = false;  // pie on and the game began at a start position
  bool north_moved_ = false;
};

// A complete turn: the sowings one player makes before the turn passes (extra-turn chains).
struct Turn {
  std::vector<int> pits;     // 0-based pits in order
  Board board;               // the board after the last sowing, seen from the player who made
                             // it (seeds left in the pits are not banked even if the game ended)
  int stored = 0;            // seeds the turn put in that player's store
  bool game_over = false;    // the game ends with this turn (by rules.end)
  bool mover_again = false;  // the last sowing earned an extra turn (the game then ended:
                             // the mover, to move again, has no seeds)
};

// Every complete turn available to the mover of `b` (distinct pit sequences; a chain stops
// where the game ends by `rules.end`). Early end is ignored (natural-end semantics).
std::vector<Turn> complete_turns(const Board& b, int m, const Rules& rules);

}  // namespace kalah

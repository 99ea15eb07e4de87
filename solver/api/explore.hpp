// solver/api/explore.hpp — what the explorer (`kalah serve`) answers about one position:
// every legal sowing with the position it leads to and its exact value, best for the mover
// first, and where each value came from.
//
// Values are South's final store minus North's with perfect play to the natural end, as in
// every report (reports.hpp). A search stopped through the session's cancel flag (the
// server's per-request budget) leaves bounds: each move then carries [lower, upper] as
// proven so far (lower == upper: known), and the moves not reached carry what the table
// already knew of them. Nothing here keeps time or prints.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/position.hpp"
#include "engine/rules.hpp"
#include "solver/api/session.hpp"

namespace kalah::api {

// Where a value came from.
enum class ValueSource {
  end,       // the game is over there: the final margin
  book,      // the session's opening book (solver/book)
  database,  // the endgame database holds every board below (its seeds are within it)
  search,    // the search
};
const char* source_name(ValueSource source);

struct ExploreMove {
  int pit = 0;  // 0-based pit of the side to move
  bool extra_turn = false;
  bool capture = false;
  Position after;  // the position after the sowing (the game over, its final stores)
  int lower = 0, upper = 0;
  ValueSource source = ValueSource::search;
  bool known() const { return lower == upper; }
};

struct ExploreReport {
  Position position;
  Rules rules;
  bool game_over = false;          // no move: [lower, upper] is the final margin
  int lower = 0, upper = 0;        // the position's value (the best move's for the mover)
  std::vector<ExploreMove> moves;  // best for the mover first: by value, then by the other bound, then by pit
  bool interrupted = false;        // the cancel flag stopped a search: some bounds are open
  std::uint64_t nodes = 0;
  double seconds = 0;
  bool known() const { return lower == upper; }
};

// Every sowing of `position` (which must fit the session: Session::check_fits) with its value.
ExploreReport explore(Session& session, const Position& position);

}  // namespace kalah::api

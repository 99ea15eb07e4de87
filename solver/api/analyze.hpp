// solver/api/analyze.hpp — a played game turn by turn: the value before each turn, the value
// after the turn played, the best complete turns, the margin the turn lost and where the
// result changed (what `kalah analyze` shows).
//
// Values are South's final store minus North's with perfect play to the natural end
// (reports.hpp): early end and the pie rule's swap are not part of them (a swap turn is
// listed, not valued). A turn's "margin lost" is how much worse its value is than the best
// turn's for the side that played it; a turn that lost margin is a mistake.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "engine/notation.hpp"
#include "engine/position.hpp"
#include "engine/rules.hpp"
#include "solver/api/session.hpp"

namespace kalah::api {

struct TurnAnalysis {
  int number = 0;  // as in the record (ReplayedTurn::number)
  Side side = Side::South;
  std::string text;                    // as written in the record
  bool swap = false;                   // the pie rule's swap: not valued
  Position before, after;              // the positions around the turn
  std::vector<int> played;             // its sowings, 0-based pits
  int value_before = 0;                // the best turn's value
  int value_after = 0;                 // the played turn's value
  std::vector<std::vector<int>> best;  // every complete turn attaining value_before
  int margin_lost = 0;                 // >= 0, for `side`
  bool mistake = false;                // margin_lost > 0
  bool result_changed = false;         // a win became a draw or loss, or a draw a loss, for `side`
};

struct PlayerSummary {
  int turns = 0, mistakes = 0, margin_lost = 0;
};

struct GameAnalysis {
  Replay game;
  Rules rules;
  std::vector<TurnAnalysis> turns;  // the turns analysed (all unless interrupted)
  int mistakes = 0;                 // over both sides
  PlayerSummary south, north;       // by board side (after a swap a player changes side)
  bool interrupted = false;
  std::uint64_t nodes = 0;
  double seconds = 0;  // the search's wall time
};

// Analyse every turn of `game` (replayed under session.rules()). progress(done, total) is
// called after every turn. A cancel (SessionConfig::cancel) ends it with the turns finished
// and `interrupted` set. Throws ConfigError when the game does not fit the session.
GameAnalysis analyze(Session& session, const Replay& game, const std::function<void(int, int)>& progress = {});

}  // namespace kalah::api

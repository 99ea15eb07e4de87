#include "solver/api/analyze.hpp"

#include <chrono>

#include "solver/analysis/analysis.hpp"

namespace kalah::api {

namespace {

// -1, 0 or 1: a loss, a draw or a win for `side` of a South-minus-North value.
int outcome_for(Side side, int value) {
  const int v = side == Side::South ? value : -value;
  return (v > 0) - (v < 0);
}

std::vector<int> pits_of(const ReplayedTurn& t) {
  std::vector<int> pits;
  for (const SowingRecord& s : t.sowings) pits.push_back(s.pit);
  return pits;
}

}  // namespace

GameAnalysis analyze(Session& session, const Replay& game, const std::function<void(int, int)>& progress) {
  session.check_fits(game.start);
  GameAnalysis r;
  r.game = game;
  r.rules = session.rules();
  const Oracle oracle = session.oracle();
  const std::uint64_t nodes0 = session.solver().nodes();
  const auto t0 = std::chrono::steady_clock::now();
  const int total = static_cast<int>(game.turns.size());
  Position before = game.start;
  try {
    for (const ReplayedTurn& t : game.turns) {
      TurnAnalysis a;
      a.number = t.number;
      a.side = t.side;
      a.text = t.text;
      a.swap = t.swap;
      a.before = before;
      a.after = t.after;
      a.played = pits_of(t);
      if (!t.swap) {
        const TurnValues values = turn_values(before, r.rules, oracle);
        a.value_before = values.value;
        bool found = false;
        for (const TurnValue& v : values.turns) {
          if (v.value == values.value) a.best.push_back(v.pits);
          if (v.pits == a.played) {
            a.value_after = v.value;
            found = true;
          }
        }
        // Not among the complete turns (natural end) when early end stopped the game in it.
        if (!found) a.value_after = position_value(t.after, r.rules, oracle);
        a.margin_lost = margin_lost(t.side, a.value_before, a.value_after);
        a.mistake = a.margin_lost > 0;
        a.result_changed = outcome_for(t.side, a.value_after) < outcome_for(t.side, a.value_before);
        PlayerSummary& p = t.side == Side::South ? r.south : r.north;
        ++p.turns;
        p.mistakes += a.mistake ? 1 : 0;
        p.margin_lost += a.margin_lost;
        r.mistakes += a.mistake ? 1 : 0;
      }
      r.turns.push_back(std::move(a));
      before = t.after;
      if (progress) progress(static_cast<int>(r.turns.size()), total);
    }
  } catch (const search::Interrupted&) {
    r.interrupted = true;
  }
  r.nodes = session.solver().nodes() - nodes0;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace kalah::api

#include "solver/analysis/analysis.hpp"

#include <algorithm>
#include <climits>
#include <cstdlib>

namespace kalah {

int value_after_sowing(const Board& b, int m, int pit, const Rules& rules, const Oracle& oracle, bool* extra_turn) {
  Board next = b;
  const SowOutcome o = sow(next, m, pit, rules);
  if (extra_turn) *extra_turn = o.extra_turn;
  return value_through(o.stored, o.extra_turn, oracle(o.extra_turn ? next : flipped(next, m)));
}

namespace {

int signed_for(Side s, int remainder) { return s == Side::South ? remainder : -remainder; }

}  // namespace

int position_value(const Position& p, const Rules& rules, const Oracle& oracle) {
  const Rules natural = rules.value_rules();
  const Game game(p, natural);
  if (game.over()) return game.margin();
  return p.margin() + signed_for(p.to_move, oracle(p.board()));
}

PositionSolution solve_position(const Position& p, const Rules& rules, const Oracle& oracle) {
  return solve_position(p, rules, oracle, nullptr);
}

PositionSolution solve_position(const Position& p, const Rules& rules, const Oracle& oracle,
                                const BestSowings& best_sowings) {
  const Rules natural = rules.value_rules();
  PositionSolution sol;
  Game game(p, natural);
  if (game.over()) {
    sol.value = game.margin();
    sol.final_position = game.position();
    return sol;
  }
  const int m = p.pits;
  sol.value = position_value(p, rules, oracle);
  bool first = true;
  while (!game.over()) {
    const Board b = game.position().board();
    int best_value = INT_MIN;
    std::vector<int> best;
    if (best_sowings) best = best_sowings(b);
    if (!best.empty()) {
      if (first) sol.best = best;
      first = false;
      sol.pv.push_back(game.sow(best.front()));
      continue;
    }
    for (int pit : game.legal_pits()) {
      const int v = value_after_sowing(b, m, pit, natural, oracle);
      if (v > best_value) {
        best_value = v;
        best.clear();
      }
      if (v == best_value) best.push_back(pit);
    }
    if (first) sol.best = best;
    first = false;
    sol.pv.push_back(game.sow(best.front()));
  }
  sol.final_position = game.position();
  return sol;
}

Openings analyse_openings(const Position& p, const Rules& rules, const Oracle& oracle) {
  Openings out;
  analyse_openings(p, rules, oracle, out);
  return out;
}

void analyse_openings(const Position& p, const Rules& rules, const Oracle& oracle, Openings& out) {
  out = Openings{};
  const int m = p.pits;
  const Board b = p.board();
  const Side mover = p.to_move;
  int remainder = 0;
  const bool over = is_terminal(b, m, rules.end, remainder);
  out.value = p.margin() + signed_for(mover, over ? remainder : oracle(b));
  if (over) return;
  for (int pit = 0; pit < m; ++pit) {
    if (b.cells[pit] == 0) continue;
    bool extra_turn = false;
    const int v = value_after_sowing(b, m, pit, rules, oracle, &extra_turn);
    out.moves.push_back({pit, p.margin() + signed_for(mover, v), extra_turn});
  }
  for (const Turn& t : complete_turns(b, m, rules)) {
    const int v = value_through(t.stored, t.mover_again, oracle(t.mover_again ? t.board : flipped(t.board, m)));
    out.turns.push_back({t.pits, p.margin() + signed_for(mover, v)});
  }
  if (rules.pie && p.is_start()) {
    int pie = INT_MIN;
    for (const TurnValue& t : out.turns) pie = std::max(pie, -std::abs(t.value));
    out.pie_value = pie;
    for (const TurnValue& t : out.turns)
      if (-std::abs(t.value) == pie) out.balanced.push_back(t.pits);
  }
}

namespace {

// Sort `items` best first for `mover` by their `value` (stable: ties keep their order) and
// return the best value.
template <class T>
int sort_best_first(std::vector<T>& items, Side mover) {
  std::stable_sort(items.begin(), items.end(), [mover](const T& a, const T& b) {
    return mover == Side::South ? a.value > b.value : a.value < b.value;
  });
  return items.front().value;
}

}  // namespace

MoveValues move_values_known(const Position& p, const Rules& rules, const std::function<int(int pit)>& through) {
  const Rules natural = rules.value_rules();
  const Game game(p, natural);
  MoveValues out;
  if (game.over()) {
    out.value = game.margin();
    return out;
  }
  const Board b = p.board();
  for (int pit = 0; pit < p.pits; ++pit) {
    if (b.cells[pit] == 0) continue;
    Board next = b;
    const bool extra_turn = sow(next, p.pits, pit, natural).extra_turn;
    out.moves.push_back({pit, p.margin() + signed_for(p.to_move, through(pit)), extra_turn});
  }
  out.value = sort_best_first(out.moves, p.to_move);
  return out;
}

MoveValues move_values(const Position& p, const Rules& rules, const Oracle& oracle) {
  const Rules natural = rules.value_rules();
  const Board b = p.board();
  return move_values_known(p, rules,
                           [&](int pit) { return value_after_sowing(b, p.pits, pit, natural, oracle, nullptr); });
}

TurnValues turn_values(const Position& p, const Rules& rules, const Oracle& oracle) {
  const Rules natural = rules.value_rules();
  const Game game(p, natural);
  TurnValues out;
  if (game.over()) {
    out.value = game.margin();
    return out;
  }
  const int m = p.pits;
  for (const Turn& t : complete_turns(p.board(), m, natural)) {
    const int v = value_through(t.stored, t.mover_again, oracle(t.mover_again ? t.board : flipped(t.board, m)));
    out.turns.push_back({t.pits, p.margin() + signed_for(p.to_move, v)});
  }
  out.value = sort_best_first(out.turns, p.to_move);
  return out;
}

}  // namespace kalah

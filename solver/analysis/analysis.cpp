#include "solver/analysis/analysis.hpp"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <stdexcept>

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

int line_order(const Board& b, int m, const Rules& rules, int* pits) {
  int key[kMaxPits], n = 0;
  for (int pit = 0; pit < m; ++pit) {
    if (!b.cells[pit]) continue;
    Board next = b;
    const SowOutcome o = sow(next, m, pit, rules);
    key[pit] = (int(o.extra_turn) << 20) | (int(o.capture) << 19) | (o.stored << 4) | pit;  // distinct
    pits[n++] = pit;
  }
  std::sort(pits, pits + n, [&](int x, int y) { return key[x] > key[y]; });
  return n;
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
  // The remainder value of the line's board to move (its mover's): the position's, then
  // each follows from the sowing played, so only the sowings tested ask the oracle.
  int value = signed_for(p.to_move, sol.value - p.margin());
  bool first = true;
  while (!game.over()) {
    const Board b = game.position().board();
    int order[kMaxPits];
    const int n = line_order(b, m, natural, order);
    std::vector<int> best;
    if (best_sowings) {
      best = best_sowings(b, value, !first);
    } else {
      for (int i = 0; i < n; ++i)
        if (value_after_sowing(b, m, order[i], natural, oracle) == value) {
          best.push_back(order[i]);
          if (!first) break;
        }
      std::sort(best.begin(), best.end());
    }
    if (first) sol.best = best;
    first = false;
    const int* played = std::find_first_of(order, order + n, best.begin(), best.end());
    if (played == order + n) throw std::logic_error("solve_position: no sowing attains the board's value");
    const SowingRecord record = game.sow(*played);
    sol.pv.push_back(record);
    value = record.outcome.extra_turn ? value - record.outcome.stored : record.outcome.stored - value;
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

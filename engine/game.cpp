#include "engine/game.hpp"

#include <string>

namespace kalah {

Game::Game(const Position& start, const Rules& rules)
    : position_(start), rules_(rules), pie_pending_(rules.pie && start.is_start()) {
  check_end();
}

bool Game::is_legal(int pit) const {
  return !over_ && pit >= 0 && pit < position_.pits && position_.side[static_cast<int>(position_.to_move)][pit] > 0;
}

std::vector<int> Game::legal_pits() const {
  std::vector<int> pits;
  for (int i = 0; i < position_.pits; ++i)
    if (is_legal(i)) pits.push_back(i);
  return pits;
}

SowingRecord Game::sow(int pit) {
  const Side mover = position_.to_move;
  if (over_) throw IllegalMove("the game is already over");
  if (pit < 0 || pit >= position_.pits)
    throw IllegalMove(std::string(side_name(mover)) + " pit " + std::to_string(pit + 1) + " does not exist (1.." +
                      std::to_string(position_.pits) + ")");
  if (position_.side[static_cast<int>(mover)][pit] == 0)
    throw IllegalMove(std::string(side_name(mover)) + " pit " + std::to_string(pit + 1) + " is empty");

  SowingRecord record;
  record.side = mover;
  record.pit = pit;
  Board b = position_.board();
  record.outcome = kalah::sow(b, position_.pits, pit, rules_);
  position_.set_board(b);
  position_.store[static_cast<int>(mover)] += record.outcome.stored;
  if (mover == Side::North) north_moved_ = true;
  if (!record.outcome.extra_turn) position_.to_move = opponent(mover);
  check_end();
  record.game_over = over_;
  return record;
}

void Game::check_end() {
  int remainder = 0;
  if (is_terminal(position_.board(), position_.pits, rules_.end, remainder)) {
    for (int s = 0; s < 2; ++s) {
      position_.store[s] += position_.pit_seeds(static_cast<Side>(s));
      for (int i = 0; i < position_.pits; ++i) position_.side[s][i] = 0;
    }
    over_ = true;
    return;
  }
  if (rules_.early_end) {
    const int total = position_.total_seeds();
    if (2 * position_.store[0] > total || 2 * position_.store[1] > total) {
      over_ = true;
      ended_early_ = true;
    }
  }
}

bool Game::can_swap() const { return pie_pending_ && !swapped_ && !north_moved_ && position_.to_move == Side::North; }

void Game::swap() {
  if (!rules_.pie) throw IllegalMove("swap is only allowed under the pie rule (--pie)");
  if (!can_swap()) throw IllegalMove("swap is only allowed to North right after South's first turn");
  swapped_ = true;
  pie_pending_ = false;
}

namespace {

void extend_turns(const Board& b, int m, const Rules& rules, std::vector<int>& pits, int stored,
                  std::vector<Turn>& out) {
  for (int pit = 0; pit < m; ++pit) {
    if (b.cells[pit] == 0) continue;
    Board next = b;
    const SowOutcome o = sow(next, m, pit, rules);
    pits.push_back(pit);
    int remainder = 0;
    if (o.extra_turn && !is_terminal(next, m, rules.end, remainder)) {
      extend_turns(next, m, rules, pits, stored + o.stored, out);
    } else {
      Turn t;
      t.pits = pits;
      t.board = next;
      t.stored = stored + o.stored;
      // The game is over if the position to move next (same mover after an extra turn,
      // else the opponent) is terminal.
      int r = 0;
      t.game_over = o.extra_turn ? true : is_terminal(flipped(next, m), m, rules.end, r);
      t.mover_again = o.extra_turn;
      out.push_back(std::move(t));
    }
    pits.pop_back();
  }
}

}  // namespace

std::vector<Turn> complete_turns(const Board& b, int m, const Rules& rules) {
  std::vector<Turn> out;
  std::vector<int> pits;
  extend_turns(b, m, rules, pits, 0, out);
  return out;
}

}  // namespace kalah

// solver/reference/reference_solver.hpp — the oracle: memoised exhaustive minimax.
//
// Deliberately plain: the remainder value (mover's future store gain minus the opponent's,
// see engine/board.hpp) of every board reached is computed by trying every sowing and is
// memoised in a hash map keyed by the whole board. No pruning, no ordering, no tricks, so
// it is obviously correct; every fast path (databases, alpha-beta, parallel search) is
// tested against it. Small boards only: memory grows with the number of boards reached.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "engine/board.hpp"
#include "engine/rules.hpp"

namespace kalah {

class ReferenceSolver {
 public:
  ReferenceSolver(int pits, const Rules& rules) : pits_(pits), rules_(rules) {}

  // Remainder value of `b` with its mover to move, to the natural end of the game.
  int value(const Board& b);
  // Every sowing (0-based pit) of the mover that attains value(b); empty if terminal.
  std::vector<int> best_pits(const Board& b);
  // Value of sowing `pit` from `b`, from b's mover's point of view (pit must be non-empty).
  int value_after(const Board& b, int pit);

  std::uint64_t nodes() const { return nodes_; }  // boards expanded (memo misses)
  std::size_t memo_size() const { return memo_.size(); }

 private:
  int pits_;
  Rules rules_;
  std::uint64_t nodes_ = 0;
  std::unordered_map<Board, int, BoardHash> memo_;
};

}  // namespace kalah

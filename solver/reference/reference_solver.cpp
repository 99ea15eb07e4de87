#include "solver/reference/reference_solver.hpp"

#include <algorithm>
#include <climits>
#include <cstring>

namespace kalah {

int ReferenceSolver::value_after(const Board& b, int pit) {
  Board next = b;
  const SowOutcome o = sow(next, pits_, pit, rules_);
  return value_through(o.stored, o.extra_turn, value(o.extra_turn ? next : flipped(next, pits_)));
}

int ReferenceSolver::value(const Board& b) {
  int remainder = 0;
  if (is_terminal(b, pits_, rules_.end, remainder)) return remainder;
  if (auto it = memo_.find(b); it != memo_.end()) return it->second;
  ++nodes_;
  int best = INT_MIN;
  for (int pit = 0; pit < pits_; ++pit)
    if (b.cells[pit] > 0) best = std::max(best, value_after(b, pit));
  memo_.emplace(b, best);
  return best;
}

std::vector<int> ReferenceSolver::best_pits(const Board& b) {
  std::vector<int> best;
  int remainder = 0;
  if (is_terminal(b, pits_, rules_.end, remainder)) return best;
  const int target = value(b);
  for (int pit = 0; pit < pits_; ++pit)
    if (b.cells[pit] > 0 && value_after(b, pit) == target) best.push_back(pit);
  return best;
}

}  // namespace kalah

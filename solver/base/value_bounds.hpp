// solver/base/value_bounds.hpp — what the seeds in play alone say about a board's value
// (the search's futility bounds, the database statistics' sanity check).
//
// For a board that is not terminal, with k seeds in the pits and its mover to move, the
// remainder value v (engine/board.hpp) satisfies, under every rule option:
//   * -k <= v <= k: every seed in the pits ends in one of the two stores;
//   * v = k (mod 2): v = g - (k - g) = 2g - k where g is what the mover banks.
// Tighter, only where it holds:
//   * kalah sowing with `empty` capture: the mover banks at least one seed (sowing its
//     rightmost non-empty pit either passes its store or ends in an empty own pit, which then
//     captures at least the last seed), so v >= 2 - k. With `nonempty` capture a sowing may
//     end in an empty own pit facing an empty pit and bank nothing; relay sowing can bank
//     nothing either: there the bound is -k.
#pragma once

#include "engine/rules.hpp"

namespace kalah::base {

// Lowest possible value of a non-terminal board with k >= 1 seeds in the pits.
inline int min_value(int k, const Rules& rules) {
  return rules.sowing == Sowing::Kalah && rules.capture == Capture::Empty ? 2 - k : -k;
}
// Highest possible value of a board with k seeds in the pits.
inline int max_value(int k) { return k; }

// Tighten bounds to the parity of k: the largest value <= x, resp. the smallest >= x, with
// the parity of k.
inline int round_down(int x, int k) { return ((x - k) & 1) ? x - 1 : x; }
inline int round_up(int x, int k) { return ((x - k) & 1) ? x + 1 : x; }

}  // namespace kalah::base

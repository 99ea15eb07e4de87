// solver/search/children.hpp — a node's sowings, what is known about each before recursing,
// and the order they are searched in.
//
// A Child is one sowing of the mover's pit `pit`: the board after it seen from the player to
// move next (the same mover after an extra turn, else flipped), the seeds it banked and the
// seeds left in the pits. [lo, hi] bounds the parent's value through this child, from the
// parent mover's point of view: exact (lo == hi) for a terminal board or a database hit,
// else the seeds-in-play bounds (solver/base/value_bounds.hpp) tightened by the table's bounds for the
// child board (enhanced transposition cutoff).
//
// Order (move_score): the table's best sowing, then sowings that earn an extra turn, then
// captures, then the rest; within each group by the midpoint of [lo, hi] (for a child the
// table knows nothing of, about twice the seeds the sowing banks), then the pit nearest the
// store first.
#pragma once

#include <climits>
#include <cstdint>

#include "engine/board.hpp"
#include "solver/search/board_key.hpp"

namespace kalah::search {

struct Child {
  Board board;
  BoardKey::Split key{0, 0};
  int pit = 0;
  int stored = 0;  // seeds the sowing put in the mover's store
  int seeds = 0;   // seeds left in the pits
  int lo = 0, hi = 0;
  int score = 0;
  bool extra = false;
  bool capture = false;
  bool exact() const { return lo == hi; }
  // The parent's value through this child given the child board's value v.
  int through(int v) const { return value_through(stored, extra, v); }
};

// The score of sowing `pit` whose child is known within [lo, hi] (higher: searched first);
// distinct for distinct pits.
inline int move_score(int pit, int lo, int hi, bool extra, bool capture, int table_move) {
  if (pit == table_move) return 1 << 28;
  const int bounds = (lo + hi + 1024) << 4;  // midpoint of what is known, then the pit
  if (extra) return (1 << 26) + bounds + pit;
  if (capture) return (1 << 24) + bounds + pit;
  return bounds + pit;
}
inline int move_score(const Child& c, int table_move) {
  return move_score(c.pit, c.lo, c.hi, c.extra, c.capture, table_move);
}

// The pit of the child the static order (move_score without a table move) puts first among
// those not known exactly, -1 if none: what a shallow pass's cut is compared with.
inline int static_first_pit(const Child* children, int n) {
  int first = -1;
  for (int i = 0, top = INT_MIN; i < n; ++i) {
    if (children[i].exact()) continue;
    const int score = move_score(children[i], -1);
    if (score > top) {
      top = score;
      first = children[i].pit;
    }
  }
  return first;
}

// Sort children[0..n) by descending score (n <= 8: insertion sort, stable).
inline void order_children(Child* children, int* order, int n) {
  for (int i = 0; i < n; ++i) order[i] = i;
  for (int i = 1; i < n; ++i) {
    const int x = order[i];
    int j = i;
    while (j > 0 && children[order[j - 1]].score < children[x].score) {
      order[j] = order[j - 1];
      --j;
    }
    order[j] = x;
  }
}

}  // namespace kalah::search

// solver/search/endgame_probe.hpp — how the search asks an endgame database for a value.
//
// A probe answers the exact remainder value (engine/board.hpp) of any board with at most
// max_seeds seeds in the pits. It is a plain function pointer plus context so the search
// does not depend on how the values are held (the endgame database of solver/db, or in the
// tests a table filled by the reference solver). max_seeds < 0: no database.
#pragma once

#include "engine/board.hpp"

namespace kalah::search {

struct EndgameProbe {
  int max_seeds = -1;
  const void* context = nullptr;
  int (*lookup)(const void* context, const Board& b) = nullptr;

  bool covers(int seeds) const { return seeds <= max_seeds; }
  int value(const Board& b) const { return lookup(context, b); }
};

}  // namespace kalah::search

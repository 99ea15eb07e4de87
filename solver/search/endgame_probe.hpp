// solver/search/endgame_probe.hpp — how the search asks an endgame database for a value.
//
// A probe answers the exact remainder value (engine/board.hpp) of any board with at most
// max_seeds seeds in the pits. It is a plain function pointer plus context so the search
// does not depend on how the values are held (the endgame database of solver/db through
// database_probe, or in the tests a table filled by the reference solver). max_seeds < 0: no database.
#pragma once

#include "engine/board.hpp"
#include "solver/db/database.hpp"

namespace kalah::search {

struct EndgameProbe {
  int max_seeds = -1;
  const void* context = nullptr;
  // Value of b, which holds k <= max_seeds seeds in the pits.
  int (*lookup)(const void* context, const Board& b, int k) = nullptr;
  // Optional: start loading the entry of b into the cache.
  void (*prefetch)(const void* context, const Board& b, int k) = nullptr;
  // Optional, the same values held in memory: when set, the search computes a board's index
  // itself (once, for the prefetch and the read) and reads database->level(k)[index].
  const EndgameDatabase* database = nullptr;

  bool covers(int seeds) const { return seeds <= max_seeds; }
  int value(const Board& b, int k) const { return lookup(context, b, k); }
  void warm(const Board& b, int k) const {
    if (prefetch) prefetch(context, b, k);
  }
};

// A probe into an endgame database (which must outlive the probe).
inline EndgameProbe database_probe(const EndgameDatabase& db) {
  EndgameProbe p;
  p.max_seeds = db.max_seeds();
  p.context = &db;
  p.database = &db;
  p.lookup = [](const void* context, const Board& b, int k) {
    return static_cast<const EndgameDatabase*>(context)->value(b, k);
  };
  p.prefetch = [](const void* context, const Board& b, int k) {
    static_cast<const EndgameDatabase*>(context)->prefetch(b, k);
  };
  return p;
}

}  // namespace kalah::search

// solver/search/endgame_probe.hpp — how the search asks an endgame database for a value.
//
// A probe answers the exact remainder value (engine/board.hpp) of any board with at most
// max_seeds seeds in the pits, and of the boards of a partial level (EndgameDatabase::
// partial_level: level partial_seeds = max_seeds + 1 for the sublevel pairs whose bits are set
// in partial_pairs). It is a plain function pointer plus context so the search does not
// depend on how the values are held (the endgame database of solver/db through
// database_probe, or in the tests a table filled by the reference solver). max_seeds < 0: no database.
#pragma once

#include "engine/board.hpp"
#include "solver/db/database.hpp"

namespace kalah::search {

struct EndgameProbe {
  int max_seeds = -1;
  int partial_seeds = -1;           // -1: no partial level
  std::uint64_t partial_pairs = 0;  // a bit a pair of level partial_seeds
  int pits = 0;                     // a side, for the pair of a board (SublevelIndexer::pair_of)
  const void* context = nullptr;
  // Value of b, which holds k seeds in the pits, covers(k, b).
  int (*lookup)(const void* context, const Board& b, int k) = nullptr;
  // Optional: start loading the entry of b into the cache.
  void (*prefetch)(const void* context, const Board& b, int k) = nullptr;
  // Optional, the same values held in memory: when set, the search computes a board's index
  // itself (once, for the prefetch and the read) and reads database->level(k)[index].
  const EndgameDatabase* database = nullptr;
  // Levels of bounds (EndgameDatabase::bound_first: a bit a board, whether the value is above
  // 0), read through `database` only: levels bound_first..bound_last, the last for the pairs
  // whose bits are set in bound_top_pairs. None: bound_first > bound_last.
  int bound_first = 0, bound_last = -1;
  std::uint64_t bound_top_pairs = 0;

  // Whether the board `bits` with `seeds` seeds in the pits has its value here. M: the pit
  // count when the caller knows it at compile time (the search), 0 when it does not.
  template <int M = 0>
  bool covers(int seeds, base::u128 bits) const {
    if (seeds <= max_seeds) return true;
    return seeds == partial_seeds && (partial_pairs >> SublevelIndexer::pair_of(M > 0 ? M : pits, seeds, bits) & 1);
  }
  bool covers(const Board& b, int seeds) const { return covers(seeds, base::to_bits(b)); }
  // Whether the board `bits` with `seeds` seeds has a bound here (and no exact value).
  template <int M = 0>
  bool bounds(int seeds, base::u128 bits) const {
    if (seeds < bound_first || seeds > bound_last) return false;
    return seeds < bound_last || (bound_top_pairs >> SublevelIndexer::pair_of(M > 0 ? M : pits, seeds, bits) & 1);
  }
  int value(const Board& b, int k) const { return lookup(context, b, k); }
  void warm(const Board& b, int k) const {
    if (prefetch) prefetch(context, b, k);
  }
};

// A probe into an endgame database (which must outlive the probe).
inline EndgameProbe database_probe(const EndgameDatabase& db) {
  EndgameProbe p;
  p.max_seeds = db.max_seeds();
  p.partial_seeds = db.partial_level();
  p.partial_pairs = db.partial_pairs();
  p.pits = db.pits();
  if (db.bound_first() >= 0) {
    p.bound_first = db.bound_first();
    p.bound_last = db.bound_last();
    p.bound_top_pairs = db.bound_top_pairs();
  }
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

// engine/board.hpp — the mover-relative pit array and the sowing kernel.
//
// A Board holds only the pits (stores never re-enter play). It is seen from the player to
// move: cells[0..m) are the mover's pits and cells[m..2m) the opponent's, each side listed
// from its owner's left, i.e. in sowing order. The mover's pit i faces the opponent's pit
// m-1-i (cell 2m-1-i). Sowing walks the ring of 2m+1 places
//     mover pit 0 .. mover pit m-1, mover's store, opponent pit 0 .. opponent pit m-1
// (the opponent's store is skipped; the emptied pit is not).
//
// The value of a Board ("remainder value") is the mover's future store gain minus the
// opponent's with perfect play, to the natural end of the game (early end ignored). A
// game's final South-minus-North margin is the store difference plus that value, signed
// for the side to move. Databases, the reference solver and the search all use it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "engine/rules.hpp"

namespace kalah {

inline constexpr int kMaxPits = 8;     // pits per side
inline constexpr int kMaxSeeds = 255;  // seeds in a whole game (pits and stores)

struct Board {
  std::array<std::uint8_t, 2 * kMaxPits> cells{};

  bool operator==(const Board&) const = default;
};

// What one sowing did, from the mover's point of view.
struct SowOutcome {
  int stored = 0;           // seeds that went into the mover's store (sown and captured)
  bool extra_turn = false;  // kalah sowing ended in the own store: the mover sows again
  bool capture = false;     // a capture happened
  int relays = 0;           // relay sowing: number of relay pick-ups
};

// The mover's value through one sowing that banked `stored` seeds and led to a board worth
// `next_value` to the player who moves there: the same mover after an extra turn, else the
// opponent, whose gain is the mover's loss. (The one place this rule is written.)
inline constexpr int value_through(int stored, bool extra_turn, int next_value) {
  return extra_turn ? stored + next_value : stored - next_value;
}

// A search window (alpha, beta) on the mover's value through that sowing, as the window on
// the value of the board it leads to: shifted by the seeds banked, and negated and swapped
// when the opponent moves there (value_through inverted).
struct Window {
  int alpha, beta;
};
inline constexpr Window window_through(int stored, bool extra_turn, int alpha, int beta) {
  return extra_turn ? Window{alpha - stored, beta - stored} : Window{stored - beta, stored - alpha};
}

inline int side_seeds(const Board& b, int m, int side) {
  int s = 0;
  for (int i = 0; i < m; ++i) s += b.cells[side * m + i];
  return s;
}

// Exchange the halves: the board as the opponent sees it. Cells from 2m on stay zero (an
// invariant every Board keeps, so whole-array equality and hashing are exact).
inline Board flipped(const Board& b, int m) {
  __extension__ typedef unsigned __int128 u128;
  u128 x;
  std::memcpy(&x, b.cells.data(), sizeof x);
  const int bits = 8 * m;
  const u128 mask = m == kMaxPits ? ~u128(0) : (u128(1) << (2 * bits)) - 1;
  const u128 y = ((x >> bits) | (x << bits)) & mask;
  Board f;
  std::memcpy(f.cells.data(), &y, sizeof y);
  return f;
}

// A hash for unordered containers of boards (a memo, a book's entries). Cells from 2m on are
// zero (see flipped), so hashing the whole array is exact.
struct BoardHash {
  std::size_t operator()(const Board& b) const {
    std::uint64_t lo = 0, hi = 0;
    std::memcpy(&lo, b.cells.data(), 8);
    std::memcpy(&hi, b.cells.data() + 8, 8);
    const std::uint64_t h = lo * 0x9E3779B97F4A7C15ULL ^ (hi + 0x632BE59BD9B4E019ULL) * 0xC2B2AE3D27D4EB4FULL;
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
};

namespace detail {
// Sow the seeds of cell `pit` (a mover pit) around the ring. Returns the ring place of the
// last seed (0..m-1 own pit, m store, m+1..2m opponent pit m..2m-1 as cell place-1) and
// adds store seeds to `stored`.
inline int sow_ring(Board& b, int m, int pit, int& stored) {
  const int seeds = b.cells[pit];
  b.cells[pit] = 0;
  const int ring = 2 * m + 1;
  const int laps = seeds / ring;
  const int rest = seeds % ring;
  if (laps) {
    for (int i = 0; i < 2 * m; ++i) b.cells[i] = static_cast<std::uint8_t>(b.cells[i] + laps);
    stored += laps;
  }
  int place = pit;
  for (int s = 0; s < rest; ++s) {
    if (++place == ring) place = 0;
    if (place < m)
      ++b.cells[place];
    else if (place == m)
      ++stored;
    else
      ++b.cells[place - 1];
  }
  return place;
}
}  // namespace detail

// Sow the mover's pit `pit` (0-based, must be non-empty) under `rules`. Modifies `b` in
// place and does not flip it; the caller flips unless out.extra_turn.
inline SowOutcome sow(Board& b, int m, int pit, const Rules& rules) {
  SowOutcome out;
  if (rules.sowing == Sowing::Kalah) {
    const int last = detail::sow_ring(b, m, pit, out.stored);
    if (last == m) {
      out.extra_turn = true;
    } else if (last < m && b.cells[last] == 1) {  // own pit that was empty before the last seed
      const int opposite = 2 * m - 1 - last;
      if (b.cells[opposite] > 0 || rules.capture == Capture::Empty) {
        out.stored += b.cells[opposite] + 1;
        b.cells[opposite] = 0;
        b.cells[last] = 0;
        out.capture = true;
      }
    }
    return out;
  }
  // Relay sowing (seed 003).
  for (;;) {
    const int seeds = b.cells[pit];
    const bool reached_opponent = seeds >= m - pit + 1;
    const int last = detail::sow_ring(b, m, pit, out.stored);
    if (last < m && b.cells[last] > 1 && reached_opponent) {
      pit = last;
      ++out.relays;
      continue;
    }
    if (last > m) {
      for (int cell = last - 1; cell >= m && (b.cells[cell] == 2 || b.cells[cell] == 3); --cell) {
        out.stored += b.cells[cell];
        b.cells[cell] = 0;
        out.capture = true;
      }
    }
    return out;
  }
}

// Is the game over with this board and its mover to move? If so, `remainder` receives the
// mover's seeds minus the opponent's seeds, as they are banked by their owners.
//   either: over when either side is empty (checked after every sowing, which is the same
//           as checking the position to move);
//   mover:  over only when the player to move has no seeds.
inline bool is_terminal(const Board& b, int m, EndRule end, int& remainder) {
  const int own = side_seeds(b, m, 0);
  const int opp = side_seeds(b, m, 1);
  if (own == 0 || (end == EndRule::Either && opp == 0)) {
    remainder = own - opp;
    return true;
  }
  return false;
}

}  // namespace kalah

// solver/base/sowing_kernel.hpp — the move generator of the database builder and of the search:
// every sowing of a board, with the seeds it banks and the successor's level and index,
// specialised at compile time for the pit count and the rule set.
//
// Boards are handled as one 128-bit integer: byte i is cell i of engine/board.hpp's Board
// (the mover's pits, then the opponent's). A sowing of c seeds from pit i that does not end
// in a capture or relay changes the board by a fixed amount, so it is one 128-bit addition
// of a precomputed delta (byte arithmetic never carries: every cell stays within 0..255).
// Captures and relays are then applied on the bytes. The results equal engine/board.hpp's
// sow() exactly; the tests compare the databases with the reference solver under every rule
// option.
#pragma once

#include <cassert>
#include <cstdint>
#include <cstring>
#include <vector>

#include "engine/board.hpp"
#include "engine/rules.hpp"
#include "solver/base/board_bits.hpp"
#include "solver/base/board_index.hpp"

namespace kalah::base {

// Tables shared by every board of one database: per pit and seed count, the board delta of
// a plain sowing, the seeds it puts in the store and the ring place of its last seed
// (0..m-1 own pit, m store, m+1..2m opponent cell place-1).
struct SowTables {
  int m = 0;
  int max_seeds = 0;
  std::vector<u128> delta;           // [pit][c]
  std::vector<std::uint8_t> stored;  // [pit][c]
  std::vector<std::uint8_t> last;    // [pit][c]
  u128 capture_kill[32] = {};        // [last place]: ~(cells `last` and its facing cell), own pits only
  BoardIndexer index;                // a level's index of a successor (Kernel::index)

  // Sowings of pits holding up to max_c seeds; index() for boards of at most
  // ix.max_seeds() seeds.
  SowTables(const BoardIndexer& ix, int max_c) : m(ix.pits()), max_seeds(max_c), index(ix) {
    const int ring = 2 * m + 1;
    for (int place = 0; place < 32; ++place)
      capture_kill[place] = place < m ? ~(byte_at(place, 0xff) | byte_at(2 * m - 1 - place, 0xff)) : ~u128(0);
    delta.resize(static_cast<std::size_t>(m) * (max_c + 1));
    stored.resize(delta.size());
    last.resize(delta.size());
    for (int i = 0; i < m; ++i)
      for (int c = 0; c <= max_c; ++c) {
        const int laps = c / ring, rest = c % ring;
        u128 add = 0;
        for (int j = 0; j < 2 * m; ++j) add += byte_at(j, laps);
        int place = i, st = laps;
        for (int s = 0; s < rest; ++s) {
          if (++place == ring) place = 0;
          if (place < m)
            add += byte_at(place, 1);
          else if (place == m)
            ++st;
          else
            add += byte_at(place - 1, 1);
        }
        const std::size_t at = static_cast<std::size_t>(i) * (max_c + 1) + c;
        delta[at] = add - byte_at(i, c);
        stored[at] = static_cast<std::uint8_t>(st);
        last[at] = static_cast<std::uint8_t>(place);
      }
  }
  std::size_t at(int pit, int c) const { return static_cast<std::size_t>(pit) * (max_seeds + 1) + c; }
};

// One successor of a board: the board seen by whoever moves next, its seed count (level),
// and the sign and offset that turn its value into the mover's: v = stored + sign * value.
struct Successor {
  u128 board;
  int level;
  int stored;
  bool again;    // extra turn: same mover (sign +1), else the opponent moves (sign -1)
  bool capture;  // the sowing captured (the search orders captures early)
};

template <int M, Sowing S, Capture C, EndRule E>
struct Kernel {
  static constexpr int kCells = 2 * M;
  static constexpr u128 kOwnMask = (u128(1) << (8 * M)) - 1;
  static constexpr u128 kAllMask = M == 8 ? ~u128(0) : (u128(1) << (16 * M)) - 1;

  const SowTables& tab;

  static u128 flip(u128 x) { return ((x >> (8 * M)) | (x << (8 * M))) & kAllMask; }

  // Terminal board: true and the remainder value (mover's seeds minus opponent's) in *v.
  static bool terminal(u128 x, int k, int* v) {
    const bool own_empty = (x & kOwnMask) == 0;
    if (own_empty) {
      *v = -k;
      return true;
    }
    if (E == EndRule::Either && (x >> (8 * M)) == 0) {
      *v = k;
      return true;
    }
    return false;
  }

  // The successor's index within its level (requires at most tab.index.max_seeds() seeds).
  std::uint64_t index(u128 x) const { return tab.index.index_m<M>(x); }

  // Bit 8i+7 set for every non-empty pit i of the mover.
  static std::uint64_t nonempty_pits(u128 x) {
    constexpr std::uint64_t kLow7 = 0x7f7f7f7f7f7f7f7fULL;
    constexpr std::uint64_t kOwnHigh =
        M == 8 ? 0x8080808080808080ULL : (0x8080808080808080ULL & ((1ULL << (8 * M)) - 1));
    const std::uint64_t lo = static_cast<std::uint64_t>(x);
    return (((lo & kLow7) + kLow7) | lo) & kOwnHigh;
  }

  // Sow pit `pit` (non-empty) of board x with k seeds; fills *out.
  void sow(u128 x, int k, int pit, Successor* out) const {
    int c = own_byte_of(x, pit);
    assert(0 <= pit && pit < M && c > 0 && c <= tab.max_seeds);
    std::size_t t = tab.at(pit, c);
    u128 nb = x + tab.delta[t];
    int st = tab.stored[t];
    int last = tab.last[t];
    if constexpr (S == Sowing::Kalah) {
      // Branch-free: extra turn, capture site and capture are data-dependent coin flips.
      alignas(16) std::uint8_t cells[16];
      std::memcpy(cells, &nb, sizeof cells);
      const int lp = last & 15;                  // last < M matters; others are masked
      const int opp = (kCells - 1 - last) & 15;  // the facing cell when last < M
      const int o = cells[opp];
      const bool cap = last < M && cells[lp] == 1 && (C == Capture::Empty || o > 0);
      nb &= cap ? tab.capture_kill[last] : ~u128(0);
      st += cap ? o + 1 : 0;
      const bool again = last == M;
      const u128 f = flip(nb);
      out->board = again ? nb : f;
      out->level = k - st;
      out->stored = st;
      out->again = again;
      out->capture = cap;
      return;
    } else {
      // Relay: the last seed in a non-empty own pit after a lap that reached the opponent
      // picks that pit up and sows on; else 2/3 captures backwards on the opponent's side.
      for (;;) {
        const bool reached = c >= M - pit + 1;
        if (last < M && reached && own_byte_of(nb, last) > 1) {
          pit = last;
          c = own_byte_of(nb, pit);
          t = tab.at(pit, c);
          nb += tab.delta[t];
          st += tab.stored[t];
          last = tab.last[t];
          continue;
        }
        out->capture = false;
        if (last > M) {
          for (int cell = last - 1; cell >= M; --cell) {
            const int v = byte_of(nb, cell);
            if (v != 2 && v != 3) break;
            st += v;
            nb &= ~byte_at(cell, 0xff);
            out->capture = true;
          }
        }
        break;
      }
    }
    out->board = flip(nb);
    out->level = k - st;
    out->stored = st;
    out->again = false;
  }
};

// Calls f.template operator()<M, S, C, E>() for the runtime pit count and rules (relay
// sowing ignores the capture option: it is always instantiated with NonEmpty).
template <class F>
auto dispatch(int m, const Rules& rules, F&& f) {
  auto by_end = [&]<int M, Sowing S, Capture C>() {
    return rules.end == EndRule::Either ? f.template operator()<M, S, C, EndRule::Either>()
                                        : f.template operator()<M, S, C, EndRule::Mover>();
  };
  auto by_rules = [&]<int M>() {
    if (rules.sowing == Sowing::Relay) return by_end.template operator()<M, Sowing::Relay, Capture::NonEmpty>();
    return rules.capture == Capture::Empty ? by_end.template operator()<M, Sowing::Kalah, Capture::Empty>()
                                           : by_end.template operator()<M, Sowing::Kalah, Capture::NonEmpty>();
  };
  switch (m) {
    case 1: return by_rules.template operator()<1>();
    case 2: return by_rules.template operator()<2>();
    case 3: return by_rules.template operator()<3>();
    case 4: return by_rules.template operator()<4>();
    case 5: return by_rules.template operator()<5>();
    case 6: return by_rules.template operator()<6>();
    case 7: return by_rules.template operator()<7>();
    default: return by_rules.template operator()<8>();
  }
}

}  // namespace kalah::base

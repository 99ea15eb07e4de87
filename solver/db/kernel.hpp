// solver/db/kernel.hpp — the database builder's move generator: every sowing of a board,
// with the seeds it banks and the successor's level and index, specialised at compile time
// for the pit count and the rule set.
//
// Boards are handled as one 128-bit integer: byte i is cell i of engine/board.hpp's Board
// (the mover's pits, then the opponent's). A sowing of c seeds from pit i that does not end
// in a capture or relay changes the board by a fixed amount, so it is one 128-bit addition
// of a precomputed delta (byte arithmetic never carries: every cell stays within 0..255).
// Captures and relays are then applied on the bytes. The results equal engine/board.hpp's
// sow() exactly; the tests compare the databases with the reference solver under every rule
// option.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "engine/board.hpp"
#include "engine/rules.hpp"
#include "solver/db/index.hpp"

namespace kalah::dbk {

__extension__ typedef unsigned __int128 u128;

inline u128 to_bits(const Board& b) {
  u128 x;
  std::memcpy(&x, b.cells.data(), sizeof x);
  return x;
}
inline Board from_bits(u128 x) {
  Board b;
  std::memcpy(b.cells.data(), &x, sizeof x);
  return b;
}
inline int byte_of(u128 x, int i) { return static_cast<int>(static_cast<std::uint64_t>(x >> (8 * i)) & 0xff); }
inline u128 byte_at(int i, int v) { return static_cast<u128>(static_cast<unsigned>(v)) << (8 * i); }

// Tables shared by every board of one database: per pit and seed count, the board delta of
// a plain sowing, the seeds it puts in the store and the ring place of its last seed
// (0..m-1 own pit, m store, m+1..2m opponent cell place-1).
struct SowTables {
  int m = 0;
  int max_seeds = 0;
  std::vector<u128> delta;          // [pit][c]
  std::vector<std::uint8_t> stored;  // [pit][c]
  std::vector<std::uint8_t> last;    // [pit][c]
  std::vector<std::uint64_t> term;   // [cell][prefix]: BoardIndexer::term, copied for locality

  SowTables(const BoardIndexer& ix, int max_c) : m(ix.pits()), max_seeds(max_c) {
    term.resize(static_cast<std::size_t>(2 * m) * (max_c + 1));
    for (int i = 0; i + 1 < 2 * m; ++i)
      for (int p = 0; p <= max_c; ++p) term[static_cast<std::size_t>(i) * (max_c + 1) + p] = ix.term(i, p);
    const int ring = 2 * m + 1;
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
  bool again;  // extra turn: same mover (sign +1), else the opponent moves (sign -1)
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

  std::uint64_t index(u128 x) const {
    // Byte-wise prefix sums (no byte overflows: the total is at most 255).
    u128 p = x + (x << 8);
    p += p << 16;
    p += p << 32;
    p += p << 64;
    alignas(16) std::uint8_t pre[16];
    std::memcpy(pre, &p, sizeof pre);
    const std::uint64_t* term = tab.term.data();
    const int stride = tab.max_seeds + 1;
    std::uint64_t r = 0;
    for (int i = 0; i < kCells - 1; ++i) r += term[i * stride + pre[i]];
    return r;
  }

  // Sow pit `pit` (non-empty) of board x with k seeds; fills *out.
  void sow(u128 x, int k, int pit, Successor* out) const {
    int c = byte_of(x, pit);
    std::size_t t = tab.at(pit, c);
    u128 nb = x + tab.delta[t];
    int st = tab.stored[t];
    int last = tab.last[t];
    if constexpr (S == Sowing::Kalah) {
      if (last == M) {
        out->board = nb;
        out->level = k - st;
        out->stored = st;
        out->again = true;
        return;
      }
      if (last < M && byte_of(nb, last) == 1) {
        const int opp = kCells - 1 - last;
        const int o = byte_of(nb, opp);
        if (C == Capture::Empty || o > 0) {
          st += o + 1;
          nb &= ~(byte_at(last, 0xff) | byte_at(opp, 0xff));
        }
      }
    } else {
      // Relay: the last seed in a non-empty own pit after a lap that reached the opponent
      // picks that pit up and sows on; else 2/3 captures backwards on the opponent's side.
      for (;;) {
        const bool reached = c >= M - pit + 1;
        if (last < M && reached && byte_of(nb, last) > 1) {
          pit = last;
          c = byte_of(nb, pit);
          t = tab.at(pit, c);
          nb += tab.delta[t];
          st += tab.stored[t];
          last = tab.last[t];
          continue;
        }
        if (last > M) {
          for (int cell = last - 1; cell >= M; --cell) {
            const int v = byte_of(nb, cell);
            if (v != 2 && v != 3) break;
            st += v;
            nb &= ~byte_at(cell, 0xff);
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

}  // namespace kalah::dbk

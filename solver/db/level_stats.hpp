// solver/db/level_stats.hpp — how much information one level of an endgame database holds,
// measured against predictors a probe could compute cheaply (issue 14, "measure first"):
// the distribution of the stored values, their entropies given those predictors, the share
// of boards a one-move look recomputes, and the zstd size of a few packings of the level.
//
// Per board of level k (k seeds in the pits, mover to move, value v in [-k, k] with the
// parity of k; solver/base/value_bounds.hpp):
//   * s, the seeds on the mover's side (0..k): known from the board, no memory read;
//   * the predictor class: `terminal` (the game is over: v follows from the seeds), else
//     P, the best value for the mover through a sowing that LEAVES the level (it banks a
//     seed or captures, so the child lies in a lower level; value through the child as
//     engine/board.hpp's value_through), or "no leaving child" when every sowing stays in
//     the level. v >= P always (v is the best over all sowings) and v - P is even.
// All statistics derive from the joint counts of (s, class, v), kept as
//     joint[(s * classes + c) * (k + 1) + (v + k) / 2]
// with class c = (P + k) / 2 in 0..k, c = k + 1 for no leaving child, c = k + 2 terminal.
//
// Packings (each zstd-compressed per block of `block_entries` boards, as level files are):
//   raw      the level's bytes as stored today (docs/db-format.md);
//   code     one byte a board: (v - P) / 2 when P exists, 0 for terminal boards, and without a
//            leaving child the value zigzagged in steps of 2 from the one nearest 0 of k's parity
//            (no_leaving_code: 0, -2, 2, -4, 4, ... give 0, 1, 2, 3, 4, ... for k even; 1, -1,
//            3, -3, ... for k odd): those values centre near 0 and spread wide;
//   nibbles  the code in 4 bits, two boards a byte (even index in the low nibble), codes of
//            15 or more written as the escape 15; plus, per block, the escaped boards' raw
//            bytes in board order (what a decoder reads back for each escape).
#pragma once

#include <cstdint>
#include <vector>

#include "solver/db/database.hpp"

namespace kalah {

struct LevelStatsOptions {
  int threads = 0;  // 0: all cores
  bool compress = true;
  int compression = 3;                     // zstd level, today's default for level files
  std::uint32_t block_entries = 1u << 20;  // boards a compressed block (level files: 2^20)
};

struct LevelStats {
  static constexpr int kEscape = 15;  // the nibble code meaning "see the escaped values"

  int level = 0;
  std::uint64_t boards = 0;
  std::vector<std::uint64_t> joint;  // counts of (s, class, v), indexed as in the header comment

  // Compressed bytes of each packing (0 when not compressed).
  std::uint64_t raw_bytes = 0;
  std::uint64_t code_bytes = 0;
  std::uint64_t nibble_bytes = 0;
  std::uint64_t escape_bytes = 0;  // the escaped values of the nibble packing

  int classes() const { return level + 3; }
  int no_leaving_class() const { return level + 1; }
  int terminal_class() const { return level + 2; }
  std::uint64_t count(int s, int c, int half) const {
    return joint[(static_cast<std::size_t>(s) * classes() + c) * (level + 1) + half];
  }

  std::uint64_t terminal() const;        // boards whose game is over
  std::uint64_t no_leaving() const;      // boards not terminal whose every sowing stays in the level
  std::uint64_t with_leaving() const;    // boards with a leaving sowing (P exists)
  std::uint64_t value_equals_p() const;  // boards with P whose value is P
  // Boards by value: [v + k], 2k + 1 entries (odd offsets stay 0: the parity of k).
  std::vector<std::uint64_t> value_counts() const;
  // Boards without a leaving child by value: [v + k], 2k + 1 entries.
  std::vector<std::uint64_t> no_leaving_value_counts() const;
  // Boards with P by v - P: [v - P], 2k + 1 entries (odd offsets stay 0).
  std::vector<std::uint64_t> excess_counts() const;
  // The code of a board without a leaving child (k seeds, value v): in 0..k.
  static int no_leaving_code(int k, int v) {
    const int half = (v - (k & 1)) / 2;
    return half >= 0 ? 2 * half : -2 * half - 1;
  }
  // Boards by the code of the packings: [code], k + 1 entries (terminal boards under 0).
  std::vector<std::uint64_t> code_counts() const;
  // Boards whose code needs an escape in a code of `bits` bits (codes >= 2^bits - 1).
  std::uint64_t escapes(int bits) const;
  // The escapes of a code of the value itself, no look at the children: boards not terminal
  // whose value lies outside the best window of 2^bits - 1 consecutive values of k's parity,
  // one window for the level (per_side false) or one for each s (a table of k + 1 offsets).
  std::uint64_t window_escapes(int bits, bool per_side) const;

  // Entropies in bits a board, over the boards named (conditional: H(Y | X) = sum over x of
  // p(x) H(Y | X = x)).
  double h_value() const;                        // H(v), all boards (zero-order)
  double h_value_given_side() const;             // H(v | s), all boards
  double h_excess() const;                       // H(v - P), boards with P
  double h_excess_given_side() const;            // H(v - P | s), boards with P
  double h_value_given_p() const;                // H(v | P), boards with P
  double h_value_given_p_side() const;           // H(v | P, s), boards with P
  double h_value_no_leaving() const;             // H(v), boards without a leaving child
  double h_value_no_leaving_given_side() const;  // H(v | s), boards without a leaving child
  double h_value_given_class() const;            // H(v | class), all boards (terminal: 0)
  double h_value_given_class_side() const;       // H(v | class, s), all boards
};

// Statistics of level k of `db` (requires 0 <= k <= db.max_seeds()): every board visited in
// index order, blocks of options.block_entries boards on options.threads threads. Reads
// levels below k only. Throws DatabaseError when an entry is impossible (outside [-k, k], of
// the wrong parity, or below a sowing's value: a damaged database).
LevelStats level_stats(const EndgameDatabase& db, int k, const LevelStatsOptions& options = {});

}  // namespace kalah

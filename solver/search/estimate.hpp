// solver/search/estimate.hpp — a quick, inexact estimate of a board's remainder value: the
// first guess of MTD(f).
//
// MTD(f) proves bounds around a guess; how much work the passes below the value cost
// depends on the guess (Kalah(6,5) with a 28-seed database: 918 M nodes from a guess of 0,
// 384 M from the true value). The estimate is a depth-limited negamax alpha-beta on the
// seeds banked along the way: exact at terminal boards and database boards, 0 (the rest of
// the seeds shared evenly) at the depth limit. Iterative deepening stops once an iteration
// has searched `node_budget` nodes. No table: its values are not bounds and must never
// reach the transposition table. Only the speed of the exact search depends on it, never
// a value.
#pragma once

#include <cstdint>

#include "engine/board.hpp"
#include "engine/rules.hpp"
#include "solver/base/sowing_kernel.hpp"
#include "solver/search/endgame_probe.hpp"

namespace kalah::search {

struct Estimate {
  int value = 0;            // the estimate of the remainder value
  int depth = 0;            // sowings looked ahead by the last completed iteration
  std::uint64_t nodes = 0;  // nodes searched, all iterations
};

// Estimate of the remainder value of b (m pits, k seeds in the pits, mover to move, not
// terminal) under `rules` (natural end), probing `probe` where it covers the seeds. `sowing`
// must hold tables for pits of up to k seeds (and, with an in-memory database in the probe,
// its indexing).
Estimate estimate_value(const Board& b, int m, int k, const Rules& rules, const base::SowTables& sowing,
                        const EndgameProbe& probe, std::uint64_t node_budget);

}  // namespace kalah::search

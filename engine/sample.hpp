// engine/sample.hpp — random reachable positions, for benchmarks, tests and label sets.
//
// A sample is the position where a game of uniformly random sowings from the start of
// Kalah(pits, seeds) first holds exactly `pit_seeds` seeds in the pits, with the game not
// over; a game that skips that count (a capture or a sowing into the store takes several
// seeds at once) or ends first is discarded and another played. The generator is seeded, so a
// sample set is reproducible from (pits, seeds, rules, pit_seeds, seed).
#pragma once

#include <cstdint>
#include <optional>
#include <random>

#include "engine/position.hpp"
#include "engine/rules.hpp"

namespace kalah {

// One sample, or nothing after `attempts` discarded games (a count no game reaches often,
// e.g. one just below the start's). Throws PositionError for a size out of range.
std::optional<Position> random_position(int pits, int seeds, int pit_seeds, const Rules& rules, std::mt19937_64& rng,
                                        int attempts = 10000);

}  // namespace kalah

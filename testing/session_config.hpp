// testing/session_config.hpp — the session most api tests open: Kalah(pits, seeds) boards,
// a 16 MiB table, one thread, no database.
#pragma once

#include <cstdint>

#include "engine/rules.hpp"
#include "solver/api/session.hpp"

namespace kalah::test {

inline api::SessionConfig small_session_config(int pits, int seeds, const Rules& rules = {}) {
  api::SessionConfig c;
  c.pits = pits;
  c.rules = rules;
  c.max_seeds = 2 * pits * seeds;
  c.table_bytes = std::uint64_t(16) << 20;
  c.threads = 1;
  return c;
}

}  // namespace kalah::test

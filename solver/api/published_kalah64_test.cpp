// Kalah(6,4), the board everybody solves first: +8 under the standard rules (Rawlings) and
// +10 with empty capture (Irving et al., Rawlings). Each check builds a 20-seed endgame
// database in memory (225 million boards) and searches with it on two threads: the most
// expensive tests of the suite (tens of seconds each), kept because these are the
// published values. They go through the library's entry point, as `kalah solve` does.
#include "testing/catch.hpp"

#include <memory>

#include "engine/position.hpp"
#include "solver/api/reports.hpp"
#include "solver/api/session.hpp"
#include "solver/db/database.hpp"

using namespace kalah;

namespace {

int solve_kalah64(const Rules& rules) {
  api::SessionConfig config;
  config.pits = 6;
  config.rules = rules;
  config.max_seeds = 48;
  config.database = std::make_shared<const EndgameDatabase>(EndgameDatabase::build_in_memory(6, rules, 20, 2));
  config.table_bytes = std::uint64_t(256) << 20;
  config.threads = 2;
  api::Session session(config);
  const api::SolveReport report = api::solve(session, Position::start(6, 4), true);
  CHECK(!report.interrupted);
  CHECK(report.stats.db_max_seeds == 20);
  return report.value;
}

}  // namespace

TEST_CASE("published: Kalah(6,4) standard rules is +8", "[api][published][slow]") {
  CHECK(solve_kalah64(Rules::preset("standard")) == 8);
}

TEST_CASE("published: Kalah(6,4) with empty capture is +10", "[api][published][slow]") {
  CHECK(solve_kalah64(Rules::preset("empty-capture")) == 10);
}

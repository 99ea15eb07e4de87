// Kalah(6,4), the board everybody solves first: +8 under the standard rules (Rawlings) and
// +10 with empty capture (Irving et al., Rawlings). Each check builds a 20-seed endgame
// database in memory (225 million boards) and searches with it on two threads: the most
// expensive tests of the suite (tens of seconds each), kept because these are the
// published values the issue names.
#include "testing/catch.hpp"

#include "engine/position.hpp"
#include "solver/db/database.hpp"
#include "solver/search/solver.hpp"

using namespace kalah;

namespace {

int solve_kalah64(const Rules& rules) {
  const EndgameDatabase db = EndgameDatabase::build_in_memory(6, rules, 20, 2);
  search::SolverOptions options;
  options.table_bytes = std::size_t(256) << 20;
  options.threads = 2;
  options.probe = search::database_probe(db);
  search::Solver solver(6, rules, 48, options);
  return solver.value(Position::start(6, 4).board());
}

}  // namespace

TEST_CASE("published: Kalah(6,4) standard rules is +8", "[search][published][slow]") {
  CHECK(solve_kalah64(Rules::preset("standard")) == 8);
}

TEST_CASE("published: Kalah(6,4) with empty capture is +10", "[search][published][slow]") {
  CHECK(solve_kalah64(Rules::preset("empty-capture")) == 10);
}

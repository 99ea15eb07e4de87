// What rank 0 refuses to run with (ranks_refusal). The messages themselves go through the
// mpirun test in solver/cli/job_cli_test.cpp; a rank of another build needs two builds, so
// the rule is checked here on the reports a run would receive.
#include "testing/catch.hpp"

#include "solver/mpi/mpi_job.hpp"

namespace kalah::mpi {
namespace {

RankReady worker(int rank, std::string program, int database_seeds = 20) {
  RankReady w;
  w.rank = rank;
  w.host = "node" + std::to_string(rank);
  w.program = std::move(program);
  w.threads = 2;
  w.database_seeds = database_seeds;
  return w;
}

TEST_CASE("mpi: rank 0 goes on only with workers of its build and its levels", "[mpi]") {
  const std::string mine = "0123456789ab";
  CHECK(ranks_refusal({worker(1, mine), worker(2, mine)}, mine).empty());
  CHECK(ranks_refusal({worker(2, mine, -1), worker(1, mine, -1)}, mine).empty());  // no database at all

  SECTION("another build is named with its rank and host") {
    const std::string why = ranks_refusal({worker(1, mine), worker(2, "fedcba987654-dirty")}, mine);
    CHECK(why ==
          "rank 2 (node2) runs kalah fedcba987654-dirty, rank 0 runs 0123456789ab: give every host the same build");
    CHECK(ranks_refusal({worker(1, "unknown")}, mine).find("runs kalah unknown") != std::string::npos);
  }
  SECTION("different levels") {
    CHECK(ranks_refusal({worker(1, mine, 20), worker(2, mine, 18)}, mine) ==
          "the ranks loaded different database levels (0..18 and 0..20): give every host the same database");
  }
  SECTION("the first reason in the order the ranks reported") {
    RankReady failed = worker(2, "");
    failed.error = "node2:2: no database in /db";
    CHECK(ranks_refusal({worker(1, "other"), failed}, mine) ==
          "rank 1 (node1) runs kalah other, rank 0 runs 0123456789ab: give every host the same build");
    CHECK(ranks_refusal({failed, worker(1, "other")}, mine) ==
          "a worker could not open its session: node2:2: no database in /db");
  }
}

}  // namespace
}  // namespace kalah::mpi

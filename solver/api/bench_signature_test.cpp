// The bench signature (solver/api/bench.hpp): the node count of `kalah bench` with one
// thread equals the committed one, solver/api/bench_signature.txt. A change of the search
// that is meant to change it updates that file in the same commit (README, "bench").
#include "testing/catch.hpp"

#include <fstream>
#include <string>

#include "solver/api/bench.hpp"

TEST_CASE("bench: the node count equals the committed signature", "[api][bench][slow]") {
  std::ifstream in(KALAH_SOURCE_DIR "/solver/api/bench_signature.txt");
  std::uint64_t signature = 0;
  REQUIRE(in >> signature);
  const kalah::api::BenchReport report = kalah::api::run_bench(1);
  INFO("kalah bench counts " << report.total_nodes << " nodes; the committed signature is " << signature
                             << " (update solver/api/bench_signature.txt only for an intended change of search)");
  CHECK(report.total_nodes == signature);
  for (const auto& r : report.results) {
    CHECK(r.nodes > 0);
    if (r.name.find(", full") != std::string::npos) CHECK(!r.best.empty());  // a full solve's best first sowings
  }
}

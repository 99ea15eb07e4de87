// `kalah --version` (and `kalah version`) print the commit the binary was built from, the one
// the databases and job stores it writes record; `--help` points to it.
#include "testing/catch.hpp"

#include <string>

#include "solver/base/program_version.hpp"
#include "testing/run_cli.hpp"

using kalah::test::run_kalah;

TEST_CASE("kalah --version names the commit it was built from", "[cli]") {
  const std::string expected = "kalah " + std::string(kalah::program_version()) + " (" + kalah::program_build() + ")\n";
  for (const char* form : {"--version", "version"}) {
    INFO(form);
    const auto r = run_kalah(form);
    CHECK(r.exit_code == 0);
    CHECK(r.out == expected);
    CHECK(r.err.empty());
  }
  CHECK(std::string(kalah::program_version()).size() >= 7);  // a commit, or "unknown"
  CHECK(run_kalah("--help").out.find("kalah --version") != std::string::npos);
}

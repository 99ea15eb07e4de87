// kalah solve under the pie rule and the reference solver's size guard.
#include "testing/catch.hpp"

#include <algorithm>
#include <string>

#include "testing/run_cli.hpp"

using kalah::test::json_int;
using kalah::test::run_kalah;

TEST_CASE("cli: solve --pie at the start reports the pie value as the game's value", "[cli][pie]") {
  for (const char* rules : {"standard", "empty-capture"}) {
    INFO(rules);
    const auto openings = run_kalah(std::string("openings -m 4 -n 3 --pie --json --rules ") + rules);
    REQUIRE(openings.exit_code == 0);
    for (const char* solver : {"", " --reference"}) {
      const auto solve = run_kalah(std::string("solve -m 4 -n 3 --pie --json --rules ") + rules + solver);
      REQUIRE(solve.exit_code == 0);
      CHECK(json_int(solve.out, "value") == json_int(openings.out, "pie_value"));
      CHECK(json_int(solve.out, "value_without_pie") == json_int(openings.out, "value"));
      CHECK(solve.out.find("\"balanced\":[[") != std::string::npos);
    }
  }
  // Kalah(4,3) standard: +6 without the pie rule, 0 with it (North swaps every winning turn).
  const auto text = run_kalah("solve -m 4 -n 3 --pie");
  CHECK(text.out.find("pie value 0") != std::string::npos);
}

TEST_CASE("cli: solve --pie away from a start position changes nothing", "[cli][pie]") {
  const auto with = run_kalah("solve --position 2,1,0/0,3,1/2/1/S --pie --json");
  const auto without = run_kalah("solve --position 2,1,0/0,3,1/2/1/S --json");
  REQUIRE(with.exit_code == 0);
  CHECK(json_int(with.out, "value") == json_int(without.out, "value"));
  CHECK(with.out.find("value_without_pie") == std::string::npos);
}

TEST_CASE("cli: the reference solver refuses boards too large for it", "[cli]") {
  const auto r = run_kalah("solve -m 6 -n 6 --reference");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("reference solver is for small boards") != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

// `kalah replay` with record arguments that start with '-': only the replay command's own
// options (and their values) are options; every other argument, "-46" or "- 1" or "-a"
// alike, is a piece of the record (docs/replay.md), so a bad one is a record error (exit 1,
// the turn named), not an unknown option (exit 2).
#include "testing/catch.hpp"

#include "testing/run_cli.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using kalah::test::run_kalah;

namespace {

const std::string kNorthToMove = "--position 3,3,3,3,3,3/3,3,3,3,3,3/0/0/N";

}  // namespace

TEST_CASE("replay dash: records starting with '-' that are not valid are record errors naming the turn",
          "[cli][replay][bad-input]") {
  struct Case {
    const char* record;
    const char* message;
  };
  const Case cases[] = {
      {"- 1", "kalah replay: turn 1 (\"1\"): it is South's turn, not North's\n"},
      {"-*", "kalah replay: turn 1 (\"*\"): '*' must follow a pit number\n"},
      {"-a", "kalah replay: turn 1 (\"a\"): unexpected character 'a' (expected pit numbers 1..9, '*' or 'swap')\n"},
  };
  for (const auto& c : cases) {
    INFO("kalah replay --notation finnish \"" << c.record << "\"");
    const auto r = run_kalah(std::string("replay --notation finnish \"") + c.record + "\"");
    CHECK(r.exit_code == 1);
    CHECK(r.out.empty());
    CHECK(r.err == c.message);
  }
}

TEST_CASE("replay dash: other arguments starting with '-' are pieces of the record too", "[cli][replay][bad-input]") {
  const auto lone = run_kalah("replay -");
  CHECK(lone.exit_code == 1);
  CHECK(lone.err == "kalah replay: item 1 (\"-\"): no sowings on either side\n");

  const auto north = run_kalah("replay -m 6 -n 3 -46");  // North's sowings, but South is to move
  CHECK(north.exit_code == 1);
  CHECK(north.err == "kalah replay: turn 1 (\"46\"): it is South's turn, not North's\n");

  const auto irving = run_kalah("replay --notation irving -x");
  CHECK(irving.exit_code == 1);
  CHECK_THAT(irving.err, StartsWith("kalah replay: turn 1 (\"\"): empty turn"));
}

TEST_CASE("replay dash: a valid record starting with '-' replays when North is to move", "[cli][replay]") {
  const auto r = run_kalah("replay " + kNorthToMove + " \"-46, 1-5\" --json");
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK_THAT(r.out, Contains("\"record_finnish\":\"-46, 1-5\""));
  CHECK_THAT(r.out, Contains("\"final_position\":\"1,6,5,4,4,3/3,3,3,0,0,1/0/3/S\""));

  // Whitespace is ignored, after the leading '-' too.
  const auto spaced = run_kalah("replay " + kNorthToMove + " \"- 46, 1-5\" --json");
  REQUIRE(spaced.exit_code == 0);
  CHECK_THAT(spaced.out, Contains("\"record_finnish\":\"-46, 1-5\""));

  // A capture mark that captures nothing is a warning, not an error: still exit 0.
  const auto marked = run_kalah("replay " + kNorthToMove + " -46, 1*-5");
  REQUIRE(marked.exit_code == 0);
  CHECK_THAT(marked.out, Contains("turn 1  North  46  (+2 to North's store, 1 extra turn)"));
  CHECK_THAT(marked.out,
             Contains("warning   turn 2 (\"1*\"): the sowing of South pit 1 is marked '*' but captures nothing"));
}

TEST_CASE("replay dash: options keep working around records that start with '-'", "[cli][replay]") {
  // Short options with separate and attached values, long ones with '=' and abbreviated.
  const auto shorts = run_kalah("replay -m 4 -n 3 --json 1-");
  REQUIRE(shorts.exit_code == 0);
  CHECK_THAT(shorts.out, Contains("\"start\":\"3,3,3,3/3,3,3,3/0/0/S\""));

  const auto attached = run_kalah("replay -m4 -n3 --notation=irving --json 0");
  REQUIRE(attached.exit_code == 0);
  CHECK_THAT(attached.out, Contains("\"start\":\"3,3,3,3/3,3,3,3/0/0/S\""));
  CHECK_THAT(attached.out, Contains("\"notation\":\"irving\""));

  const auto abbreviated = run_kalah("replay --not irving -m 4 -n 3 --json 0");
  REQUIRE(abbreviated.exit_code == 0);
  CHECK_THAT(abbreviated.out, Contains("\"notation\":\"irving\""));

  // Options after a record that starts with '-', and an option value that starts with '-'.
  const auto after = run_kalah("replay " + kNorthToMove + " -46, 1-5 -m 6 --json");
  REQUIRE(after.exit_code == 0);
  CHECK_THAT(after.out, Contains("\"record_finnish\":\"-46, 1-5\""));
  const auto negative = run_kalah("replay --seeds -1 -46");
  CHECK(negative.exit_code == 2);
  CHECK_THAT(negative.err, Contains("negative seeds per pit"));

  const auto help = run_kalah("replay -h");
  CHECK(help.exit_code == 0);
  CHECK_THAT(help.out, Contains("--notation"));
}

TEST_CASE("replay dash: unknown options are still usage errors (exit 2)", "[cli][replay][bad-input]") {
  const auto bogus = run_kalah("replay --bogus 1-");
  CHECK(bogus.exit_code == 2);
  CHECK(bogus.err == "kalah replay: unrecognised option '--bogus' (see 'kalah replay --help')\n");

  const auto bogus_value = run_kalah("replay --bogus=3 -46");
  CHECK(bogus_value.exit_code == 2);
  CHECK_THAT(bogus_value.err, Contains("unrecognised option '--bogus=3'"));

  const auto missing = run_kalah("replay -46 --pits");
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.err, Contains("the required argument for option '--pits' is missing"));
}

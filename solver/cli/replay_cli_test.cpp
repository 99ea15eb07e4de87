// `kalah replay` from the command line: text and JSON output, illegal moves (exit 1, the
// turn named), bad options and positions (exit 2), every error on one line.
#include "testing/catch.hpp"

#include "testing/run_cli.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::EndsWith;
using Catch::Matchers::StartsWith;
using kalah::test::run_kalah;

namespace {

const std::string kFinnish =
    "--pits 6 --seeds 3 --rules standard --end mover --notation finnish "
    "\"45-46, 1*-5, 2-, -63*, 6-, -561646562, 4-3, 656-\"";

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

}  // namespace

TEST_CASE("replay CLI: the Finnish example as text", "[cli][replay]") {
  const auto r = run_kalah("replay " + kFinnish);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK_THAT(r.out, Contains("turn 1  South  45  (+2 to South's store, 1 extra turn)"));
  CHECK_THAT(r.out, Contains("turn 8  North  561646562"));
  CHECK_THAT(r.out,
             Contains("warning   turn 8 (\"561646562\"): the sowing of North pit 2 captures but is not marked '*'"));
  CHECK_THAT(r.out, Contains("turn 11  South  656"));
  CHECK_THAT(r.out, Contains("final     South 12, North 24"));
  CHECK_THAT(r.out, Contains("North wins by 12"));
  CHECK_THAT(r.out, Contains("end=mover"));
  CHECK_THAT(r.out, Contains(" N[ 24]"));  // the last board
  CHECK_THAT(r.out, Contains("game over"));
}

TEST_CASE("replay CLI: the Finnish example as JSON", "[cli][replay][json]") {
  const auto r = run_kalah("replay " + kFinnish + " --json");
  REQUIRE(r.exit_code == 0);
  CHECK(lines(r.out) == 1);
  CHECK_THAT(r.out, StartsWith("{"));
  CHECK_THAT(r.out, Contains("\"south\":12,\"north\":24,\"margin\":-12,\"winner\":\"north\""));
  CHECK_THAT(r.out, Contains("\"ended_early\":false"));
  CHECK_THAT(r.out, Contains("\"over\":true"));
  CHECK_THAT(
      r.out,
      Contains("\"rules\":{\"preset\":\"custom\",\"sowing\":\"kalah\",\"capture\":\"nonempty\",\"end\":\"mover\""));
  CHECK_THAT(r.out, Contains("{\"number\":1,\"side\":\"south\",\"text\":\"45\",\"swap\":false,\"pits\":[4,5],"
                             "\"capture\":false,\"position\":\"3,3,3,0,0,5/4,4,3,3,3,3/2/0/N\",\"warnings\":[]}"));
  CHECK_THAT(
      r.out,
      Contains(
          "\"warnings\":[\"turn 8 (\\\"561646562\\\"): the sowing of North pit 2 captures but is not marked '*'\"]}"));
  CHECK_THAT(r.out, Contains("\"final_position\":\"0,0,0,0,0,0/0,0,0,0,0,0/12/24/"));
}

TEST_CASE("replay CLI: an Irving perfect game", "[cli][replay]") {
  const auto r = run_kalah(
      "replay --pits 6 --seeds 4 --rules empty-capture --notation irving --json "
      "25-10-3-3-5153-1-4-5-045-4-535452-53-4-1-3-2-0-54-1-3");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Contains("\"south\":29,\"north\":19,\"margin\":10,\"winner\":\"south\""));
  CHECK_THAT(r.out, Contains("\"warnings\":[]}"));
}

TEST_CASE("replay CLI: a record from a position, given in pieces, starting with '-'", "[cli][replay]") {
  const auto r = run_kalah("replay --position 3,3,3,3,3,3/3,3,3,3,3,3/0/0/N --json -46, 1-5");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Contains("\"start\":\"3,3,3,3,3,3/3,3,3,3,3,3/0/0/N\""));
  CHECK_THAT(r.out, Contains("\"record_finnish\":\"-46, 1-5\""));
  CHECK_THAT(r.out, Contains("\"over\":false"));
  CHECK_THAT(r.out, Contains("\"winner\":null"));
}

TEST_CASE("replay CLI: early end is reported", "[cli][replay]") {
  const auto r = run_kalah("replay --position 0,0,0,0,1,2/1,1,1,0,0,0/5/0/S --rules bga 6-");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Contains("South wins by 6; the game ended early"));
  const auto j = run_kalah("replay --position 0,0,0,0,1,2/1,1,1,0,0,0/5/0/S --rules bga --json 6-");
  CHECK_THAT(j.out, Contains("\"ended_early\":true"));
}

TEST_CASE("replay CLI: the pie swap", "[cli][replay][pie]") {
  const auto r = run_kalah("replay --pits 6 --seeds 3 --pie --notation irving 34-swap-35-0");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Contains("turn 2  North  swap  (pie rule: the players swap sides)"));
  CHECK_THAT(r.out, Contains("North took the pie swap"));
}

TEST_CASE("replay CLI: an illegal move exits 1 and names the turn and move", "[cli][replay][bad-input]") {
  const auto r = run_kalah("replay --pits 6 --seeds 3 \"45-46, 4-\"");
  CHECK(r.exit_code == 1);
  CHECK(r.out.empty());
  CHECK(r.err == "kalah replay: turn 3 (\"4\"): South pit 4 is empty\n");

  const auto typo = run_kalah(
      "replay --pits 4 --seeds 6 --rules empty-capture --notation irving "
      "1-0-2-3-1330-01-2-2-21-201-2-23-3-23-230-32-32-12-1-0-32");
  CHECK(typo.exit_code == 1);
  CHECK_THAT(typo.err, StartsWith("kalah replay: turn 10 (\"201\"): North hole 1 cannot follow North hole 0"));
  CHECK(lines(typo.err) == 1);

  const auto syntax = run_kalah("replay --pits 6 --seeds 3 \"45-46-1\"");
  CHECK(syntax.exit_code == 1);
  CHECK(lines(syntax.err) == 1);
}

TEST_CASE("replay CLI: bad options and positions exit 2 with a one-line error", "[cli][replay][bad-input]") {
  struct Case {
    const char* args;
    const char* message;
  };
  const Case cases[] = {
      {"--pits 9 1-", "unsupported number of pits 9"},
      {"--pits 0 1-", "unsupported number of pits 0"},
      {"--pits x 1-", "'--pits' is invalid"},
      {"--seeds 30 1-", "Kalah(6,30) has 360 seeds"},
      {"--seeds -1 1-", "negative seeds per pit"},
      {"--seeds", "missing"},
      {"--notation klingon 1-", "unknown notation 'klingon'"},
      {"--rules nosuch 1-", "unknown rule preset 'nosuch'"},
      {"--end sometimes 1-", "bad --end value 'sometimes'"},
      {"--capture all 1-", "bad --capture value 'all'"},
      {"--position 1,2/3/0/0/S 1-", "South has 2 pits but North has 1"},
      {"--position 1,2/3,x/0/0/S 1-", "non-numeric seed count of North pit 2"},
      {"--pits 3 --position 1,2/3,4/0/0/S 1-", "has 2 pits a side but 3 were asked for"},
      {"--position 1,2/3,4/0/0/Q 1-", "side to move 'Q' is not S or N"},
      {"--frobnicate 1-", "unrecognised option '--frobnicate'"},
      {"", "no game record given"},
  };
  for (const auto& c : cases) {
    INFO("kalah replay " << c.args);
    const auto r = run_kalah(std::string("replay ") + c.args);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK_THAT(r.err, StartsWith("kalah replay: ") && Contains(c.message) && EndsWith("\n"));
    CHECK(lines(r.err) == 1);
  }
}

TEST_CASE("replay CLI: --help", "[cli][replay]") {
  const auto r = run_kalah("replay --help");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Contains("--notation"));
  CHECK_THAT(r.out, Contains("--rules"));
}

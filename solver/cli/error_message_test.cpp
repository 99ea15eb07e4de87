// Errors of the `kalah` command repeat user input escaped and bounded: whatever the input
// (newlines, a 60 KB position, a multi-byte UTF-8 character, long option values), stderr
// holds exactly one line of valid UTF-8, and the exit code keeps its class (2 usage error,
// 1 record error).
#include "testing/catch.hpp"

#include <string>

#include "testing/run_cli.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::EndsWith;
using Catch::Matchers::StartsWith;
using kalah::test::run_kalah;

namespace {

// Well-formed UTF-8 (checked here independently of engine/text.hpp).
bool valid_utf8(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    const std::size_t n = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xe ? 3 : (b >> 3) == 0x1e ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (std::size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return false;
    i += n;
  }
  return true;
}

// Exactly one line, no other control character, valid UTF-8, bounded.
void check_one_line_error(const kalah::test::CliResult& r) {
  INFO("stderr: " << r.err);
  CHECK(r.out.empty());
  REQUIRE_FALSE(r.err.empty());
  CHECK(r.err.back() == '\n');
  int newlines = 0, controls = 0;
  for (char c : r.err) {
    newlines += c == '\n';
    controls += c != '\n' && (static_cast<unsigned char>(c) < 0x20 || c == 0x7f);
  }
  CHECK(newlines == 1);
  CHECK(controls == 0);
  CHECK(valid_utf8(r.err));
  CHECK(r.err.size() < 600);
}

// "1,2,3,...,0,1,..." of exactly `bytes` bytes.
std::string long_position(std::size_t bytes) {
  std::string s;
  for (int i = 1; s.size() < bytes; ++i) s += (s.empty() ? "" : ",") + std::to_string(i % 10);
  s.resize(bytes);
  return s;
}

}  // namespace

TEST_CASE("error messages: a newline inside --position is escaped, one line, exit 2", "[cli][errors]") {
  const auto r = run_kalah("solve --position \"$(printf '4,4,4/4,4,4/0/0/\\nS')\"");
  CHECK(r.exit_code == 2);
  check_one_line_error(r);
  CHECK(r.err == "kalah solve: position '4,4,4/4,4,4/0/0/\\nS': side to move '\\nS' is not S or N\n");
}

TEST_CASE("error messages: a 60 KB --position is cut with its length noted, exit 2", "[cli][errors]") {
  const std::string position = long_position(60012);
  REQUIRE(position.size() == 60012);
  const auto r = run_kalah("solve --position " + position);
  CHECK(r.exit_code == 2);
  check_one_line_error(r);
  CHECK_THAT(r.err, StartsWith("kalah solve: position '1,2,3,4,5,6,7,8,9,0,"));
  CHECK_THAT(r.err, Contains(",...' (60012 bytes) has 1 '/'-separated fields, expected 5"));
}

TEST_CASE("error messages: an unexpected UTF-8 character in a record is shown whole, exit 1", "[cli][errors][replay]") {
  const auto r = run_kalah("replay --notation irving \"$(printf '\\331\\243')\"");  // U+0663, two bytes
  CHECK(r.exit_code == 1);
  check_one_line_error(r);
  CHECK(
      r.err ==
      "kalah replay: turn 1 (\"\xd9\xa3\"): unexpected character '\xd9\xa3' (expected hole numbers 0..9 or 'swap')\n");
}

TEST_CASE("error messages: control characters and invalid bytes in a record are escaped, exit 1",
          "[cli][errors][replay]") {
  const auto r = run_kalah("replay --notation irving \"$(printf '1-\\033[2J\\377')\"");
  CHECK(r.exit_code == 1);
  check_one_line_error(r);
  CHECK(r.err ==
        "kalah replay: turn 2 (\"\\x1b[2J\\xff\"): unexpected character '\\x1b' "
        "(expected hole numbers 0..9 or 'swap')\n");
}

TEST_CASE("error messages: an over-long --rules value is cut, exit 2", "[cli][errors]") {
  const auto r = run_kalah("solve --rules " + std::string(5000, 'x'));
  CHECK(r.exit_code == 2);
  check_one_line_error(r);
  CHECK(r.err == "kalah solve: unknown rule preset '" + std::string(48, 'x') +
                     "...' (5000 bytes) (expected standard, empty-capture, bga or relay)\n");
}

TEST_CASE("error messages: an over-long --capture value is cut, exit 2", "[cli][errors]") {
  const auto r = run_kalah("replay --capture \"$(printf 'all\\n%.0s' $(seq 1 2000))\" 1-");
  CHECK(r.exit_code == 2);
  check_one_line_error(r);
  CHECK_THAT(r.err, StartsWith("kalah replay: bad --capture value 'all\\nall\\nall\\n"));
  CHECK_THAT(r.err, EndsWith("...' (7999 bytes) (expected nonempty or empty)\n"));
}

TEST_CASE("error messages: Boost.Program_options errors echo values escaped and bounded, exit 2", "[cli][errors]") {
  const auto pits = run_kalah("solve --pits \"$(printf '6\\nx')" + std::string(3000, 'y') + "\"");
  CHECK(pits.exit_code == 2);
  check_one_line_error(pits);
  CHECK_THAT(pits.err, StartsWith("kalah solve: the argument ('6\\nxyyy"));
  CHECK_THAT(pits.err, EndsWith("...') for option '--pits' is invalid (see 'kalah solve --help')\n"));

  const auto unknown = run_kalah("openings \"$(printf -- '--no\\nsuch')\"");
  CHECK(unknown.exit_code == 2);
  check_one_line_error(unknown);
  CHECK(unknown.err == "kalah openings: unrecognised option '--no\\nsuch' (see 'kalah openings --help')\n");
}

TEST_CASE("error messages: unknown commands and byte sizes are quoted, one line", "[cli][errors]") {
  const auto command = run_kalah("\"$(printf 'so\\nlve')\"");
  CHECK(command.exit_code == 2);
  check_one_line_error(command);
  CHECK(command.err == "kalah: unknown command 'so\\nlve' (see 'kalah --help')\n");

  const auto size = run_kalah("solve --tt-memory \"$(printf '1\\nG')\"");
  CHECK(size.exit_code == 2);
  check_one_line_error(size);
  CHECK(size.err == "kalah solve: --tt-memory: '1\\nG' is not a byte count (e.g. 4G, 512M, 1000000)\n");
}

// The ASCII board (engine/ascii.hpp): layout, labels, stores and the side-to-move marker.
#include "testing/catch.hpp"

#include "engine/ascii.hpp"

using namespace kalah;
using Catch::Matchers::Contains;

TEST_CASE("ascii board: Kalah(6,3) after South's first turn", "[ascii]") {
  // The example of engine/ascii.hpp's header.
  const std::string expected =
      "         N6   N5   N4   N3   N2   N1\n"
      "       [  3][  3][  3][  3][  4][  4]      North  <- to move\n"
      " N[  0]                              [  2] S\n"
      "       [  3][  3][  3][  0][  0][  5]      South\n"
      "         S1   S2   S3   S4   S5   S6\n";
  CHECK(ascii_board(Position::parse("3,3,3,0,0,5/4,4,3,3,3,3/2/0/N")) == expected);
}

TEST_CASE("ascii board: North's pits run right to left, stores at the ends", "[ascii]") {
  const std::string s = ascii_board(Position::parse("1,2,3/4,5,6/17/200/S"));
  // North's pit 1 (4 seeds) is drawn rightmost, pit 3 (6 seeds) leftmost.
  CHECK_THAT(s, Contains("[  6][  5][  4]      North\n"));
  CHECK_THAT(s, Contains("[  1][  2][  3]      South  <- to move\n"));
  CHECK_THAT(s, Contains(" N[200]"));
  CHECK_THAT(s, Contains("[ 17] S"));
  CHECK_THAT(s, Contains("  N3   N2   N1\n"));
  CHECK_THAT(s, Contains("  S1   S2   S3\n"));
}

TEST_CASE("ascii board: game over replaces the side-to-move marker", "[ascii]") {
  const std::string s = ascii_board(Position::parse("0,0/0,0/3/5/S"), true);
  CHECK(s.find("to move") == std::string::npos);
  CHECK_THAT(s, Contains("game over\n"));
}

TEST_CASE("ascii board: every size draws five lines of equal pit rows", "[ascii]") {
  for (int m = 1; m <= kMaxPits; ++m) {
    const std::string s = ascii_board(Position::start(m, 2));
    int lines = 0;
    for (char c : s) lines += c == '\n';
    CHECK(lines == 5);
    CHECK_THAT(s, Contains("N" + std::to_string(m)));
    CHECK_THAT(s, Contains("S" + std::to_string(m)));
  }
}

// The position text format S1,..,Sm/N1,..,Nm/storeS/storeN/X (engine/position.hpp): round
// trips and every kind of malformed text, each rejected with a message naming the problem.
#include "testing/catch.hpp"

#include <random>

#include "engine/position.hpp"

using namespace kalah;
using Catch::Matchers::Contains;

TEST_CASE("position text: the start of Kalah(6,4)", "[position]") {
  const Position p = Position::start(6, 4);
  CHECK(p.to_text() == "4,4,4,4,4,4/4,4,4,4,4,4/0/0/S");
  CHECK(Position::parse("4,4,4,4,4,4/4,4,4,4,4,4/0/0/S") == p);
  CHECK(p.total_seeds() == 48);
}

TEST_CASE("position text: round trips on random positions", "[position]") {
  std::mt19937 rng(7);
  for (int k = 0; k < 2000; ++k) {
    Position p;
    p.pits = 1 + static_cast<int>(rng() % kMaxPits);
    int budget = kMaxSeeds;
    auto take = [&](int most) {
      const int v = static_cast<int>(rng() % static_cast<unsigned>(std::min(most, budget) + 1));
      budget -= v;
      return v;
    };
    for (int s = 0; s < 2; ++s)
      for (int i = 0; i < p.pits; ++i) p.side[s][i] = static_cast<std::uint8_t>(take(30));
    p.store[0] = take(60);
    p.store[1] = take(60);
    p.to_move = rng() % 2 ? Side::South : Side::North;
    const std::string text = p.to_text();
    INFO(text);
    CHECK(Position::parse(text) == p);
    CHECK(Position::parse(text, p.pits) == p);
    CHECK(Position::parse(text).to_text() == text);
  }
}

TEST_CASE("position text: spaces around fields and a lower-case side are accepted", "[position]") {
  CHECK(Position::parse(" 1, 2 ,3/4,5,6/ 7 /8/ n \n").to_text() == "1,2,3/4,5,6/7/8/N");
}

TEST_CASE("position text: board and seed limits", "[position]") {
  CHECK_NOTHROW(Position::start(8, 15));  // 240 seeds
  CHECK_THROWS_WITH(Position::start(8, 16), Contains("256 seeds") && Contains("255"));
  CHECK_THROWS_WITH(Position::start(9, 1), Contains("unsupported number of pits 9"));
  CHECK_THROWS_WITH(Position::start(0, 4), Contains("unsupported number of pits 0"));
  CHECK_THROWS_WITH(Position::start(6, -1), Contains("negative seeds"));
}

namespace {
// The parse error message for `text` (empty if it parsed).
std::string error_of(const std::string& text, int expected_pits = 0) {
  try {
    Position::parse(text, expected_pits);
  } catch (const PositionError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("position text: malformed positions are rejected, naming the problem", "[position][bad-input]") {
  using Catch::Matchers::Contains;
  // Pit counts.
  CHECK_THAT(error_of("1,2,3/4,5/0/0/S"), Contains("South has 3 pits but North has 2"));
  CHECK_THAT(error_of("1,2,3/4,5,6/0/0/S", 4), Contains("has 3 pits a side but 4 were asked for"));
  CHECK_THAT(error_of("1,1,1,1,1,1,1,1,1/1,1,1,1,1,1,1,1,1/0/0/S"), Contains("9 pits a side, at most 8"));
  // Field counts.
  CHECK_THAT(error_of("1,2/3,4/0/S"), Contains("has 4 '/'-separated fields, expected 5"));
  CHECK_THAT(error_of("1,2/3,4/0/0/S/1"), Contains("has 6 '/'-separated fields, expected 5"));
  CHECK_THAT(error_of(""), Contains("has 1 '/'-separated fields, expected 5"));
  // Counts.
  CHECK_THAT(error_of("1,-2/3,4/0/0/S"), Contains("negative seed count of South pit 2"));
  CHECK_THAT(error_of("1,2/3,x/0/0/S"), Contains("non-numeric seed count of North pit 2"));
  CHECK_THAT(error_of("1,2/3,4a/0/0/S"), Contains("non-numeric seed count of North pit 2"));
  CHECK_THAT(error_of("1,2/3,4/0/-1/S"), Contains("negative North store"));
  CHECK_THAT(error_of("1,2/3,4/z/0/S"), Contains("non-numeric South store"));
  CHECK_THAT(error_of("1,2/3,999/0/0/S"), Contains("seed count of North pit 2 too large"));
  CHECK_THAT(error_of("1,2/3,99999999999/0/0/S"), Contains("too large"));
  // Empty fields.
  CHECK_THAT(error_of("1,,3/4,5,6/0/0/S"), Contains("empty seed count of South pit 2"));
  CHECK_THAT(error_of("1,2,3/4,5,6//0/S"), Contains("empty South store"));
  CHECK_THAT(error_of("1,2,3/4,5,6/0/0/"), Contains("side to move '' is not S or N"));
  // Total.
  CHECK_THAT(error_of("100,100/50,5/1/0/S"), Contains("holds 256 seeds, more than the supported 255"));
  // Side letter.
  CHECK_THAT(error_of("1,2/3,4/0/0/X"), Contains("side to move 'X' is not S or N"));
  CHECK_THAT(error_of("1,2/3,4/0/0/South"), Contains("side to move 'South' is not S or N"));
}

TEST_CASE("position: the mover-relative board and back", "[position]") {
  Position p = Position::parse("1,2,3/4,5,6/7/8/N");
  const Board b = p.board();
  CHECK(b.cells[0] == 4);  // North's pit 1 first: North is to move
  CHECK(b.cells[3] == 1);
  Board changed = b;
  changed.cells[0] = 9;
  p.set_board(changed);
  CHECK(p.to_text() == "1,2,3/9,5,6/7/8/N");
}

// The pie rule in Game: only North may swap, only right after South's complete first turn,
// only with the rule on and only from a start position; the board stays as it is.
#include "testing/catch.hpp"

#include "engine/game.hpp"

using namespace kalah;

namespace {
Rules pie_rules() {
  Rules r;
  r.pie = true;
  return r;
}
}  // namespace

TEST_CASE("pie: North may swap right after South's first turn", "[pie]") {
  Game g(Position::start(6, 4), pie_rules());
  CHECK_FALSE(g.can_swap());  // South to move: nothing to swap yet
  g.sow(0);                   // pit 1 (4 seeds) ends in pit 5: South's turn is over
  REQUIRE(g.to_move() == Side::North);
  CHECK(g.can_swap());
  const Position before = g.position();
  g.swap();
  CHECK(g.swapped());
  CHECK(g.position() == before);  // the players change seats; the board does not change
  CHECK(g.to_move() == Side::North);
  CHECK_FALSE(g.can_swap());
  CHECK_THROWS_AS(g.swap(), IllegalMove);  // not twice
}

TEST_CASE("pie: not in the middle of South's first turn", "[pie]") {
  Game g(Position::start(6, 4), pie_rules());
  g.sow(2);  // pit 3 (4 seeds) ends in the store: South sows again
  REQUIRE(g.to_move() == Side::South);
  CHECK_FALSE(g.can_swap());
  CHECK_THROWS_AS(g.swap(), IllegalMove);
  g.sow(0);
  CHECK(g.can_swap());
}

TEST_CASE("pie: not after North has sown", "[pie]") {
  Game g(Position::start(6, 4), pie_rules());
  g.sow(0);
  g.sow(0);  // North declines the swap by sowing
  REQUIRE(g.to_move() == Side::South);
  CHECK_FALSE(g.can_swap());
  while (g.to_move() == Side::South) g.sow(g.legal_pits().front());  // South's second turn
  REQUIRE(g.to_move() == Side::North);
  CHECK_FALSE(g.can_swap());
  CHECK_THROWS_AS(g.swap(), IllegalMove);
}

TEST_CASE("pie: only with the rule on", "[pie]") {
  Game g(Position::start(6, 4), Rules{});
  g.sow(0);
  CHECK_FALSE(g.can_swap());
  try {
    g.swap();
    FAIL("swap accepted without the pie rule");
  } catch (const IllegalMove& e) {
    CHECK(std::string(e.what()).find("pie") != std::string::npos);
  }
}

TEST_CASE("pie: not from a position other than a start position", "[pie]") {
  Game g(Position::parse("4,4,4,4,4,4/4,4,4,4,4,3/0/1/S"), pie_rules());
  g.sow(0);
  CHECK_FALSE(g.can_swap());
  CHECK_THROWS_AS(g.swap(), IllegalMove);
}

// The end of the game: the `either` and `mover` end rules (engine/board.hpp's is_terminal
// and Game), remaining seeds going to their owners, and early end.
#include "testing/catch.hpp"

#include "engine/game.hpp"
#include "testing/boards.hpp"

using namespace kalah;
using kalah::test::board_of;
using kalah::test::kalah_rules;

TEST_CASE("is_terminal: either ends when either side is empty, mover only when the mover's is", "[end]") {
  int remainder = 0;
  const Board own_empty = board_of({0, 0, 0}, {1, 2, 0});
  CHECK(is_terminal(own_empty, 3, EndRule::Either, remainder));
  CHECK(remainder == -3);
  CHECK(is_terminal(own_empty, 3, EndRule::Mover, remainder));
  CHECK(remainder == -3);

  const Board opponent_empty = board_of({0, 4, 1}, {0, 0, 0});
  CHECK(is_terminal(opponent_empty, 3, EndRule::Either, remainder));
  CHECK(remainder == 5);
  CHECK_FALSE(is_terminal(opponent_empty, 3, EndRule::Mover, remainder));

  const Board both = board_of({0, 1, 0}, {0, 0, 1});
  CHECK_FALSE(is_terminal(both, 3, EndRule::Either, remainder));
  CHECK_FALSE(is_terminal(both, 3, EndRule::Mover, remainder));
}

TEST_CASE("a sowing that empties the mover's side without an extra turn", "[end][game]") {
  // South sows pit 6 (2 seeds): store, North's pit 1. South's side is empty, North to move.
  const Position p = Position::parse("0,0,0,0,0,2/1,1,1,1,1,1/0/0/S");
  SECTION("either: the game ends and North banks its own seeds") {
    Game g(p, kalah_rules(Capture::NonEmpty, EndRule::Either));
    const SowingRecord r = g.sow(5);
    CHECK(r.game_over);
    CHECK(g.over());
    CHECK(g.position().to_text() == "0,0,0,0,0,0/0,0,0,0,0,0/1/7/N");
    CHECK(g.margin() == -6);
  }
  SECTION("mover: North, to move, still has seeds: the game goes on") {
    Game g(p, kalah_rules(Capture::NonEmpty, EndRule::Mover));
    const SowingRecord r = g.sow(5);
    CHECK_FALSE(r.game_over);
    CHECK_FALSE(g.over());
    CHECK(g.position().to_text() == "0,0,0,0,0,0/2,1,1,1,1,1/1/0/N");
    g.sow(5);  // North's pit 6 (1 seed) ends in its store: extra turn
    CHECK_FALSE(g.over());
    CHECK(g.to_move() == Side::North);
    // North's pit 5 (1 seed) into the emptied pit 6, facing South's empty pit 1: no capture
    // (nonempty rule). The turn passes to South, who has no seeds: now the game ends.
    const SowingRecord last = g.sow(4);
    CHECK_FALSE(last.outcome.capture);
    CHECK(last.game_over);
    CHECK(g.position().to_text() == "0,0,0,0,0,0/0,0,0,0,0,0/1/7/S");
  }
}

TEST_CASE("mover end: the game ends when the side to move has no seeds", "[end][game]") {
  // South's side is empty but North is to move: North keeps sowing (extra turns) until its
  // own side is empty too.
  const Rules rules = kalah_rules(Capture::NonEmpty, EndRule::Mover);
  Game g(Position::parse("0,0,0/0,2,1/4/3/N"), rules);
  CHECK_FALSE(g.over());
  g.sow(2);
  CHECK(g.to_move() == Side::North);
  CHECK_FALSE(g.over());
  g.sow(1);  // pit 2 (2 seeds): pit 3, store: extra turn
  CHECK(g.to_move() == Side::North);
  CHECK_FALSE(g.over());
  const SowingRecord last = g.sow(2);  // pit 3 (1 seed): store, extra turn, and North is empty
  CHECK(last.outcome.extra_turn);
  CHECK(last.game_over);
  CHECK(g.position().to_text() == "0,0,0/0,0,0/4/6/N");

  // A sowing that reaches South's side gives South seeds: the game goes on.
  Game h(Position::parse("0,0,0/0,3,0/4/3/N"), rules);
  const SowingRecord r = h.sow(1);  // pit 2 (3 seeds): pit 3, store, South's pit 1
  CHECK_FALSE(r.game_over);
  CHECK(h.to_move() == Side::South);

  // One that does not passes the turn to South, who has no seeds: the game ends and North
  // banks what is left on its side.
  Game k(Position::parse("0,0,0/0,1,1/4/3/N"), rules);
  CHECK(k.sow(1).game_over);  // pit 2 (1 seed) to pit 3
  CHECK(k.position().to_text() == "0,0,0/0,0,0/4/5/S");
}

TEST_CASE("an extra turn pending while the opponent's side is empty", "[end][game]") {
  // North has no seeds and South is to move: over at once under `either`; under `mover`
  // South keeps sowing (extra turns included) until its own side is empty.
  const Position p = Position::parse("0,0,0,0,2,1/0,0,0,0,0,0/10/5/S");
  Game either(p, kalah_rules(Capture::NonEmpty, EndRule::Either));
  CHECK(either.over());
  CHECK(either.position().to_text() == "0,0,0,0,0,0/0,0,0,0,0,0/13/5/S");

  Game mover(p, kalah_rules(Capture::NonEmpty, EndRule::Mover));
  CHECK_FALSE(mover.over());
  SowingRecord r = mover.sow(5);  // 1 seed into the store: extra turn, game goes on
  CHECK(r.outcome.extra_turn);
  CHECK_FALSE(r.game_over);
  CHECK(mover.to_move() == Side::South);
  r = mover.sow(4);  // 2 seeds: pit 6, store: extra turn again
  CHECK(r.outcome.extra_turn);
  CHECK_FALSE(r.game_over);
  r = mover.sow(5);  // last seed into the store: South is empty and to move: over
  CHECK(r.game_over);
  CHECK(mover.position().to_text() == "0,0,0,0,0,0/0,0,0,0,0,0/13/5/S");
}

TEST_CASE("an extra turn that empties the mover's side ends the game under both rules", "[end][game]") {
  for (EndRule end : {EndRule::Either, EndRule::Mover}) {
    Game g(Position::parse("0,0,0,0,0,1/1,1,1,1,1,1/0/0/S"), kalah_rules(Capture::NonEmpty, end));
    const SowingRecord r = g.sow(5);
    CHECK(r.outcome.extra_turn);
    CHECK(r.game_over);
    CHECK(g.position().to_text() == "0,0,0,0,0,0/0,0,0,0,0,0/1/6/S");
  }
}

TEST_CASE("a game cannot go on after its end", "[end][game]") {
  Game g(Position::parse("0,0,0/1,0,0/0/0/N"), kalah_rules(Capture::NonEmpty, EndRule::Either));
  CHECK(g.over());
  CHECK(g.legal_pits().empty());
  CHECK_THROWS_AS(g.sow(0), IllegalMove);
}

TEST_CASE("early end stops the game once a store holds more than half of all seeds", "[end][early]") {
  // 11 seeds in all. South's pit 6 (2 seeds): store, North's pit 1: South's store 6 > 5.5.
  const Position p = Position::parse("0,0,0,0,1,2/1,1,1,0,0,0/5/0/S");
  Rules rules = kalah_rules(Capture::NonEmpty);
  rules.early_end = true;
  Game g(p, rules);
  const SowingRecord r = g.sow(5);
  CHECK(r.game_over);
  CHECK(g.over());
  CHECK(g.ended_early());
  // Seeds left in the pits are not banked: the game simply stops.
  CHECK(g.position().to_text() == "0,0,0,0,1,0/2,1,1,0,0,0/6/0/N");
  CHECK_THROWS_AS(g.sow(0), IllegalMove);

  rules.early_end = false;
  Game natural(p, rules);
  natural.sow(5);
  CHECK_FALSE(natural.over());
  CHECK_FALSE(natural.ended_early());
}

TEST_CASE("early end: exactly half is not more than half", "[end][early]") {
  Rules rules = kalah_rules(Capture::NonEmpty);
  rules.early_end = true;
  // 10 seeds, South's store 5: not over; a position already past half is over at once.
  CHECK_FALSE(Game(Position::parse("1,1,1/1,1,0/5/0/S"), rules).over());
  const Game past(Position::parse("1,1,1/1,1,0/0/6/S"), rules);
  CHECK(past.over());
  CHECK(past.ended_early());
}

TEST_CASE("a natural end is not an early end even when a store passes half", "[end][early]") {
  Rules rules = kalah_rules(Capture::NonEmpty);
  rules.early_end = true;
  Game g(Position::parse("0,0,0,0,0,1/1,1,1,1,1,1/0/0/S"), rules);
  g.sow(5);
  CHECK(g.over());
  CHECK_FALSE(g.ended_early());
}

// The relay variant (seed 003, shared/RULES.md): laps, relays from non-empty own pits when
// the lap reached the opponent, chained 2/3 captures on the opponent's side, no extra turn
// and no own-side capture. Boards are mover-relative (see support/boards.hpp).
#include "testing/catch.hpp"

#include "engine/game.hpp"
#include "testing/boards.hpp"

using namespace kalah;
using kalah::test::board_of;
using kalah::test::mover_pits;
using kalah::test::opponent_pits;
using kalah::test::relay_rules;
using V = std::vector<int>;

TEST_CASE("relay: no extra turn for the last seed in the own store", "[relay]") {
  Board b = board_of({0, 0, 0, 3, 1, 1}, {1, 1, 1, 1, 1, 1});
  const SowOutcome o = sow(b, 6, 3, relay_rules());
  CHECK_FALSE(o.extra_turn);
  CHECK(o.stored == 1);
  CHECK(o.relays == 0);
  CHECK(mover_pits(b, 6) == V{0, 0, 0, 0, 2, 2});

  // And Game passes the turn.
  Game g(Position::parse("0,0,0,3,1,1/1,1,1,1,1,1/0/0/S"), relay_rules());
  g.sow(3);
  CHECK(g.to_move() == Side::North);
}

TEST_CASE("relay: no capture in an empty own pit", "[relay]") {
  Board b = board_of({1, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 5, 2});
  const SowOutcome o = sow(b, 6, 0, relay_rules());
  CHECK_FALSE(o.capture);
  CHECK(o.stored == 0);
  CHECK(mover_pits(b, 6) == V{0, 1, 0, 0, 0, 0});
  CHECK(opponent_pits(b, 6) == V{0, 0, 0, 0, 5, 2});
}

TEST_CASE("relay: a lap that ends in an own pit that was empty stops", "[relay]") {
  // Pit 6 (8 seeds): store, the opponent's six pits, the own (empty) pit 1: no relay.
  Board b = board_of({0, 0, 0, 0, 0, 8}, {0, 0, 0, 0, 0, 0});
  const SowOutcome o = sow(b, 6, 5, relay_rules());
  CHECK(o.relays == 0);
  CHECK_FALSE(o.capture);
  CHECK(o.stored == 1);
  CHECK(mover_pits(b, 6) == V{1, 0, 0, 0, 0, 0});
  CHECK(opponent_pits(b, 6) == V{1, 1, 1, 1, 1, 1});
}

TEST_CASE("relay: no relay when the sowing did not reach the opponent", "[relay]") {
  // Pit 1 (3 seeds) ends in pit 4, which holds seeds, but the seeds stayed on the own side.
  Board b = board_of({3, 0, 0, 4, 0, 0}, {1, 1, 1, 1, 1, 1});
  const SowOutcome o = sow(b, 6, 0, relay_rules());
  CHECK(o.relays == 0);
  CHECK(mover_pits(b, 6) == V{0, 1, 1, 5, 0, 0});
}

TEST_CASE("relay: one relay, then a relay sowing that stays on the own side stops", "[relay]") {
  // Pit 6 (8 seeds): store, the opponent's pits, own pit 1 (held 2): relay from pit 1 (3
  // seeds) to pits 2, 3, 4. Pit 4 held seeds, but this lap did not reach the opponent.
  Board b = board_of({2, 0, 0, 4, 0, 8}, {0, 0, 0, 0, 0, 0});
  const SowOutcome o = sow(b, 6, 5, relay_rules());
  CHECK(o.relays == 1);
  CHECK(o.stored == 1);
  CHECK_FALSE(o.capture);
  CHECK(mover_pits(b, 6) == V{0, 1, 1, 5, 0, 0});
  CHECK(opponent_pits(b, 6) == V{1, 1, 1, 1, 1, 1});
}

TEST_CASE("relay: a chain of three relays over full laps", "[relay]") {
  // Kalah(2, n), ring: own 1, own 2, store, opp 1, opp 2 (the opponent's store skipped).
  //  pit 2 (9): store, o1, o2, p1, p2, store, o1, o2, p1 -> p1 held 10: relay 1
  //  pit 1 (11): p2 x3, store x2, o1 x2, o2 x2, p1 x2 -> last in p2 (held 3): relay 2
  //  pit 2 (4): store, o1, o2, p1 -> p1 held 2: relay 3
  //  pit 1 (3): p2, store, o1 -> the opponent's pit 1 holds 9: no capture, stop.
  Board b = board_of({9, 9}, {3, 1});
  const SowOutcome o = sow(b, 2, 1, relay_rules());
  CHECK(o.relays == 3);
  CHECK_FALSE(o.capture);
  CHECK(o.stored == 6);
  CHECK(mover_pits(b, 2) == V{0, 1});
  CHECK(opponent_pits(b, 2) == V{9, 6});
}

TEST_CASE("relay: two relays ending in a capture", "[relay]") {
  // Kalah(3, n): pit 1 (9) ends in pit 3 (held 5): relay; pit 3 (6) ends in pit 2 (held 3):
  // relay; pit 2 (4): pit 3, store, opponent's pits 1 and 2: pit 2 makes 3 (captured), the
  // opponent's pit 1 holds 4 (the chain stops).
  Board b = board_of({9, 1, 4}, {1, 0, 1});
  const SowOutcome o = sow(b, 3, 0, relay_rules());
  CHECK(o.relays == 2);
  CHECK(o.capture);
  CHECK(o.stored == 3 + 3);
  CHECK(mover_pits(b, 3) == V{2, 0, 1});
  CHECK(opponent_pits(b, 3) == V{4, 0, 3});
}

TEST_CASE("relay: a relay from the emptied origin pit after a full lap", "[relay]") {
  // Kalah(1, n): ring own, store, opp. 3 seeds: store, opp, own (the origin, holding only
  // the last seed: it was empty, so no relay). 6 seeds: two laps, the origin got a seed on
  // the first lap, so the last seed lands in a non-empty pit: relay.
  Board b = board_of({3}, {0});
  SowOutcome o = sow(b, 1, 0, relay_rules());
  CHECK(o.relays == 0);
  CHECK(o.stored == 1);
  CHECK(mover_pits(b, 1) == V{1});

  b = board_of({6}, {5});           // 6: store, o(6), p(1), store, o(7), p(2) -> relay with 2
  o = sow(b, 1, 0, relay_rules());  // 2: store, o(8) -> 8 is not 2 or 3: stop
  CHECK(o.relays == 1);
  CHECK_FALSE(o.capture);
  CHECK(o.stored == 3);
  CHECK(mover_pits(b, 1) == V{0});
  CHECK(opponent_pits(b, 1) == V{8});
}

TEST_CASE("relay capture: 2 or 3 seeds, chained backwards to the start of the opponent's side", "[relay][capture]") {
  // Pit 6 (4 seeds): store, opponent's pits 1, 2, 3 -> 2, 3, 2: all three captured; the
  // chain stops at the opponent's first pit (its end against the sowing direction).
  Board b = board_of({0, 0, 0, 0, 0, 4}, {1, 2, 1, 0, 0, 0});
  const SowOutcome o = sow(b, 6, 5, relay_rules());
  CHECK(o.capture);
  CHECK(o.stored == 1 + 7);
  CHECK(opponent_pits(b, 6) == V{0, 0, 0, 0, 0, 0});
  CHECK(mover_pits(b, 6) == V{0, 0, 0, 0, 0, 0});
}

TEST_CASE("relay capture: the chain stops at a pit that is not 2 or 3", "[relay][capture]") {
  SECTION("a pit of 1 stops the chain") {
    Board b = board_of({0, 0, 0, 0, 0, 4}, {1, 0, 1, 0, 0, 0});  // -> 2, 1, 2
    const SowOutcome o = sow(b, 6, 5, relay_rules());
    CHECK(o.capture);
    CHECK(o.stored == 1 + 2);
    CHECK(opponent_pits(b, 6) == V{2, 1, 0, 0, 0, 0});
  }
  SECTION("a pit of 4 stops the chain") {
    Board b = board_of({0, 0, 0, 0, 0, 4}, {2, 3, 2, 0, 0, 0});  // -> 3, 4, 3
    const SowOutcome o = sow(b, 6, 5, relay_rules());
    CHECK(o.capture);
    CHECK(o.stored == 1 + 3);
    CHECK(opponent_pits(b, 6) == V{3, 4, 0, 0, 0, 0});
  }
  SECTION("the last pit itself not 2 or 3: nothing is captured") {
    Board b = board_of({0, 0, 0, 0, 0, 4}, {1, 2, 3, 0, 0, 0});  // -> 2, 3, 4
    const SowOutcome o = sow(b, 6, 5, relay_rules());
    CHECK_FALSE(o.capture);
    CHECK(o.stored == 1);
    CHECK(opponent_pits(b, 6) == V{2, 3, 4, 0, 0, 0});
  }
  SECTION("a last seed making 1 captures nothing") {
    Board b = board_of({0, 0, 0, 0, 0, 2}, {0, 0, 0, 0, 0, 0});
    const SowOutcome o = sow(b, 6, 5, relay_rules());
    CHECK_FALSE(o.capture);
    CHECK(opponent_pits(b, 6) == V{1, 0, 0, 0, 0, 0});
  }
}

TEST_CASE("relay: the preset's rules", "[relay]") {
  const Rules r = Rules::preset("relay");
  CHECK(r.sowing == Sowing::Relay);
  CHECK(r.end == EndRule::Mover);
  CHECK(r.early_end);
}

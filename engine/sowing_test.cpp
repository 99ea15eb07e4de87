// Kalah sowing and capture, case by case, under both capture options (engine/board.hpp's
// `sow`). Boards are mover-relative: the mover's pits, then the opponent's, each from its
// owner's left; the mover's pit i faces the opponent's pit m-1-i.
#include "testing/catch.hpp"

#include "testing/boards.hpp"

using namespace kalah;
using kalah::test::board_of;
using kalah::test::kalah_rules;
using kalah::test::mover_pits;
using kalah::test::opponent_pits;
using V = std::vector<int>;

namespace {
const Capture kBothCaptures[] = {Capture::NonEmpty, Capture::Empty};
}

TEST_CASE("sowing: seeds go one by one into the following pits", "[sowing]") {
  for (Capture c : kBothCaptures) {
    Board b = board_of({2, 0, 3, 0, 1, 1}, {1, 1, 1, 1, 1, 1});
    const SowOutcome o = sow(b, 6, 2, kalah_rules(c));  // pit 3 (3 seeds) -> pits 4, 5, 6
    CHECK(mover_pits(b, 6) == V{2, 0, 0, 1, 2, 2});
    CHECK(opponent_pits(b, 6) == V{1, 1, 1, 1, 1, 1});
    CHECK(o.stored == 0);
    CHECK_FALSE(o.extra_turn);
    CHECK_FALSE(o.capture);  // pit 6 held a seed already
  }
}

TEST_CASE("sowing: the last seed in the own store earns an extra turn", "[sowing]") {
  for (Capture c : kBothCaptures) {
    Board b = board_of({0, 0, 0, 3, 1, 1}, {0, 2, 0, 0, 0, 0});
    const SowOutcome o = sow(b, 6, 3, kalah_rules(c));
    CHECK(mover_pits(b, 6) == V{0, 0, 0, 0, 2, 2});
    CHECK(o.stored == 1);
    CHECK(o.extra_turn);
    CHECK_FALSE(o.capture);
  }
}

TEST_CASE("sowing: passing the own store and into the opponent's pits", "[sowing]") {
  Board b = board_of({0, 0, 0, 0, 5, 0}, {0, 0, 0, 0, 0, 0});
  const SowOutcome o = sow(b, 6, 4, kalah_rules(Capture::NonEmpty));
  CHECK(mover_pits(b, 6) == V{0, 0, 0, 0, 0, 1});
  CHECK(opponent_pits(b, 6) == V{1, 1, 1, 0, 0, 0});
  CHECK(o.stored == 1);
  CHECK_FALSE(o.extra_turn);
  CHECK_FALSE(o.capture);  // the last seed is on the opponent's side: no capture there
}

TEST_CASE("capture: last seed in an empty own pit with seeds opposite", "[sowing][capture]") {
  for (Capture c : kBothCaptures) {
    // Pit 1 (1 seed) ends in the empty pit 2, which faces the opponent's pit 5 (5 seeds).
    Board b = board_of({1, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 5, 2});
    const SowOutcome o = sow(b, 6, 0, kalah_rules(c));
    CHECK(o.capture);
    CHECK(o.stored == 6);
    CHECK(mover_pits(b, 6) == V{0, 0, 0, 0, 0, 0});
    CHECK(opponent_pits(b, 6) == V{0, 0, 0, 0, 0, 2});
    CHECK_FALSE(o.extra_turn);
  }
}

TEST_CASE("capture: the opposite pit is empty", "[sowing][capture]") {
  SECTION("nonempty capture: nothing happens") {
    Board b = board_of({1, 0, 0, 0, 0, 0}, {3, 0, 0, 0, 0, 2});
    const SowOutcome o = sow(b, 6, 0, kalah_rules(Capture::NonEmpty));
    CHECK_FALSE(o.capture);
    CHECK(o.stored == 0);
    CHECK(mover_pits(b, 6) == V{0, 1, 0, 0, 0, 0});
    CHECK(opponent_pits(b, 6) == V{3, 0, 0, 0, 0, 2});
  }
  SECTION("empty capture: the last seed alone goes to the store") {
    Board b = board_of({1, 0, 0, 0, 0, 0}, {3, 0, 0, 0, 0, 2});
    const SowOutcome o = sow(b, 6, 0, kalah_rules(Capture::Empty));
    CHECK(o.capture);
    CHECK(o.stored == 1);
    CHECK(mover_pits(b, 6) == V{0, 0, 0, 0, 0, 0});
    CHECK(opponent_pits(b, 6) == V{3, 0, 0, 0, 0, 2});
  }
}

TEST_CASE("capture: no capture in a non-empty own pit or on the opponent's side", "[sowing][capture]") {
  for (Capture c : kBothCaptures) {
    Board b = board_of({1, 2, 0, 0, 0, 0}, {0, 0, 0, 0, 5, 0});
    SowOutcome o = sow(b, 6, 0, kalah_rules(c));  // lands in pit 2, which held 2
    CHECK_FALSE(o.capture);
    CHECK(mover_pits(b, 6) == V{0, 3, 0, 0, 0, 0});

    Board e = board_of({0, 0, 0, 0, 0, 3}, {0, 0, 0, 0, 0, 0});
    o = sow(e, 6, 5, kalah_rules(c));  // store, opponent's pits 1 and 2 (empty before)
    CHECK_FALSE(o.capture);
    CHECK(o.stored == 1);
    CHECK(opponent_pits(e, 6) == V{1, 1, 0, 0, 0, 0});
  }
}

TEST_CASE("sowing skips the opponent's store", "[sowing]") {
  // Pit 6 (8 seeds): own store, the opponent's six pits, then (not the opponent's store)
  // the own pit 1, which was empty: it captures the seed just sown opposite it.
  Board b = board_of({0, 0, 0, 0, 0, 8}, {0, 0, 0, 0, 0, 0});
  const SowOutcome o = sow(b, 6, 5, kalah_rules(Capture::NonEmpty));
  CHECK(o.capture);
  CHECK(o.stored == 1 + 2);
  CHECK(mover_pits(b, 6) == V{0, 0, 0, 0, 0, 0});
  CHECK(opponent_pits(b, 6) == V{1, 1, 1, 1, 1, 0});
}

TEST_CASE("sowing: a full lap ends in the emptied origin pit and captures", "[sowing][capture]") {
  // 13 seeds on Kalah(6, n): 5 own pits, store, 6 opponent pits, then the origin pit, which
  // is not skipped and holds only that last seed: a capture of the seed sown opposite.
  for (Capture c : kBothCaptures) {
    Board b = board_of({13, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0});
    const SowOutcome o = sow(b, 6, 0, kalah_rules(c));
    CHECK(o.capture);
    CHECK(o.stored == 1 + 2);
    CHECK(mover_pits(b, 6) == V{0, 1, 1, 1, 1, 1});
    CHECK(opponent_pits(b, 6) == V{1, 1, 1, 1, 1, 0});
  }
}

TEST_CASE("capture after a full lap: the landing pit got a seed in the lap", "[sowing][capture]") {
  // 15 seeds: one lap (every place +1, the origin included) then pits 2 and 3 again. Pit 3
  // was empty before the sowing but holds the lap's seed when the last seed arrives.
  for (Capture c : kBothCaptures) {
    Board b = board_of({15, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0});
    const SowOutcome o = sow(b, 6, 0, kalah_rules(c));
    CHECK_FALSE(o.capture);
    CHECK(o.stored == 1);
    CHECK(mover_pits(b, 6) == V{1, 2, 2, 1, 1, 1});
    CHECK(opponent_pits(b, 6) == V{1, 1, 1, 1, 1, 1});
  }
}

TEST_CASE("extra turn after a full lap", "[sowing]") {
  Board b = board_of({0, 0, 0, 0, 0, 14}, {0, 0, 0, 0, 0, 0});
  const SowOutcome o = sow(b, 6, 5, kalah_rules(Capture::NonEmpty));
  CHECK(o.extra_turn);
  CHECK(o.stored == 2);
  CHECK(mover_pits(b, 6) == V{1, 1, 1, 1, 1, 1});
  CHECK(opponent_pits(b, 6) == V{1, 1, 1, 1, 1, 1});
}

TEST_CASE("sowing on the smallest board, Kalah(1, n)", "[sowing]") {
  // Ring: own pit, own store, opponent's pit.
  Board b = board_of({1}, {4});
  SowOutcome o = sow(b, 1, 0, kalah_rules(Capture::NonEmpty));
  CHECK(o.extra_turn);
  CHECK(o.stored == 1);
  b = board_of({3}, {4});  // store, opponent, own (emptied origin): capture of 5 + 1
  o = sow(b, 1, 0, kalah_rules(Capture::NonEmpty));
  CHECK(o.capture);
  CHECK(o.stored == 1 + 6);
  CHECK(mover_pits(b, 1) == V{0});
  CHECK(opponent_pits(b, 1) == V{0});
}

TEST_CASE("flipped exchanges the two sides", "[sowing]") {
  for (int m = 1; m <= kMaxPits; ++m) {
    Board b;
    for (int i = 0; i < 2 * m; ++i) b.cells[i] = static_cast<std::uint8_t>(i + 1);
    const Board f = flipped(b, m);
    for (int i = 0; i < m; ++i) {
      CHECK(f.cells[i] == b.cells[m + i]);
      CHECK(f.cells[m + i] == b.cells[i]);
    }
    for (int i = 2 * m; i < 2 * kMaxPits; ++i) CHECK(f.cells[i] == 0);
    CHECK(flipped(f, m) == b);
  }
}

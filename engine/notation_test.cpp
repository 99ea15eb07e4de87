// Game records (engine/notation.hpp): reading both notations, every kind of malformed or
// illegal record (the error names the turn, its text and the reason), capture-mark
// warnings, the pie swap token, and format -> replay round trips on random games.
#include "testing/catch.hpp"

#include <random>

#include "engine/notation.hpp"

using namespace kalah;
using Catch::Matchers::Contains;
using Catch::Matchers::Equals;

namespace {

Rules finnish_rules() {  // the Finnish article's rules: nonempty capture, mover end
  Rules r;
  r.end = EndRule::Mover;
  return r;
}

std::string replay_error(const std::string& record, Notation notation = Notation::Finnish,
                         const Position& start = Position::start(6, 3), const Rules& rules = finnish_rules()) {
  try {
    replay(start, rules, notation, record);
  } catch (const RecordError& e) {
    return e.what();
  }
  return "(no error)";
}

void check_same_sowings(const std::vector<SowingRecord>& a, const std::vector<SowingRecord>& b) {
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    INFO("sowing " << i);
    CHECK(a[i].side == b[i].side);
    CHECK(a[i].pit == b[i].pit);
    CHECK(a[i].outcome.stored == b[i].outcome.stored);
    CHECK(a[i].outcome.extra_turn == b[i].outcome.extra_turn);
    CHECK(a[i].outcome.capture == b[i].outcome.capture);
    CHECK(a[i].outcome.relays == b[i].outcome.relays);
    CHECK(a[i].game_over == b[i].game_over);
  }
}

}  // namespace

TEST_CASE("finnish: turns, sides and positions of a short record", "[notation]") {
  const Replay r = replay(Position::start(6, 3), finnish_rules(), Notation::Finnish, "45-46, 1*-5");
  REQUIRE(r.turns.size() == 4);
  CHECK(r.turns[0].number == 1);
  CHECK(r.turns[0].side == Side::South);
  CHECK(r.turns[0].text == "45");
  REQUIRE(r.turns[0].sowings.size() == 2);
  CHECK(r.turns[0].sowings[0].pit == 3);  // Finnish pit 4 is 0-based pit 3
  CHECK(r.turns[0].sowings[0].outcome.extra_turn);
  CHECK(r.turns[0].after.to_text() == "3,3,3,0,0,5/4,4,3,3,3,3/2/0/N");
  CHECK(r.turns[1].side == Side::North);
  CHECK(r.turns[2].text == "1*");
  CHECK(r.turns[2].sowings[0].outcome.capture);
  CHECK(r.turns[3].number == 4);
  CHECK(r.final_position == r.turns[3].after);
  CHECK_FALSE(r.over);
  CHECK(r.warnings.empty());
}

TEST_CASE("finnish: whitespace anywhere is ignored", "[notation]") {
  const Replay a = replay(Position::start(6, 3), finnish_rules(), Notation::Finnish, "45-46, 1*-5, 2-, -63*");
  const Replay b =
      replay(Position::start(6, 3), finnish_rules(), Notation::Finnish, "  4 5 - 4 6 ,\n1*  -5,2 -\t,- 6 3 * ");
  REQUIRE(a.turns.size() == b.turns.size());
  for (std::size_t i = 0; i < a.turns.size(); ++i) CHECK(a.turns[i].text == b.turns[i].text);
  CHECK(a.final_position == b.final_position);
}

TEST_CASE("finnish: a turn split over items, and a game starting with North", "[notation]") {
  Position start = Position::start(6, 3);
  start.to_move = Side::North;
  const Replay r = replay(start, finnish_rules(), Notation::Finnish, "-46, 1-5");
  REQUIRE(r.turns.size() == 3);
  CHECK(r.turns[0].side == Side::North);
  CHECK(r.turns[1].side == Side::South);
  CHECK(format_finnish(r) == "-46, 1-5");
  CHECK(format_finnish(r.sowings(), Side::North) == "-46, 1-5");
}

TEST_CASE("an empty record replays to the start", "[notation]") {
  for (Notation n : {Notation::Finnish, Notation::Irving}) {
    const Replay r = replay(Position::start(4, 3), Rules{}, n, "  ");
    CHECK(r.turns.empty());
    CHECK(r.final_position == Position::start(4, 3));
    CHECK_FALSE(r.over);
  }
}

TEST_CASE("capture marks: unmarked and wrongly marked captures are warnings", "[notation][warnings]") {
  // "41": pit 4 ends in the store, pit 1 ends in the emptied pit 4 and captures North's pit 3.
  Replay r = replay(Position::start(6, 3), finnish_rules(), Notation::Finnish, "41-");
  REQUIRE(r.warnings.size() == 1);
  CHECK_THAT(r.warnings[0], Equals("turn 1 (\"41\"): the sowing of South pit 1 captures but is not marked '*'"));
  CHECK(r.turns[0].warnings == r.warnings);

  r = replay(Position::start(6, 3), finnish_rules(), Notation::Finnish, "41*-");
  CHECK(r.warnings.empty());

  r = replay(Position::start(6, 3), finnish_rules(), Notation::Finnish, "4*1*-");
  REQUIRE(r.warnings.size() == 1);
  CHECK_THAT(r.warnings[0], Equals("turn 1 (\"4*1*\"): the sowing of South pit 4 is marked '*' but captures nothing"));

  // The Irving notation has no capture marks: nothing to warn about.
  r = replay(Position::start(6, 3), finnish_rules(), Notation::Irving, "30");
  CHECK(r.turns[0].sowings[1].outcome.capture);
  CHECK(r.warnings.empty());
}

TEST_CASE("illegal moves name the turn, its text and the reason", "[notation][bad-input]") {
  CHECK_THAT(replay_error("45-46, 7-"), Equals("turn 3 (\"7\"): South pit 7 does not exist (pits 1..6)"));
  CHECK_THAT(replay_error("45-46, 4-"), Equals("turn 3 (\"4\"): South pit 4 is empty"));
  CHECK_THAT(replay_error("45-46, 1*-4"), Equals("turn 4 (\"4\"): North pit 4 is empty"));
  CHECK_THAT(replay_error("0-"), Contains("turn 1 (\"0\"): pit 0 does not exist"));
  CHECK_THAT(replay_error("6", Notation::Irving), Equals("turn 1 (\"6\"): South hole 6 does not exist (holes 0..5)"));
  CHECK_THAT(replay_error("0-0-1-0", Notation::Irving), Equals("turn 4 (\"0\"): North hole 0 is empty"));
}

TEST_CASE("a turn must follow its extra turns exactly", "[notation][bad-input]") {
  // Pit 1 ends in pit 4: no extra turn, so pit 2 cannot follow within the turn.
  CHECK_THAT(replay_error("12-"),
             Equals("turn 1 (\"12\"): South pit 2 cannot follow South pit 1: that sowing did not end in the store "
                    "(no extra turn)"));
  // Pit 4 ends in the store: the turn cannot stop there.
  CHECK_THAT(replay_error("4-"), Equals("turn 1 (\"4\"): the turn stops after South pit 4, which ended in the store: "
                                        "South must sow again (extra turn)"));
  CHECK_THAT(replay_error("3", Notation::Irving), Contains("turn 1 (\"3\")") && Contains("must sow again"));
  // Relay sowing has no extra turns at all: one sowing a turn.
  CHECK_THAT(replay_error("45-", Notation::Finnish, Position::start(6, 3), Rules::preset("relay")),
             Contains("turn 1 (\"45\"): South pit 5 cannot follow South pit 4"));
}

TEST_CASE("a Finnish side must be the side to move", "[notation][bad-input]") {
  CHECK_THAT(replay_error("45-, 1-"), Equals("turn 2 (\"1\"): it is North's turn, not South's"));
  CHECK_THAT(replay_error("-46"), Equals("turn 1 (\"46\"): it is South's turn, not North's"));
}

TEST_CASE("no turn after the end of the game", "[notation][bad-input]") {
  const std::string game = "45-46, 1*-5, 2-, -63*, 6-, -561646562, 4-3, 656-";
  CHECK_THAT(replay_error(game + ", 1-"), Equals("turn 12 (\"1\"): the game is already over"));
  CHECK_THAT(replay_error(game + "3"), Contains("turn 12 (\"3\"): the game is already over"));
  // The last sowing of a turn ends the game: nothing may follow in the same turn either.
  const Position p = Position::parse("0,0,0,0,0,1/1,1,1,1,1,1/0/0/S");
  CHECK_THAT(replay_error("61-", Notation::Finnish, p),
             Contains("turn 1 (\"61\"): the game ended with the sowing of South pit 6"));
  // Early end.
  Rules early = finnish_rules();
  early.early_end = true;
  const Position q = Position::parse("0,0,0,0,1,2/1,1,1,0,0,0/5/0/S");
  CHECK_THAT(replay_error("6-1", Notation::Finnish, q, early),
             Equals("turn 2 (\"1\"): the game is already over (early end: a store holds more than half of the seeds)"));
  const Replay r = replay(q, early, Notation::Finnish, "6-");
  CHECK(r.over);
  CHECK(r.ended_early);
}

TEST_CASE("mover end: the mover keeps sowing while the opponent's side is empty", "[notation][end]") {
  const Position p = Position::parse("0,0,0,0,2,1/0,0,0,0,0,0/10/5/S");
  CHECK_THAT(replay_error("6-", Notation::Finnish, p), Contains("South must sow again"));
  const Replay r = replay(p, finnish_rules(), Notation::Finnish, "656-");
  CHECK(r.over);
  CHECK(r.final_position.to_text() == "0,0,0,0,0,0/0,0,0,0,0,0/13/5/S");
  CHECK(replay(p, finnish_rules(), Notation::Irving, "545").over);
}

TEST_CASE("malformed records", "[notation][bad-input]") {
  CHECK_THAT(replay_error("45-46-1"), Contains("item 1 (\"45-46-1\")") && Contains("exactly one '-'"));
  CHECK_THAT(replay_error("45 46"), Contains("item 1 (\"4546\")") && Contains("exactly one '-'"));
  CHECK_THAT(replay_error("45-46,,1-"), Contains("item 2 (\"\"): empty item"));
  CHECK_THAT(replay_error("45-46,"), Contains("item 2 (\"\"): empty item"));
  CHECK_THAT(replay_error("45-46, -"), Contains("item 2 (\"-\"): no sowings on either side"));
  CHECK_THAT(replay_error("4x-"), Contains("turn 1 (\"4x\"): unexpected character 'x'"));
  CHECK_THAT(replay_error("*4-"), Contains("turn 1 (\"*4\"): '*' must follow a pit number"));
  CHECK_THAT(replay_error("4**-"), Contains("'*' must follow a pit number"));
  CHECK_THAT(replay_error("25--10", Notation::Irving), Contains("turn 2 (\"\"): empty turn"));
  CHECK_THAT(replay_error("-25", Notation::Irving), Contains("turn 1 (\"\"): empty turn"));
  CHECK_THAT(replay_error("25-", Notation::Irving), Contains("turn 2 (\"\"): empty turn"));
  CHECK_THAT(replay_error("2*5", Notation::Irving), Contains("'*' is not part of the Irving notation"));
  CHECK_THAT(replay_error("25,10", Notation::Irving), Contains("unexpected character ','"));
}

TEST_CASE("pie swap tokens", "[notation][pie]") {
  Rules pie = finnish_rules();
  pie.pie = true;
  const Position start = Position::start(6, 3);

  SECTION("Finnish: North's side of the first item, North then sows in the next item") {
    const Replay r = replay(start, pie, Notation::Finnish, "45-swap, -46, 1*-5");
    REQUIRE(r.turns.size() == 5);
    CHECK(r.turns[1].swap);
    CHECK(r.turns[1].side == Side::North);
    CHECK(r.turns[1].sowings.empty());
    CHECK(r.turns[2].side == Side::North);
    CHECK(r.swapped);
    CHECK(format_finnish(r) == "45-swap, -46, 1*-5");
    CHECK(format_irving(r) == "34-swap-35-0-4");
  }
  SECTION("Irving: a turn of its own") {
    const Replay r = replay(start, pie, Notation::Irving, "34-SWAP-35-0");
    CHECK(r.swapped);
    CHECK(r.turns[1].swap);
    CHECK(r.turns[2].side == Side::North);
  }
  SECTION("errors") {
    CHECK_THAT(replay_error("45-swap"), Equals("turn 2 (\"swap\"): a swap needs the pie rule (--pie)"));
    CHECK_THAT(replay_error("swap-", Notation::Finnish, start, pie),
               Equals("turn 1 (\"swap\"): only North may swap, and only right after South's first turn"));
    CHECK_THAT(replay_error("45-46, 1*-swap", Notation::Finnish, start, pie),
               Contains("turn 4 (\"swap\"): only North may swap"));
    CHECK_THAT(replay_error("34-swap-swap", Notation::Irving, start, pie), Contains("turn 3 (\"swap\")"));
    CHECK_THAT(replay_error("45-swap46", Notation::Finnish, start, pie), Contains("unexpected character"));
  }
}

// ---------------------------------------------------------------------------------------
// Round trips on random games.

namespace {

struct RandomGame {
  Position start;
  Rules rules;
  Replay played;  // turns as played (side, swap, sowings), for the Replay formatters
};

RandomGame random_game(std::mt19937& rng, bool allow_swap) {
  RandomGame g;
  const int m = 1 + static_cast<int>(rng() % kMaxPits);
  const int n = 1 + static_cast<int>(rng() % static_cast<unsigned>(std::min(8, kMaxSeeds / (2 * m))));
  g.start = Position::start(m, n);
  if (!allow_swap && rng() % 4 == 0) g.start.to_move = Side::North;
  g.rules.sowing = rng() % 4 == 0 ? Sowing::Relay : Sowing::Kalah;
  g.rules.capture = rng() % 2 ? Capture::Empty : Capture::NonEmpty;
  g.rules.end = rng() % 2 ? EndRule::Mover : EndRule::Either;
  g.rules.early_end = rng() % 3 == 0;
  g.rules.pie = allow_swap;

  Game game(g.start, g.rules);
  g.played.start = g.start;
  int sowings = 0;
  while (!game.over() && sowings < 300) {
    ReplayedTurn turn;
    turn.side = game.to_move();
    if (game.can_swap() && rng() % 2 == 0) {
      game.swap();
      turn.swap = true;
    } else {
      do {
        const auto legal = game.legal_pits();
        turn.sowings.push_back(game.sow(legal[rng() % legal.size()]));
        ++sowings;
      } while (turn.sowings.back().outcome.extra_turn && !game.over());
    }
    g.played.turns.push_back(std::move(turn));
  }
  g.played.final_position = game.position();
  g.played.over = game.over();
  return g;
}

}  // namespace

TEST_CASE("round trips: format then replay gives the same sowings", "[notation][roundtrip]") {
  std::mt19937 rng(12345);
  for (int k = 0; k < 400; ++k) {
    const RandomGame g = random_game(rng, false);
    const std::vector<SowingRecord> sowings = g.played.sowings();
    const std::string irving = format_irving(sowings);
    const std::string finnish = format_finnish(sowings, g.start.to_move);
    INFO("Kalah(" << g.start.pits << ") " << g.rules.describe() << " from " << g.start.to_text() << "\n"
                  << irving << "\n"
                  << finnish);
    const Replay a = replay(g.start, g.rules, Notation::Irving, irving);
    const Replay b = replay(g.start, g.rules, Notation::Finnish, finnish);
    check_same_sowings(a.sowings(), sowings);
    check_same_sowings(b.sowings(), sowings);
    CHECK(a.final_position == g.played.final_position);
    CHECK(b.final_position == g.played.final_position);
    CHECK(a.over == g.played.over);
    CHECK(b.warnings.empty());  // the formatter marks every capture
    CHECK(a.turns.size() == g.played.turns.size());
    // Formatting the replay gives the same text again.
    CHECK(format_irving(a) == irving);
    CHECK(format_finnish(b) == finnish);
  }
}

TEST_CASE("round trips with the pie swap", "[notation][roundtrip][pie]") {
  std::mt19937 rng(777);
  int swaps = 0;
  for (int k = 0; k < 200; ++k) {
    const RandomGame g = random_game(rng, true);
    for (Notation n : {Notation::Irving, Notation::Finnish}) {
      const std::string text = n == Notation::Irving ? format_irving(g.played) : format_finnish(g.played);
      INFO("Kalah(" << g.start.pits << ") " << g.rules.describe() << "\n" << text);
      const Replay r = replay(g.start, g.rules, n, text);
      REQUIRE(r.turns.size() == g.played.turns.size());
      for (std::size_t t = 0; t < r.turns.size(); ++t) {
        CHECK(r.turns[t].side == g.played.turns[t].side);
        CHECK(r.turns[t].swap == g.played.turns[t].swap);
        check_same_sowings(r.turns[t].sowings, g.played.turns[t].sowings);
      }
      CHECK(r.final_position == g.played.final_position);
      swaps += r.swapped ? 1 : 0;
    }
  }
  CHECK(swaps > 20);  // the swap really was exercised
}

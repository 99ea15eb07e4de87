// Game analysis (solver/api/analyze.hpp): Irving et al.'s perfect games have no mistake and
// start at their printed margin; a game with one deliberately bad turn has exactly that
// mistake with the right margin; on the Finnish example game the values chain from turn to
// turn and the margins lost add up to the final margin.
#include "testing/catch.hpp"

#include <algorithm>

#include "engine/notation.hpp"
#include "solver/analysis/analysis.hpp"
#include "solver/api/analyze.hpp"
#include "solver/api/report_json.hpp"
#include "solver/reference/reference_solver.hpp"

using namespace kalah;

namespace {

api::SessionConfig config_for(const Position& start, const Rules& rules) {
  api::SessionConfig c;
  c.pits = start.pits;
  c.rules = rules;
  c.max_seeds = start.pit_seeds(Side::South) + start.pit_seeds(Side::North);
  c.table_bytes = std::uint64_t(64) << 20;
  c.threads = 1;
  return c;
}

api::GameAnalysis analyze_record(const Position& start, const Rules& rules, Notation notation,
                                 const std::string& record) {
  api::Session session(config_for(start, rules));
  return api::analyze(session, replay(start, rules, notation, record));
}

// Every turn's value follows from the one before: the next turn starts where this one ended,
// and the margins lost account for the whole change of value.
void check_chain(const api::GameAnalysis& a) {
  REQUIRE_FALSE(a.turns.empty());
  for (std::size_t i = 0; i + 1 < a.turns.size(); ++i) CHECK(a.turns[i].value_after == a.turns[i + 1].value_before);
  if (a.game.over) CHECK(a.turns.back().value_after == a.game.final_position.margin());
  CHECK(a.turns.front().value_before - a.south.margin_lost + a.north.margin_lost == a.turns.back().value_after);
  CHECK(a.mistakes == a.south.mistakes + a.north.mistakes);
}

}  // namespace

TEST_CASE("analyze: Irving et al.'s perfect games have no mistake", "[api][analyze]") {
  struct PerfectGame {
    int pits, seeds, margin;
    const char* record;
  };
  // shared/PUBLISHED.md, Table 9 (empty capture, either end): the games small enough to
  // search here in a moment.
  const PerfectGame games[] = {
      {4, 1, 2, "32-32-1"},
      {4, 2, 6, "3-3-230-231-1323"},
      {4, 3, 8, "13-1-032-2-3-0-1320-3-0-2"},
      {5, 2, 0, "31-32-24-0-0-31-3"},
      {5, 3, 8, "24-3-3-03-41-1-04342-3-3-2-2-4-414342-3"},
      {6, 1, 2, "54-54-3-3-2"},
      {6, 2, 10, "42-42-30-0-1-1-4-5"},
  };
  const Rules rules = Rules::preset("empty-capture");
  for (const PerfectGame& g : games) {
    INFO("Kalah(" << g.pits << "," << g.seeds << "): " << g.record);
    const api::GameAnalysis a = analyze_record(Position::start(g.pits, g.seeds), rules, Notation::Irving, g.record);
    CHECK_FALSE(a.interrupted);
    CHECK(a.turns.front().value_before == g.margin);
    CHECK(a.mistakes == 0);
    for (const api::TurnAnalysis& t : a.turns) {
      CHECK(t.margin_lost == 0);
      CHECK_FALSE(t.result_changed);
      CHECK(std::find(t.best.begin(), t.best.end(), t.played) != t.best.end());
    }
    check_chain(a);
  }
}

TEST_CASE("analyze: one deliberately bad turn is the one mistake, with its margin", "[api][analyze]") {
  // Kalah(4,3), standard rules: South opens with its worst complete turn, then both sides
  // play a best turn (the reference solver's) to the end.
  const Rules rules;
  const Position start = Position::start(4, 3);
  ReferenceSolver ref(4, rules.value_rules());
  const Oracle oracle = [&ref](const Board& b) { return ref.value(b); };
  Game game(start, rules);
  std::string record;
  int worst_loss = 0;
  bool first = true;
  while (!game.over()) {
    const TurnValues values = turn_values(game.position(), rules, oracle);
    const TurnValue& turn = first ? values.turns.back() : values.turns.front();
    if (first) worst_loss = margin_lost(Side::South, values.value, turn.value);
    first = false;
    if (!record.empty()) record += "-";
    for (int pit : turn.pits) {
      record += std::to_string(pit);
      game.sow(pit);
    }
  }
  REQUIRE(worst_loss > 0);
  INFO(record);
  const api::GameAnalysis a = analyze_record(start, rules, Notation::Irving, record);
  CHECK(a.mistakes == 1);
  CHECK(a.south.mistakes == 1);
  CHECK(a.north.mistakes == 0);
  REQUIRE(a.turns.front().mistake);
  CHECK(a.turns.front().margin_lost == worst_loss);
  CHECK(a.turns.front().value_before == api::solve_with_reference(start, rules, true).value);
  auto sign = [](int v) { return (v > 0) - (v < 0); };  // South's outcome
  CHECK(a.turns.front().result_changed == (sign(a.turns.front().value_after) < sign(a.turns.front().value_before)));
  for (std::size_t i = 1; i < a.turns.size(); ++i) CHECK_FALSE(a.turns[i].mistake);
  check_chain(a);
  const api::Json j = api::to_json(a, Notation::Irving);
  CHECK(j["mistakes"] == 1);
  CHECK(j["turns"].size() == a.turns.size());
  CHECK(j["turns"][0]["margin_lost"] == worst_loss);
  CHECK(j["players"]["south"]["margin_lost"] == worst_loss);
}

TEST_CASE("analyze: the Finnish example game's values chain to its result", "[api][analyze]") {
  Rules rules;  // the article's rules: nonempty capture, mover end
  rules.end = EndRule::Mover;
  const api::GameAnalysis a = analyze_record(Position::start(6, 3), rules, Notation::Finnish,
                                             "45-46, 1*-5, 2-, -63*, 6-, -561646562, 4-3, 656-");
  CHECK(a.turns.size() == 11);
  CHECK(a.game.final_position.margin() == -12);
  check_chain(a);
  for (const api::TurnAnalysis& t : a.turns) {
    CHECK(t.margin_lost >= 0);
    CHECK(t.mistake == (t.margin_lost > 0));
    CHECK_FALSE(t.best.empty());
  }
}

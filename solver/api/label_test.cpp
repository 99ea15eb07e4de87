// Labels (solver/api/label.hpp): every sowing's value equals the reference solver's on small
// boards for every value rule set, best first for the mover; a batch over several workers
// delivers in input order, passes bad inputs through and stops on a cancel.
#include "testing/catch.hpp"

#include <atomic>
#include <random>

#include "engine/game.hpp"
#include "solver/api/label.hpp"
#include "solver/api/report_json.hpp"
#include "solver/reference/reference_solver.hpp"
#include "testing/positions.hpp"
#include "testing/rule_sets.hpp"
#include "testing/session_config.hpp"

using namespace kalah;

TEST_CASE("label: every sowing's value equals the reference solver's, best first", "[api][label]") {
  for (const Rules& rules : test::all_value_rules()) {
    for (const auto& [pits, seeds] : {std::pair{2, 3}, std::pair{3, 3}, std::pair{4, 2}}) {
      INFO(rules.describe() << ", Kalah(" << pits << "," << seeds << ")");
      api::Session session(test::small_session_config(pits, seeds, rules));
      for (const Position& p : test::random_positions(pits, seeds, rules, 12, 7 * pits + seeds, pits * seeds)) {
        INFO(p.to_text());
        const api::LabelReport r = api::label(session, p);
        CHECK(r.values.value == api::solve_with_reference(p, rules, true).value);
        const Game game(p, rules.value_rules());
        CHECK(r.values.moves.size() == (game.over() ? 0 : game.legal_pits().size()));
        for (std::size_t i = 0; i < r.values.moves.size(); ++i) {
          const SowingValue& m = r.values.moves[i];
          CHECK(m.value == test::reference_after(p, m.pit, rules));
          if (i == 0) CHECK(m.value == r.values.value);
          if (i > 0) {  // best for the mover first, ties by pit
            const SowingValue& prev = r.values.moves[i - 1];
            CHECK(margin_lost(p.to_move, prev.value, m.value) >= 0);
            if (prev.value == m.value) CHECK(prev.pit < m.pit);
          }
        }
      }
    }
  }
}

TEST_CASE("label: JSON lines carry value, moves with loss, best pits", "[api][label]") {
  api::Session session(test::small_session_config(3, 3, Rules{}));
  const Position p = Position::parse("3,0,2/1,3,3/2/1/N", 3);
  const api::Json j = api::to_json(api::label(session, p));
  CHECK(j["position"] == p.to_text());
  CHECK(j["to_move"] == "N");
  const int value = j["value"].get<int>();
  REQUIRE(j["moves"].size() == 3);
  for (const auto& m : j["moves"]) {
    CHECK(m["loss"].get<int>() == m["value"].get<int>() - value);  // North: a higher value is worse
    CHECK(m["loss"].get<int>() >= 0);
  }
  CHECK(j["moves"][0]["loss"] == 0);
  CHECK(j["best"][0] == j["moves"][0]["pit"]);
  // Terminal: no moves, the final margin.
  const api::Json end = api::to_json(api::label(session, Position::parse("0,0,0/1,2,0/5/4/S", 3)));
  CHECK(end["moves"].empty());
  CHECK(end["value"] == 5 - 4 - 3);
}

TEST_CASE("label: a batch on 3 workers keeps the input order and passes bad inputs through", "[api][label]") {
  const Rules rules = Rules::preset("empty-capture");
  const std::vector<Position> positions = test::random_positions(4, 3, rules, 40, 11, 12);
  std::vector<api::BatchInput> inputs;
  for (std::size_t i = 0; i < positions.size(); ++i) {
    api::BatchInput in;
    if (i % 7 == 3)
      in.error = "line " + std::to_string(i) + ": malformed";
    else
      in.position = positions[i];
    in.tag = static_cast<long long>(i);
    inputs.push_back(in);
  }
  api::BatchInput too_big;  // more seeds than the session is for
  too_big.position = Position::parse("9,9,9,9/9,9,9,9/0/0/S", 4);
  too_big.tag = static_cast<long long>(inputs.size());
  inputs.push_back(too_big);

  // Workers searching one table, then workers with a table each.
  for (const bool share_table : {true, false}) {
    INFO("share_table " << share_table);
    std::size_t next_index = 0;
    std::vector<std::pair<api::BatchInput, api::BatchResult>> got;
    const bool complete = api::label_batch(
        test::small_session_config(4, 3, rules), api::BatchWorkers{3, share_table},
        [&](api::BatchInput& in) {
          if (next_index == inputs.size()) return false;
          in = inputs[next_index++];
          return true;
        },
        [&](const api::BatchInput& in, const api::BatchResult& r) { got.emplace_back(in, r); });
    CHECK(complete);
    REQUIRE(got.size() == inputs.size());
    api::Session serial(test::small_session_config(4, 3, rules));
    for (std::size_t i = 0; i < got.size(); ++i) {
      INFO(i);
      CHECK(got[i].first.tag == static_cast<long long>(i));
      if (i + 1 == got.size()) {
        CHECK_FALSE(got[i].second.report);
        CHECK(got[i].second.error.find("seeds in the pits") != std::string::npos);
      } else if (i % 7 == 3) {
        CHECK_FALSE(got[i].second.report);
        CHECK(got[i].second.error == inputs[i].error);
      } else {
        REQUIRE(got[i].second.report);
        const api::LabelReport expected = api::label(serial, positions[i]);
        CHECK(got[i].second.report->values.value == expected.values.value);
        for (std::size_t k = 0; k < expected.values.moves.size(); ++k) {
          CHECK(got[i].second.report->values.moves[k].pit == expected.values.moves[k].pit);
          CHECK(got[i].second.report->values.moves[k].value == expected.values.moves[k].value);
        }
      }
    }
  }
}

TEST_CASE("label: a cancelled batch stops, delivering a prefix of the input", "[api][label]") {
  std::atomic<bool> cancel{false};
  api::SessionConfig config = test::small_session_config(4, 3, Rules{});
  config.cancel = &cancel;
  const std::vector<Position> positions = test::random_positions(4, 3, Rules{}, 200, 5, 12);
  std::size_t next_index = 0;
  std::vector<long long> tags;
  const bool complete = api::label_batch(
      config, api::BatchWorkers{2},
      [&](api::BatchInput& in) {
        if (next_index == positions.size()) return false;
        in.position = positions[next_index];
        in.tag = static_cast<long long>(next_index++);
        if (next_index == 50) cancel = true;  // as Ctrl-C would, while the 50th is read
        return true;
      },
      [&](const api::BatchInput& in, const api::BatchResult&) { tags.push_back(in.tag); });
  CHECK_FALSE(complete);
  CHECK(tags.size() <= 50);
  for (std::size_t i = 0; i < tags.size(); ++i) CHECK(tags[i] == static_cast<long long>(i));
}

// The explorer's answers (solver/api/explore.hpp): every sowing's value and the position it
// leads to equal the reference solver's and the engine's on small boards for every value rule
// set, best first for the mover, sources named (a partial level's boards the database's); a cancelled search leaves
// bounds that hold the reference values.
#include "testing/catch.hpp"

#include <atomic>
#include <random>

#include "engine/game.hpp"
#include "solver/api/explore.hpp"
#include "solver/api/report_json.hpp"
#include "solver/db/paired_level.hpp"
#include "solver/reference/reference_solver.hpp"
#include "testing/positions.hpp"
#include "testing/rule_sets.hpp"
#include "testing/session_config.hpp"

using namespace kalah;

TEST_CASE("explore: every sowing's value and position equal the reference's, best first", "[api][explore]") {
  int over = 0;
  for (const Rules& rules : test::all_value_rules()) {
    for (const auto& [pits, seeds] : {std::pair{2, 3}, std::pair{3, 3}, std::pair{4, 2}}) {
      INFO(rules.describe() << ", Kalah(" << pits << "," << seeds << ")");
      api::SessionConfig config = test::small_session_config(pits, seeds, rules);
      // Levels 0..3 and, of level 4, the pair of the boards with 0 or 4 seeds on the mover's
      // side (a partial level: its boards are the database's, the others searched).
      const EndgameDatabase level4 = EndgameDatabase::build_in_memory(pits, rules, 4, 1);
      auto db = std::make_shared<EndgameDatabase>(EndgameDatabase::build_in_memory(pits, rules, 3, 1));
      db->add_partial_level(PairedLevel::pack(level4.indexer(), 4, level4.level(4), 0, 1), 0b001);
      config.database = db;
      api::Session session(config);
      for (const Position& p : test::random_positions(pits, seeds, rules, 14, 5 * pits + seeds, 2 * pits * seeds + 1)) {
        INFO(p.to_text());
        const api::ExploreReport r = api::explore(session, p);
        REQUIRE(!r.interrupted);
        REQUIRE(r.known());
        const Game game(p, rules.value_rules());
        CHECK(r.game_over == game.over());
        if (game.over()) {
          ++over;
          CHECK(r.moves.empty());
          CHECK(r.lower == game.margin());
          continue;
        }
        CHECK(r.moves.size() == game.legal_pits().size());
        int best = r.moves.front().lower;
        for (std::size_t i = 0; i < r.moves.size(); ++i) {
          const api::ExploreMove& m = r.moves[i];
          INFO("pit " << m.pit + 1);
          REQUIRE(m.known());
          CHECK(m.lower == test::reference_after(p, m.pit, rules));
          Game after = game;
          CHECK(after.sow(m.pit).outcome.extra_turn == m.extra_turn);
          CHECK(after.position() == m.after);
          const int seeds_after = m.after.pit_seeds(Side::South) + m.after.pit_seeds(Side::North);
          const bool held = seeds_after <= 3 || (seeds_after == 4 && SublevelIndexer::pair_of(
                                                                         pits, 4, base::to_bits(m.after.board())) == 0);
          CHECK(m.source == (after.over() ? api::ValueSource::end
                             : held       ? api::ValueSource::database
                                          : api::ValueSource::search));
          if (i > 0) {  // best for the mover first, ties by pit
            const api::ExploreMove& prev = r.moves[i - 1];
            const bool better = p.to_move == Side::South ? prev.lower > m.lower : prev.lower < m.lower;
            CHECK((better || (prev.lower == m.lower && prev.pit < m.pit)));
          }
        }
        CHECK(r.lower == best);
        const api::Json j = api::to_json(r);
        CHECK(j["value"] == best);
        CHECK(j["moves"][0]["pit"] == r.moves.front().pit + 1);
        CHECK(j["moves"][0]["position"] == r.moves.front().after.to_text());
      }
    }
  }
  CHECK(over > 0);
}

TEST_CASE("explore: a cancelled search leaves bounds that hold the values", "[api][explore]") {
  for (const Rules& rules : test::all_value_rules()) {
    INFO(rules.describe());
    std::atomic<bool> cancel{true};  // stopped before it starts: only what is known without a search
    api::SessionConfig config = test::small_session_config(4, 3, rules);
    config.database = std::make_shared<EndgameDatabase>(EndgameDatabase::build_in_memory(4, rules, 8, 1));
    config.cancel = &cancel;
    api::Session session(config);
    int open = 0;
    for (const Position& p : test::random_positions(4, 3, rules, 10, 3, 25)) {
      INFO(p.to_text());
      const api::ExploreReport r = api::explore(session, p);
      for (const api::ExploreMove& m : r.moves) {
        INFO("pit " << m.pit + 1);
        const int v = test::reference_after(p, m.pit, rules);
        CHECK(m.lower <= v);
        CHECK(v <= m.upper);
        if (m.source != api::ValueSource::search) CHECK(m.known());  // the end or the database
        if (!m.known()) ++open;
      }
      CHECK(r.lower <= r.upper);
      if (!r.moves.empty()) {
        const api::Json j = api::to_json(r);
        CHECK(j["interrupted"] == r.interrupted);
        if (!r.known()) CHECK(j["value"].is_null());
      }
    }
    CHECK(open > 0);
  }
}

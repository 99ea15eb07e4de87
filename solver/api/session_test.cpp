// The library's entry point (solver/api/session.hpp, reports.hpp): a session opened from a
// configuration gives the reference solver's values, refuses configurations it cannot
// serve with ConfigError, and an interrupted report keeps the bounds it had proven.
#include "testing/catch.hpp"

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "solver/api/report_json.hpp"
#include "solver/api/reports.hpp"
#include "solver/api/session.hpp"
#include "solver/db/database.hpp"
#include "solver/search/solver.hpp"
#include "testing/database_files.hpp"
#include "testing/scratch_dir.hpp"
#include "testing/session_config.hpp"

using namespace kalah;

TEST_CASE("session: solve and openings equal the reference solver", "[api]") {
  for (const char* preset : {"standard", "empty-capture", "bga", "relay"}) {
    const Rules rules = Rules::preset(preset);
    const Position start = Position::start(3, 3);
    api::Session session(test::small_session_config(3, 3, rules));
    const api::SolveReport searched = api::solve(session, start);
    const api::SolveReport reference = api::solve_with_reference(start, rules);
    INFO(preset);
    CHECK(searched.value == reference.value);
    CHECK(searched.play.best == reference.play.best);
    CHECK(!searched.interrupted);
    CHECK(searched.stats.nodes > 0);
    const api::OpeningsReport o = api::openings(session, start);
    CHECK(o.openings.value == reference.value);
    CHECK(o.lower == o.upper);
    for (const SowingValue& m : o.openings.moves) {
      Position after = start;
      Game game(after, rules.value_rules());
      game.sow(m.pit);
      CHECK(api::solve_with_reference(game.position(), rules, true).value == m.value);
    }
  }
}

TEST_CASE("session: a database in memory is probed and owned", "[api]") {
  const Rules rules = Rules::preset("empty-capture");
  api::SessionConfig c = test::small_session_config(4, 3, rules);
  c.database = std::make_shared<const EndgameDatabase>(EndgameDatabase::build_in_memory(4, rules, 10, 1));
  api::Session session(c);
  CHECK(session.database_seeds() == 10);
  const api::SolveReport r = api::solve(session, Position::start(4, 3), true);
  CHECK(r.value == api::solve_with_reference(Position::start(4, 3), rules, true).value);
  CHECK(r.stats.db_max_seeds == 10);
  const api::Json j = api::to_json(r);
  CHECK(j["value"] == r.value);
  CHECK(j["db_max_seeds"] == 10);
  CHECK(!j.contains("best"));  // value only
}

TEST_CASE("session: configurations it cannot serve are ConfigErrors", "[api]") {
  auto refused = [](api::SessionConfig c) {
    try {
      api::Session s(c);
    } catch (const api::ConfigError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  api::SessionConfig c = test::small_session_config(6, 4);
  c.pits = 9;
  CHECK(!refused(c).empty());
  c = test::small_session_config(6, 4);
  c.threads = -1;
  CHECK(!refused(c).empty());
  c = test::small_session_config(6, 4);
  c.table_bytes = 100;
  CHECK(!refused(c).empty());
  // Keys too wide for 63 bits (Kalah(8,12)), and a table too small for exact keys.
  CHECK(refused(test::small_session_config(8, 12)).find("63 bits") != std::string::npos);
  c = test::small_session_config(6, 6);
  c.table_bytes = 1024;
  CHECK(refused(c).find("too small") != std::string::npos);
  // A table larger than the memory budget.
  c = test::small_session_config(6, 4);
  c.table_bytes = std::uint64_t(1) << 30;
  c.memory_bytes = std::uint64_t(64) << 20;
  CHECK(refused(c).find("memory budget") != std::string::npos);
  // A database for other rules.
  c = test::small_session_config(4, 3);
  c.database = std::make_shared<const EndgameDatabase>(EndgameDatabase::build_in_memory(4, Rules{}, 6, 1));
  c.rules = Rules::preset("empty-capture");
  CHECK(!refused(c).empty());
  // A position larger than the session is for.
  api::Session session(test::small_session_config(4, 2));
  CHECK_THROWS_AS(api::solve(session, Position::start(4, 3)), api::ConfigError);
}

TEST_CASE("session: an interrupted solve reports the bounds proven so far", "[api]") {
  // Kalah(5,4) takes about a second: cancelled before it starts, then during it.
  const int truth = 10;
  std::atomic<bool> cancel{true};
  api::SessionConfig c = test::small_session_config(5, 4);
  c.cancel = &cancel;
  {
    api::Session session(c);
    const api::SolveReport r = api::solve(session, Position::start(5, 4));
    CHECK(r.interrupted);
    CHECK(r.lower <= truth);
    CHECK(truth <= r.upper);
    CHECK(r.lower < r.upper);
    const api::Json j = api::to_json(r);
    CHECK(j["value"].is_null());
    CHECK(j["interrupted"] == true);
  }
  cancel = false;
  api::Session session(c);
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    cancel = true;
  });
  const api::SolveReport r = api::solve(session, Position::start(5, 4));
  stopper.join();
  if (r.interrupted) {  // a very fast machine may finish first
    CHECK(r.lower <= truth);
    CHECK(truth <= r.upper);
  } else {
    CHECK(r.value == truth);
  }
}

TEST_CASE("session: the memory budget counts the threads' near tables beside the database", "[api]") {
  // Levels 0..10 of Kalah(4, n) in a directory; a budget of the table and every level exactly:
  // without near tables every level loads, with 4 KiB a thread for two threads (level 10
  // alone is 19 KB, all of them 43 KB) the top level gives way, and near tables past the
  // budget are refused.
  test::ScratchDir dir("session-near-budget");
  test::build_db(dir.path, 4, 10, Rules{}, 1);  // format 1: loaded at a byte a board
  const std::uint64_t levels = select_within(dir.path, 4, 10, std::uint64_t(1) << 40, -1).bytes;
  api::SessionConfig c = test::small_session_config(4, 2);
  c.database_dir = dir.path.string();
  c.threads = 2;
  c.memory_bytes = search::Solver::table_bytes_for(4, c.max_seeds, c.table_bytes) + levels;
  c.near_table_bytes = 0;
  CHECK(api::Session(c).database()->max_seeds() == 10);
  c.near_table_bytes = 4 << 10;
  CHECK(api::Session(c).database()->max_seeds() == 9);
  c.near_table_bytes = std::size_t(1) << 30;
  try {
    api::Session s(c);
    FAIL("near tables past the budget were not refused");
  } catch (const api::ConfigError& e) {
    CHECK(std::string(e.what()).find("near tables") != std::string::npos);
  }
}

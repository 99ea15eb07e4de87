// kalah job history: the bounds replayed from the units narrow step by step, from what the
// seeds allow to where the job stands, on the run-time and worker-time axes.
#include "testing/catch.hpp"

#include "solver/job/history.hpp"
#include "solver/job/job.hpp"
#include "solver/job/job_testing.hpp"
#include "testing/scratch_dir.hpp"

using namespace kalah;
using kalah::test::ScratchDir;

TEST_CASE("job history: bounds narrow from the seeds' to the job's, over two runs", "[job][history]") {
  ScratchDir dir("history");
  const Position p = Position::start(4, 3);  // value +6
  const job::JobSpec spec = job::spec_of(p, Rules{});
  job::LocalRun run = job::small_run(2, 1e-4);
  job::run_stopped(dir.path / "j", spec, run, 10);
  REQUIRE(job::run_local_job(dir.path / "j", run).finished);

  const job::JobHistory h = job::job_history(dir.path / "j");
  const job::JobStatus st = job::job_status(dir.path / "j");
  REQUIRE(h.points.size() >= 2);
  CHECK(h.points.front().units == 0);
  // Before any unit: what the seeds allow through the expansions (which depend on timing).
  CHECK(h.points.front().lower < 6);
  CHECK(h.points.front().upper > 6);
  CHECK(h.points.front().lower >= -24);
  CHECK(h.points.front().upper <= 24);
  CHECK(h.points.back().lower == 6);
  CHECK(h.points.back().upper == 6);
  CHECK(h.points.back().units == st.totals.units);
  CHECK(h.sowing_pits == std::vector<int>{0, 1, 2, 3});
  bool second_run = false;
  for (std::size_t i = 1; i < h.points.size(); ++i) {
    const job::HistoryPoint &a = h.points[i - 1], &b = h.points[i];
    CHECK(b.lower >= a.lower);
    CHECK(b.upper <= a.upper);
    CHECK(b.units > a.units);
    CHECK(b.run_seconds >= a.run_seconds);
    CHECK(b.worker_seconds >= a.worker_seconds);
    REQUIRE(b.sowing_lower.size() == 4);
    for (std::size_t s = 0; s < 4; ++s) {
      CHECK(b.sowing_lower[s] >= a.sowing_lower[s]);
      CHECK(b.sowing_upper[s] <= a.sowing_upper[s]);
    }
    REQUIRE(b.turn_lower.size() == h.turns.size());
    for (std::size_t t = 0; t < h.turns.size(); ++t) {
      CHECK(b.turn_lower[t] >= a.turn_lower[t]);
      CHECK(b.turn_upper[t] <= a.turn_upper[t]);
    }
    second_run = second_run || b.run == 2;
  }
  CHECK(second_run);
  CHECK(h.points.back().run_seconds <= st.totals.run_seconds + 1e-6);
  // The first turns are those status lists, and end at its bounds: sowing 2 (0-based 1) gives an
  // extra turn here, so the turns "2-x" are in the tree once it is expanded.
  REQUIRE(h.turns.size() == st.turns.size());
  bool through_extra_turn = false;
  for (std::size_t t = 0; t < h.turns.size(); ++t) {
    CHECK(h.turns[t] == st.turns[t].pits);
    CHECK(h.turn_complete[t] == st.turns[t].complete_turn);
    CHECK(h.points.back().turn_lower[t] == st.turns[t].lower);
    CHECK(h.points.back().turn_upper[t] == st.turns[t].upper);
    through_extra_turn = through_extra_turn || h.turns[t].size() > 1;
  }
  CHECK(through_extra_turn);
  REQUIRE(st.sowings.size() == 4);
  REQUIRE(h.points.back().sowing_lower.size() == 4);
  for (std::size_t s = 0; s < 4; ++s) {
    CHECK(h.points.back().sowing_lower[s] == st.sowings[s].lower);
    CHECK(h.points.back().sowing_upper[s] == st.sowings[s].upper);
  }
  const api::Json j = job::to_json(h);
  CHECK(j["points"].size() == h.points.size());
  CHECK(j["sowings"] == api::Json::array({1, 2, 3, 4}));
  CHECK(j["turns"].size() == h.turns.size());
  CHECK(j["points"].back()["turns"].size() == h.turns.size());
}

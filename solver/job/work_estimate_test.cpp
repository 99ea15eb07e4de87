// kalah job estimate: Knuth's estimator over a test's proof tree. Depth 0 is the root's test
// itself; the probes follow the seed; a decided test has nothing left; on small games the
// estimate lands near what the search spends on the test.
#include "testing/catch.hpp"

#include <cmath>

#include "solver/api/session.hpp"
#include "solver/db/store.hpp"
#include "solver/job/job.hpp"
#include "solver/job/job_testing.hpp"
#include "solver/job/work_estimate.hpp"
#include "testing/scratch_dir.hpp"

using namespace kalah;
using kalah::test::ScratchDir;

namespace {

api::SessionConfig small_session() {
  api::SessionConfig c;
  c.table_bytes = std::uint64_t(16) << 20;
  c.threads = 1;
  return c;
}

job::JobSpec spec_of(const Position& p, bool openings = false) { return job::spec_of(p, Rules{}, openings); }

}  // namespace

TEST_CASE("job estimate: depth 0 is the root's test, measured once", "[job][estimate]") {
  ScratchDir dir("estimate");
  const Position p = Position::start(4, 3);  // value +6
  job::init_job(dir.path / "j", spec_of(p));
  job::WorkEstimateOptions o;
  o.depth = 0;
  o.probes = 3;
  o.margin = 6;
  const job::WorkEstimate e = job::estimate_work(dir.path / "j", small_session(), o);
  CHECK_FALSE(e.decided);
  CHECK(e.margin == 6);
  REQUIRE(e.probes.size() == 3);
  CHECK(e.leaves_solved == 1);
  for (const job::WorkProbe& w : e.probes) {
    CHECK(w.weight == 1);
    CHECK(w.pits.empty());
    CHECK(w.end == job::WorkProbe::End::frontier);
    CHECK(w.complete);
  }
  CHECK(e.probes[1].reused);
  CHECK(e.mean_nodes == static_cast<double>(e.probes[0].nodes));
  CHECK(e.mean_seconds == Approx(e.probes[0].seconds));
  // Zero but for rounding: the mean of three equal doubles can differ from them in the last bit.
  CHECK(e.standard_error_seconds == Approx(0).margin(1e-12));
  // The test itself, by a session of its own: the same nodes (one thread, an empty table).
  api::SessionConfig c = small_session();
  c.pits = 4;
  c.max_seeds = 24;
  api::Session s(c);
  const std::uint64_t before = s.solver().nodes();
  (void)s.solver().test(p.board(), 6);
  CHECK(e.mean_nodes == static_cast<double>(s.solver().nodes() - before));
}

TEST_CASE("job estimate: probes follow their seed; weights are products of branchings", "[job][estimate]") {
  ScratchDir dir("estimate");
  job::init_job(dir.path / "j", spec_of(Position::start(4, 3)));
  job::WorkEstimateOptions o;
  o.depth = 4;
  o.probes = 12;
  o.seed = 99;
  auto paths = [](const job::WorkEstimate& e) {
    std::vector<std::vector<int>> v;
    for (const job::WorkProbe& w : e.probes) v.push_back(w.pits);
    return v;
  };
  const job::WorkEstimate a = job::estimate_work(dir.path / "j", small_session(), o);
  const job::WorkEstimate b = job::estimate_work(dir.path / "j", small_session(), o);
  CHECK(paths(a) == paths(b));
  CHECK(a.mean_nodes == b.mean_nodes);
  for (const job::WorkProbe& w : a.probes) {
    CHECK(w.weight >= 1);
    CHECK(w.weight == std::round(w.weight));
    CHECK(w.weight <= std::pow(4.0, static_cast<double>(w.pits.size())));
    CHECK(w.pits.size() <= 4);
  }
  CHECK(a.mean_nodes > 0);
  CHECK(a.standard_error_seconds >= 0);
  CHECK(a.p10_seconds <= a.median_seconds);
  CHECK(a.median_seconds <= a.p90_seconds);
  const api::Json j = job::to_json(a);
  CHECK(j["probes"] == 12);
  CHECK(j["probe_list"].size() == 12);
  // Stopped before the first probe: nothing measured, said so.
  const std::atomic<bool> stop{true};
  o.cancel = &stop;
  const job::WorkEstimate stopped = job::estimate_work(dir.path / "j", small_session(), o);
  CHECK(stopped.interrupted);
  CHECK(stopped.probes.empty());
}

TEST_CASE("job estimate: --expect carries the assumed answer down the walk", "[job][estimate]") {
  // "South minus North >= G" assumed true: one sowing proves it where South moves, every sowing
  // must be refuted where North moves; assumed false, the reverse. So a probe's weight is the
  // product of the sowings at the boards where the side the answer does not favour moves,
  // whatever the estimates say: counted here by sides, not by the walk's negations.
  const Rules rules = Rules{}.value_rules();
  for (const char* text : {"3,3,3,3/3,3,3,3/0/0/S", "2,1,0,3/1,2,2,1/9/9/N"}) {
    const Position p = Position::parse(text, 4);
    for (const bool expect : {true, false}) {
      INFO(text << (expect ? ", assumed true" : ", assumed false"));
      ScratchDir dir("estimate");
      job::init_job(dir.path / "j", spec_of(p));  // a fresh job: nothing decided, nothing refuted
      job::WorkEstimateOptions o;
      o.depth = 4;
      o.probes = 12;
      o.seed = 5;
      o.expect = expect;
      const job::WorkEstimate e = job::estimate_work(dir.path / "j", small_session(), o);
      CHECK(e.assumed);
      CHECK(e.expected == expect);
      REQUIRE(e.probes.size() == 12);
      const Side favoured = expect ? Side::South : Side::North;
      for (const job::WorkProbe& w : e.probes) {
        Board b = p.board();
        Side mover = p.to_move;
        double weight = 1;
        for (const int pit : w.pits) {
          int sowings = 0;
          for (int i = 0; i < 4; ++i) sowings += b.cells[static_cast<std::size_t>(i)] != 0;
          if (mover != favoured) weight *= sowings;
          const SowOutcome out = sow(b, 4, pit, rules);
          if (!out.extra_turn) {
            b = flipped(b, 4);
            mover = opponent(mover);
          }
        }
        CHECK(w.weight == weight);
      }
      CHECK(job::to_json(e)["assumed"] == true);
    }
  }
}

TEST_CASE("job estimate: nothing is left of a test the job decided", "[job][estimate]") {
  ScratchDir dir("estimate");
  job::init_job(dir.path / "j", spec_of(Position::start(3, 3)));
  job::LocalRun run;
  run.session = small_session();
  REQUIRE(job::run_local_job(dir.path / "j", run).finished);
  job::WorkEstimateOptions o;
  const job::WorkEstimate e = job::estimate_work(dir.path / "j", small_session(), o);
  CHECK(e.decided);
  CHECK(e.job_lower == e.job_upper);
  CHECK(e.probes.empty());
  CHECK(e.mean_seconds == 0);
}

TEST_CASE("job estimate: on Kalah(5,4) the estimate is near the search's own cost", "[job][estimate]") {
  // Value +10. Not a precise claim: Knuth's estimator over a proof tree guessed by estimates;
  // the search shares transpositions and orders moves better. Within a factor of 10 either way.
  ScratchDir dir("estimate");
  const Position p = Position::start(5, 4);
  job::init_job(dir.path / "j", spec_of(p));
  api::SessionConfig c = small_session();
  c.pits = 5;
  c.max_seeds = 40;
  c.table_bytes = std::uint64_t(64) << 20;
  for (const int margin : {10, 12}) {
    INFO("South minus North >= " << margin);
    api::Session s(c);
    const std::uint64_t before = s.solver().nodes();
    (void)s.solver().test(p.board(), margin);
    const double direct = static_cast<double>(s.solver().nodes() - before);
    job::WorkEstimateOptions o;
    o.depth = 4;
    o.probes = 48;
    o.seed = 5;
    o.margin = margin;
    api::SessionConfig leaf = small_session();
    leaf.table_bytes = std::uint64_t(64) << 20;
    const job::WorkEstimate e = job::estimate_work(dir.path / "j", leaf, o);
    CHECK(e.mean_nodes > direct / 10);
    CHECK(e.mean_nodes < direct * 10);
  }
}

TEST_CASE("job estimate: North to move, database ends, --db-seeds, a partly run job", "[job][estimate]") {
  ScratchDir dir("estimate");
  DbBuildOptions b;
  b.pits = 4;
  b.max_seeds = 10;
  b.threads = 1;
  build_database(dir.path / "db", b);
  const Position p = Position::parse("2,1,0,3/1,2,2,1/9/9/N");  // 12 seeds, North to move
  job::init_job(dir.path / "j", spec_of(p));
  api::SessionConfig c = small_session();
  c.database_dir = (dir.path / "db").string();
  c.database_seeds = 8;  // the frontier sessions share the levels the first one loaded
  job::WorkEstimateOptions o;
  o.depth = 5;
  o.probes = 16;
  o.seed = 3;
  const job::WorkEstimate e = job::estimate_work(dir.path / "j", c, o);
  CHECK(e.database_seeds == 8);
  CHECK_FALSE(e.decided);
  REQUIRE(e.probes.size() == 16);
  int database_ends = 0;
  for (const job::WorkProbe& w : e.probes) database_ends += w.end == job::WorkProbe::End::database;
  CHECK(database_ends > 0);
  // The default margin is one the job has not decided, whichever side moves.
  ScratchDir dir2("estimate");
  const job::LocalRun run = job::small_run(2, 1e-4);
  // Kalah(5,3) with the openings: three units cannot decide it, whatever the load.
  job::run_stopped(dir2.path / "j", spec_of(Position::start(5, 3), true), run, 3);
  job::WorkEstimateOptions d;
  d.depth = 2;
  d.probes = 4;
  const job::WorkEstimate partly = job::estimate_work(dir2.path / "j", small_session(), d);
  REQUIRE(partly.job_lower < partly.job_upper);
  CHECK_FALSE(partly.decided);
  CHECK(partly.margin > partly.job_lower);
  CHECK(partly.margin <= partly.job_upper);
}

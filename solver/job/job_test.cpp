// The proof job against the reference solver: small games under every value-relevant rule set,
// through worker threads with units so small that the top tree grows; runs stopped at random
// points and resumed; stores that are damaged, foreign or busy.
#include "testing/catch.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <random>
#include <set>
#include <vector>

#include "solver/api/report_json.hpp"
#include "solver/api/reports.hpp"
#include "solver/base/program_version.hpp"
#include "solver/db/directory_lock.hpp"
#include "solver/job/job.hpp"
#include "solver/job/job_testing.hpp"
#include "solver/job/worker_pool.hpp"
#include "solver/reference/reference_solver.hpp"
#include "solver/search/solver.hpp"
#include "solver/sqlite/sqlite.hpp"
#include "testing/rule_sets.hpp"
#include "testing/scratch_dir.hpp"

using namespace kalah;
using kalah::job::small_run;
using kalah::job::spec_of;
using kalah::test::ScratchDir;

namespace {

api::Json reference_openings(const Position& p, const Rules& rules) {
  ReferenceSolver reference(p.pits, rules.value_rules());
  const Oracle oracle = [&](const Board& b) { return reference.value(b); };
  return api::without_statistics(api::to_json(api::openings_from(p, rules, oracle)));
}

// The same from the search (for games the reference solver takes long over); the search is
// checked against the reference in solver/search.
api::Json solver_openings(const Position& p, const Rules& rules) {
  const int seeds = p.pit_seeds(Side::South) + p.pit_seeds(Side::North);
  search::Solver solver(p.pits, rules.value_rules(), seeds, search::SolverOptions{});
  const Oracle oracle = [&](const Board& b) { return solver.value(b); };
  return api::without_statistics(api::to_json(api::openings_from(p, rules, oracle)));
}

// Kalah(3,2)'s start (node 0) expanded: three edges, by pit, each to a leaf.
job::TopTree start_expanded() {
  job::TopTree tree(3, Rules{});
  tree.expand(tree.add(Position::start(3, 2).board()));
  REQUIRE(tree.node(0).edges.size() == 3);
  return tree;
}

api::Json report_of(const job::RunSummary& s) { return api::without_statistics(api::Json::parse(s.report_json)); }

}  // namespace

TEST_CASE("a job's openings equal the reference solver's, every value rule set", "[job]") {
  std::uint64_t regrown = 0, expansions = 0;
  for (const Rules& rules : test::all_value_rules()) {
    for (const auto& [m, n] : {std::pair{3, 3}, std::pair{4, 2}, std::pair{2, 5}}) {
      // Units too short to finish (a unit's budget clock is a thread, which takes longer than
      // that to start), so most run over, the tree grows and tests decide it: once with a
      // leaf expanded at its first unit over budget (workers with a table each), once with
      // budgets doubling from 1 us to 0.1 ms first, on the worker that did the work, and
      // expanded after (workers sharing one table); and expanding again with no estimate to
      // break the ties between leaves (the lowest pit first; leaves numbered by their moves),
      // and with Allis' leaf numbers (1 and 1); and down the committed line, with the
      // estimate's order and without (by pit).
      for (const int variant : {0, 1, 2, 3, 4, 5}) {
        const bool doubling = variant == 1;
        INFO(rules.describe() << " Kalah(" << m << "," << n << "), "
                              << (doubling       ? "doubling"
                                  : variant == 2 ? "expanding, no estimates"
                                  : variant == 3 ? "expanding, no estimates, leaves 1 and 1"
                                  : variant == 4 ? "expanding, committed line"
                                  : variant == 5 ? "expanding, committed line, no estimates"
                                                 : "expanding"));
        ScratchDir dir("job");
        const Position p = Position::start(m, n);
        job::init_job(dir.path / "j", spec_of(p, rules));
        job::LocalRun run = small_run(2, doubling ? 1e-6 : 1e-4, 1e-4);
        run.share_table = doubling;
        if (variant == 2 || variant == 3 || variant == 5) run.run.estimate_nodes = 0;
        if (variant == 3) run.run.leaf_numbers = job::LeafNumbers::kOne;
        if (variant >= 4) run.run.selection = job::Selection::kCommit;
        const job::RunSummary s = job::run_local_job(dir.path / "j", run);
        REQUIRE(s.finished);
        CHECK(report_of(s) == reference_openings(p, rules));
        const job::JobStatus st = job::job_status(dir.path / "j");
        CHECK(st.lower == st.upper);
        CHECK(st.report_json.has_value());
        if (!doubling) CHECK(s.regrown == 0);
        regrown += s.regrown;
        expansions += s.expansions;
      }
    }
  }
  CHECK(expansions > 0);
  // The doubling path taken for sure: the games above solve in microseconds, and under load
  // (a unit's budget thread scheduled late) all their units can finish in time. Kalah(4,3)'s
  // first units take milliseconds; under heavy load (both cores busy twice over) even they
  // once all finished in time, so it is tried up to three times.
  for (int attempt = 0; attempt < 3 && regrown == 0; ++attempt) {
    ScratchDir dir("job");
    const Position p = Position::start(4, 3);
    job::init_job(dir.path / "j", spec_of(p, Rules{}));
    job::LocalRun run = small_run(2, 1e-6, 1e-4);
    run.share_table = true;
    const job::RunSummary s = job::run_local_job(dir.path / "j", run);
    REQUIRE(s.finished);
    CHECK(report_of(s) == reference_openings(p, Rules{}));
    regrown += s.regrown;
  }
  CHECK(regrown > 0);
}

TEST_CASE("a local pool gives a unit to the worker it prefers when idle, else to any", "[job]") {
  std::vector<std::unique_ptr<job::Worker>> workers;
  for (int i = 0; i < 3; ++i) {
    api::SessionConfig c;
    c.pits = 3;
    c.max_seeds = 12;
    c.threads = 1;
    c.table_bytes = std::uint64_t(1) << 20;
    workers.push_back(std::make_unique<job::Worker>(c, "w" + std::to_string(i)));
  }
  const std::atomic<bool> stop{false};
  job::LocalPool pool(std::move(workers), &stop, 1);
  job::Unit u;
  u.board = Position::start(3, 2).board();
  u.seconds = 10;
  for (int round = 0; round < 20; ++round) {
    for (int slot = 0; slot < 3; ++slot) {
      u.id = static_cast<std::uint64_t>(round * 3 + slot + 1);
      u.prefer_slot = slot;
      pool.submit(u);
      std::optional<job::UnitOutcome> out;
      while (!(out = pool.wait_for(1))) {
      }
      CHECK(out->id == u.id);
      CHECK(out->slot == slot);
      CHECK(out->worker == "w" + std::to_string(slot));
      CHECK(out->complete);
    }
  }
  // A unit that prefers a slot the pool does not have goes to any worker.
  u.id = 1000;
  u.prefer_slot = 7;
  pool.submit(u);
  std::optional<job::UnitOutcome> out;
  while (!(out = pool.wait_for(1))) {
  }
  CHECK(out->id == 1000);
  CHECK(out->slot >= 0);
}

TEST_CASE("a job from a middle position, value only, equals kalah solve --value-only", "[job]") {
  Rules rules;
  rules.capture = Capture::Empty;
  rules.pie = true;  // at a middle position the pie rule changes nothing
  const Position p = Position::parse("0,2,3,1,2/2,0,3,1,2/4/2/N");
  ScratchDir dir("job");
  job::init_job(dir.path / "j", spec_of(p, rules, false));
  const job::RunSummary s = job::run_local_job(dir.path / "j", small_run(3, 1e-4));
  REQUIRE(s.finished);
  ReferenceSolver reference(p.pits, rules.value_rules());
  const Oracle oracle = [&](const Board& b) { return reference.value(b); };
  const api::Json expected = api::without_statistics(api::to_json(api::solve_from(p, rules, oracle, {}, true)));
  CHECK(report_of(s) == expected);
}

TEST_CASE("a job stopped at random points and run again gives the same report", "[job]") {
  std::mt19937 rng(20261124);
  const Rules rules = Rules::preset("standard");
  const Position p = Position::start(4, 3);
  const api::Json expected = reference_openings(p, rules);
  for (int trial = 0; trial < 3; ++trial) {
    ScratchDir dir("job");
    job::init_job(dir.path / "j", spec_of(p, rules));
    bool finished = false;
    int runs = 0;
    while (!finished) {
      REQUIRE(++runs < 200);
      std::atomic<bool> cancel{false};
      const int stop_after = std::uniform_int_distribution<int>(1, 12)(rng);
      job::LocalRun run = small_run(2, 1e-4);
      // The selection may change between runs: the store holds bounds, not a walk's state.
      run.run.selection = (trial + runs) % 2 == 0 ? job::Selection::kCommit : job::Selection::kProofNumbers;
      run.run.cancel = &cancel;
      run.run.log_seconds = 0;  // a line after each refill that follows answers
      run.run.log = [&](const std::string& line) {
        if (job::units_in_line(line) >= stop_after) cancel = true;
      };
      const job::RunSummary s = job::run_local_job(dir.path / "j", run);
      finished = s.finished;
      if (!finished) {
        CHECK(s.outcome == "interrupted");
        const api::Json partial = api::Json::parse(s.report_json);
        CHECK(partial["interrupted"] == true);
      }
    }
    const job::JobStatus st = job::job_status(dir.path / "j");
    CHECK(st.totals.runs == runs);
    CHECK(api::without_statistics(api::Json::parse(*st.report_json)) == expected);
  }
}

TEST_CASE("job status: each first sowing's and turn's work is the units on it and below", "[job]") {
  ScratchDir dir("job");
  const std::filesystem::path j = dir.path / "j";
  job::init_job(j, spec_of(Position::start(4, 3), Rules{}));
  REQUIRE(job::run_local_job(j, job::small_run(2, 1e-4)).finished);
  const job::JobStatus st = job::job_status(j);
  job::JobStore store(j, false);
  const job::TopTree tree = store.load_tree();
  const std::vector<job::UnitRecord> units = store.units(tree.size());
  // Every node is below the root: the units at the root and below its first sowings are all
  // of them, some counted twice through transpositions.
  std::uint64_t at_root = 0, below = 0, answered = 0;
  double seconds = 0;
  for (const job::UnitRecord& u : units) {
    at_root += u.node == 0 ? 1 : 0;
    seconds += u.seconds;
  }
  REQUIRE(st.sowings.size() == 4);
  for (const job::BoundsRow& r : st.sowings) {
    CHECK(r.answered <= r.units);
    below += r.units;
    answered += r.answered;
  }
  CHECK(at_root + below >= units.size());
  CHECK(answered <= st.totals.complete_units * st.sowings.size());
  // Each sowing's work, summed here over the nodes its child reaches.
  for (const job::TopEdge& e : tree.node(0).edges) {
    std::set<int> reached{e.child};
    std::vector<int> stack{e.child};
    while (!stack.empty()) {
      const int id = stack.back();
      stack.pop_back();
      for (const job::TopEdge& f : tree.node(id).edges)
        if (reached.insert(f.child).second) stack.push_back(f.child);
    }
    std::uint64_t n = 0, a = 0;
    double t = 0;
    for (const job::UnitRecord& u : units)
      if (reached.count(u.node)) {
        ++n;
        a += u.complete ? 1 : 0;
        t += u.seconds;
      }
    const auto row = std::find_if(st.sowings.begin(), st.sowings.end(),
                                  [&](const job::BoundsRow& r) { return r.pits == std::vector<int>{e.pit}; });
    REQUIRE(row != st.sowings.end());
    CHECK(row->units == n);
    CHECK(row->answered == a);
    CHECK(std::abs(row->seconds - t) <= 1e-9 * (1 + t));
  }
  // A first sowing without an extra turn is a complete turn with the same work.
  for (const job::BoundsRow& t : st.turns)
    if (t.pits.size() == 1)
      for (const job::BoundsRow& r : st.sowings)
        if (r.pits == t.pits) {
          CHECK(r.units == t.units);
          CHECK(r.seconds == t.seconds);
        }
  // A turn through an extra turn has no more work than its first sowing.
  for (const job::BoundsRow& t : st.turns)
    if (t.pits.size() > 1)
      for (const job::BoundsRow& r : st.sowings)
        if (r.pits.front() == t.pits.front()) CHECK(t.units <= r.units);
  const api::Json json = job::to_json(st);
  CHECK(json["sowings"][0]["work"]["units"] == st.sowings[0].units);
  CHECK(json["sowings"][0]["work"]["worker_seconds"].get<double>() <= seconds + 1e-9);
}

TEST_CASE("a finished job runs again at once and reports the same", "[job]") {
  ScratchDir dir("job");
  const Position p = Position::start(3, 2);
  job::init_job(dir.path / "j", spec_of(p, Rules{}));
  const job::RunSummary first = job::run_local_job(dir.path / "j", small_run(1, 1));
  const job::RunSummary again = job::run_local_job(dir.path / "j", small_run(1, 1));
  CHECK(again.already);
  CHECK(again.report_json == first.report_json);
}

TEST_CASE("job stores that are missing, foreign, damaged, busy or there already are refused", "[job]") {
  ScratchDir dir("job");
  const std::filesystem::path j = dir.path / "j";
  const Position p = Position::start(4, 3);  // value +6; large enough for a tree
  CHECK_THROWS_WITH(job::job_status(j), Catch::Contains("job.sqlite: missing"));
  job::init_job(j, spec_of(p, Rules{}));
  CHECK_THROWS_WITH(job::init_job(j, spec_of(p, Rules{})), Catch::Contains("a job store is already there"));

  SECTION("a run while another holds the directory") {
    const DirectoryLock other(j, "kalah job run");
    // flock locks are per open file description: a second lock from this process is refused too.
    CHECK_THROWS_WITH(job::run_local_job(j, small_run(1, 1)), Catch::Contains("another kalah job run is running"));
  }
  SECTION("a file that is not SQLite") {
    test::write_bytes(j / job::kStoreFile, std::vector<char>(8192, 'x'));
    CHECK_THROWS_WITH(job::job_status(j), Catch::Contains("not a kalah job store"));
  }
  SECTION("an SQLite file of something else") {
    std::filesystem::remove(j / job::kStoreFile);
    {
      job::Connection c((j / job::kStoreFile).string(), job::Connection::Mode::create);
      c.exec("CREATE TABLE t(x)");
    }
    CHECK_THROWS_WITH(job::job_status(j), Catch::Contains("not a kalah job store (SQLite application id 0)"));
  }
  SECTION("damaged pages") {
    job::run_local_job(j, small_run(2, 1e-4));
    auto bytes = test::read_bytes(j / job::kStoreFile);
    REQUIRE(bytes.size() > 4096);
    for (std::size_t i = 4096 + 16; i < bytes.size(); i += 97) bytes[i] = static_cast<char>(bytes[i] ^ 0x5A);
    test::write_bytes(j / job::kStoreFile, bytes);
    CHECK_THROWS_WITH(job::job_status(j), Catch::Contains("job.sqlite: ") && Catch::Contains("damaged") ||
                                              Catch::Contains("not a kalah job store") || Catch::Contains("malformed"));
  }
  SECTION("rows that SQLite accepts but the job does not") {
    job::run_local_job(j, small_run(2, 1e-4));
    auto tamper = [&](const std::string& sql, const std::string& expect) {
      const std::filesystem::path copy = dir.path / "copy";
      std::filesystem::remove_all(copy);
      std::filesystem::create_directories(copy);
      std::filesystem::copy_file(j / job::kStoreFile, copy / job::kStoreFile);
      {
        job::Connection c((copy / job::kStoreFile).string(), job::Connection::Mode::read_write);
        c.exec(sql);
      }
      INFO(sql);
      CHECK_THROWS_WITH(job::job_status(copy), Catch::Contains(expect));
    };
    {
      job::Connection c((j / job::kStoreFile).string(), job::Connection::Mode::read_only);
      job::Statement s = c.prepare("SELECT expanded FROM node WHERE id = 0");
      REQUIRE(s.step());
      REQUIRE(s.integer(0) == 1);  // the root's value came from its children
    }
    tamper("UPDATE node SET lower = 8, upper = 8 WHERE id = 0", "disagree");  // a wrong value (it is +6)
    tamper("UPDATE node SET upper = 99 WHERE id = 1", "bounds out of range");
    tamper("UPDATE edge SET stored = stored + 1 WHERE parent = 0 AND pit = 0", "are not its sowings");
    tamper("DELETE FROM edge WHERE parent = 0 AND pit = 1", "are not its sowings");
    tamper("UPDATE edge SET child = 0 WHERE parent = 0 AND pit = 0", "are not its sowings");
    tamper("UPDATE node SET seeds = seeds + 2 WHERE id = 2", "seed count");
    {
      job::Connection c((j / job::kStoreFile).string(), job::Connection::Mode::read_only);
      job::Statement open_node = c.prepare("SELECT COUNT(*) FROM node WHERE upper - lower >= 4");
      REQUIRE(open_node.step());
      REQUIRE(open_node.integer(0) > 0);  // a node with room inside its bounds
    }
    tamper("UPDATE node SET upper = upper - 1 WHERE id = (SELECT MIN(id) FROM node WHERE upper - lower >= 4)",
           "wrong parity");
    tamper("DELETE FROM node WHERE id = 1", "node ids are not");
    tamper("UPDATE meta SET value = 'x' WHERE key = 'rules'", "description cannot be read");
    tamper("PRAGMA user_version = 7", "newer than this kalah reads");
  }
}

TEST_CASE("a store left with a hot rollback journal (a writer killed mid-transaction) opens to read", "[job]") {
  // Stores made before job init used WAL were in rollback mode until their first run; a run
  // killed while it changed such a store left a hot journal, which only a writer can roll
  // back. job status and job run (which opens the store to read first) recover it.
  ScratchDir dir("job");
  const std::filesystem::path j = dir.path / "j";
  job::init_job(j, spec_of(Position::start(4, 3), Rules{}));
  const std::string file = (j / job::kStoreFile).string();
  { job::Connection(file, job::Connection::Mode::read_write).exec("PRAGMA journal_mode=DELETE"); }
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // A transaction too large for the page cache: pages spill to the file, the journal is
    // synced (hot), and the process dies before it commits.
    job::Connection c(file, job::Connection::Mode::read_write);
    c.exec("PRAGMA cache_size=1");
    c.exec("BEGIN IMMEDIATE");
    for (int i = 0; i < 200; ++i)
      c.exec("INSERT INTO meta(key, value) VALUES ('x" + std::to_string(i) + "', '" + std::string(4000, 'y') + "')");
    _exit(0);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(std::filesystem::exists(file + "-journal"));
  const job::JobStatus st = job::job_status(j);  // rolls the journal back
  CHECK(st.lower == -24);
  CHECK(st.upper == 24);
  CHECK_FALSE(std::filesystem::exists(file + "-journal"));
  CHECK(job::run_local_job(j, small_run(1, 1)).finished);
}

TEST_CASE("a version-1 job store is read, and gains run.in_flight and unit_check when a run opens it", "[job]") {
  ScratchDir dir("job");
  const std::filesystem::path j = dir.path / "j";
  job::init_job(j, spec_of(Position::start(3, 3), Rules{}));
  job::run_local_job(j, small_run(1, 1));
  {
    job::Connection c((j / job::kStoreFile).string(), job::Connection::Mode::read_write);
    c.exec("ALTER TABLE run DROP COLUMN in_flight");
    c.exec("ALTER TABLE run DROP COLUMN program");
    c.exec("DROP TABLE unit_check");
    c.exec("PRAGMA user_version=1");
  }
  CHECK(job::job_status(j).totals.runs == 1);
  CHECK(job::run_local_job(j, small_run(1, 1)).already);
  job::Connection c((j / job::kStoreFile).string(), job::Connection::Mode::read_only);
  job::Statement v = c.prepare("PRAGMA user_version");
  REQUIRE(v.step());
  CHECK(v.integer(0) == job::kStoreVersion);
  CHECK(job::job_status(j).totals.runs == 1);  // a finished job's run adds no run row
  CHECK(job::job_status(j).checked.empty());
  job::Statement t = c.prepare("SELECT COUNT(*) FROM sqlite_master WHERE name = 'unit_check'");
  REQUIRE(t.step());
  CHECK(t.integer(0) == 1);
}

TEST_CASE("each run records the program that ran it; a version-3 store reads none and gains the column", "[job]") {
  REQUIRE(std::string(program_version()) != "");
  ScratchDir dir("job");
  const std::filesystem::path j = dir.path / "j";
  job::init_job(j, spec_of(Position::start(4, 3), Rules{}));
  std::atomic<bool> cancel{true};  // stopped at once: the job goes on in a second run
  job::LocalRun stopped = small_run(1, 1);
  stopped.run.cancel = &cancel;
  REQUIRE_FALSE(job::run_local_job(j, stopped).finished);
  {
    const job::JobStatus st = job::job_status(j);
    REQUIRE(st.runs.size() == 1);
    CHECK(st.runs[0].program == program_version());
    CHECK(st.runs[0].workers == 1);
    CHECK(st.runs[0].outcome == "interrupted");
    CHECK(job::to_json(st)["runs"][0]["program"] == program_version());
  }
  {
    job::Connection c((j / job::kStoreFile).string(), job::Connection::Mode::read_write);
    c.exec("ALTER TABLE run DROP COLUMN program");
    c.exec("ALTER TABLE unit_check DROP COLUMN program");
    c.exec("PRAGMA user_version=3");
  }
  {
    const job::JobStatus st = job::job_status(j);  // read-only: nothing is added
    REQUIRE(st.runs.size() == 1);
    CHECK(st.runs[0].program.empty());
    CHECK(job::to_json(st)["runs"][0]["program"].is_null());
  }
  REQUIRE(job::run_local_job(j, small_run(1, 1)).finished);
  const job::JobStatus st = job::job_status(j);
  REQUIRE(st.runs.size() == 2);
  CHECK(st.runs[0].program.empty());
  CHECK(st.runs[1].program == program_version());
  job::Connection c((j / job::kStoreFile).string(), job::Connection::Mode::read_only);
  job::Statement v = c.prepare("PRAGMA user_version");
  REQUIRE(v.step());
  CHECK(v.integer(0) == job::kStoreVersion);
}

TEST_CASE("top tree: bounds propagate, cross-checks throw, select finds free leaves", "[job]") {
  const Rules rules;
  job::TopTree tree(3, rules);
  const int root = tree.add(Position::start(3, 2).board());
  CHECK(tree.node(root).lower == -12);
  CHECK(tree.node(root).upper == 12);
  tree.expand(root);
  REQUIRE(tree.node(root).edges.size() == 3);
  // Every child proven at its exact value gives the root its exact value.
  ReferenceSolver reference(3, rules);
  const std::optional<job::Question> q = tree.select(root, 0);
  REQUIRE(q.has_value());
  CHECK(tree.node(q->node).parents == std::vector<int>{root});
  for (const job::TopEdge& e : tree.node(root).edges) {
    const int v = reference.value(tree.node(e.child).board);
    tree.tighten(e.child, v, v);
  }
  CHECK(tree.node(root).exact());
  CHECK(tree.node(root).lower == reference.value(tree.node(root).board));
  CHECK_FALSE(tree.select(root, 0).has_value());
  CHECK_THROWS_AS(tree.tighten(root, tree.node(root).lower + 2, 12), std::logic_error);
}

TEST_CASE("top tree: open leaves are counted below every goal that is not exact", "[job]") {
  job::TopTree tree = start_expanded();
  std::vector<int> goals{0};
  for (const job::TopEdge& e : tree.node(0).edges) goals.push_back(e.child);
  CHECK(tree.open_leaves_below({0}) == 3);
  CHECK(tree.open_leaves_below(goals) == 3);  // each leaf once
  // The root proven exact before its first sowings, as in an openings job: its leaves are
  // still open below those goals.
  const int v = ReferenceSolver(3, Rules{}).value(tree.node(0).board);
  tree.tighten(0, v, v);
  REQUIRE(tree.node(0).exact());
  CHECK(tree.open_leaves_below({0}) == 0);
  CHECK(tree.open_leaves_below(goals) == 3);
  const int first = tree.node(0).edges[0].child;
  const int w = ReferenceSolver(3, Rules{}).value(tree.node(first).board);
  tree.tighten(first, w, w);
  CHECK(tree.open_leaves_below(goals) == 2);
}

TEST_CASE("top tree: the line of sowings to a node, as log lines name it", "[job]") {
  const Rules rules;
  job::TopTree tree(6, rules);
  const int root = tree.add(Position::start(6, 4).board());
  tree.expand(root);
  CHECK(tree.line_to(root).empty());
  CHECK(job::line_text(tree, root).empty());
  // Kalah(6,4): pit 3's four seeds end in the store (an extra turn); pit 1's do not.
  const job::TopEdge three = tree.node(root).edges[2];
  const job::TopEdge one = tree.node(root).edges[0];
  REQUIRE(three.extra_turn);
  REQUIRE_FALSE(one.extra_turn);
  CHECK(job::line_text(tree, one.child) == " (1)");
  CHECK(job::line_text(tree, three.child) == " (3-..)");
  tree.expand(three.child);
  const job::TopEdge three_one = tree.node(three.child).edges[0];  // then pit 1: ends in pit 5
  REQUIRE_FALSE(three_one.extra_turn);
  const std::vector<job::TopEdge> line = tree.line_to(three_one.child);
  REQUIRE(line.size() == 2);
  CHECK(line[0].pit == 2);
  CHECK(line[1].pit == 0);
  CHECK(job::line_text(tree, three_one.child) == " (3-1)");
  tree.expand(three_one.child);
  CHECK(job::line_text(tree, tree.node(three_one.child).edges[5].child) == " (3-1 6)");
  CHECK(tree.line_to(tree.size()).empty());  // no such node
  CHECK(tree.line_to(-1).empty());
  // A board node 0 does not reach has no line.
  Board lone = tree.node(root).board;
  lone.cells[0] = 0;
  lone.cells[1] += 4;
  const int alone = tree.add(lone);
  CHECK(tree.line_to(alone).empty());
}

TEST_CASE("top tree: the line to a transposition is a shortest one", "[job]") {
  // Kalah(3,2) expanded three sowings deep has boards reached by lines of different lengths
  // (transpositions): each gets a line as short as breadth first search over the edges finds.
  const Rules rules;
  job::TopTree tree(3, rules);
  tree.add(Position::start(3, 2).board());
  for (int round = 0; round < 3; ++round)
    for (int id = tree.size() - 1; id >= 0; --id)
      if (!tree.node(id).expanded && !tree.node(id).terminal) tree.expand(id);
  std::vector<int> depth(tree.size(), -1);
  std::vector<int> queue{0};
  depth[0] = 0;
  for (std::size_t at = 0; at < queue.size(); ++at)
    for (const job::TopEdge& e : tree.node(queue[at]).edges)
      if (depth[e.child] < 0) {
        depth[e.child] = depth[queue[at]] + 1;
        queue.push_back(e.child);
      }
  int checked = 0;
  for (int id = 1; id < tree.size(); ++id) {
    if (depth[id] < 0) continue;
    const std::vector<job::TopEdge> line = tree.line_to(id);
    CHECK(static_cast<int>(line.size()) == depth[id]);
    // The line is a path of edges from the root to the node.
    int at = 0;
    for (const job::TopEdge& e : line) {
      const auto& edges = tree.node(at).edges;
      CHECK(std::any_of(edges.begin(), edges.end(), [&](const job::TopEdge& x) { return x.child == e.child; }));
      at = e.child;
    }
    CHECK(at == id);
    ++checked;
  }
  CHECK(checked > 20);
}

TEST_CASE("top tree: ties between most-proving leaves go to the best estimate, else the lowest pit", "[job]") {
  job::TopTree tree = start_expanded();
  const int root = 0;
  const std::vector<job::TopEdge> edges = tree.node(root).edges;
  // Every child a leaf: the proof numbers all tie.
  auto child_of_pit = [&](int pit) {
    for (const job::TopEdge& e : edges)
      if (e.pit == pit) return e.child;
    FAIL("no edge for pit " << pit);
    return -1;
  };
  SECTION("no estimate: the lowest pit") {
    const std::optional<job::Question> q = tree.select(root, 0);
    REQUIRE(q.has_value());
    CHECK(q->node == child_of_pit(0));
    const std::optional<job::Question> none = tree.select(root, 0, [](int) { return std::optional<int>(); });
    REQUIRE(none.has_value());
    CHECK(none->node == child_of_pit(0));
  }
  SECTION("the greatest value through the edge, by the child's estimate") {
    // Pit 2 ends on the opponent's side (no extra turn): a child estimated at -6 is worth
    // stored + 6 to the mover, more than any other edge's value through an estimate of 0.
    REQUIRE_FALSE(edges[2].extra_turn);
    const int best = child_of_pit(2);
    const std::optional<job::Question> q =
        tree.select(root, 0, [&](int id) { return std::optional<int>(id == best ? -6 : 0); });
    REQUIRE(q.has_value());
    CHECK(q->node == best);
    // The same child estimated to be good for its mover: the edge is the worst one now.
    const std::optional<job::Question> r =
        tree.select(root, 0, [&](int id) { return std::optional<int>(id == best ? 6 : 0); });
    REQUIRE(r.has_value());
    CHECK(r->node != best);
  }
  SECTION("an edge whose child has an estimate before one whose child has none") {
    const int known = child_of_pit(1);
    const std::optional<job::Question> q =
        tree.select(root, 0, [&](int id) { return id == known ? std::optional<int>(-4) : std::nullopt; });
    REQUIRE(q.has_value());
    CHECK(q->node == known);
  }
  SECTION("a busy leaf is passed over for the next best estimate") {
    // Through pit 2 (no extra turn, 1 banked): 1 + 6 = 7; through pit 1 (an extra turn, 1
    // banked): 1 + 4 = 5; through pit 0 (no extra turn, none banked): 0.
    const int best = child_of_pit(2), second = child_of_pit(1);
    REQUIRE(edges[1].extra_turn);
    auto estimate = [&](int id) { return std::optional<int>(id == best ? -6 : id == second ? 4 : 0); };
    CHECK(tree.select(root, 0, estimate)->node == best);
    tree.add_in_flight(best, 1);
    const std::optional<job::Question> q = tree.select(root, 0, estimate);
    REQUIRE(q.has_value());
    CHECK(q->node == second);
    tree.add_in_flight(best, -1);
  }
}

TEST_CASE("top tree: leaf numbers by moves count the replies a split will; estimates weight the unlikely side",
          "[job]") {
  job::TopTree tree = start_expanded();
  const int root = 0;
  const std::vector<job::TopEdge> edges = tree.node(root).edges;
  const job::TopEdge& sowing = edges[2];  // ends on the opponent's side: no extra turn
  REQUIRE_FALSE(sowing.extra_turn);
  const int child = sowing.child;
  auto moves_of = [&](int id) {
    int moves = 0;
    for (int pit = 0; pit < tree.pits(); ++pit) moves += tree.node(id).board.cells[static_cast<std::size_t>(pit)] != 0;
    return moves;
  };
  const int moves = moves_of(child);
  REQUIRE(moves > 1);
  bool negated = false;
  const job::Question q = job::TopTree::edge_question(sowing, 0, &negated);
  REQUIRE(negated);
  using job::LeafNumbers;
  // A leaf: 1 and 1 (Allis), or 1 to prove and its moves to disprove.
  CHECK(tree.numbers(child, q.gamma).proof == 1);
  CHECK(tree.numbers(child, q.gamma).disproof == 1);
  const job::TopTree::Numbers by_moves = tree.numbers(child, q.gamma, {}, LeafNumbers::kMoves);
  CHECK(by_moves.proof == 1);
  CHECK(by_moves.disproof == static_cast<std::uint64_t>(moves));
  // An estimate at or above the leaf's gamma calls the disproof unlikely; below, the proof.
  auto at = [&](int v) { return [=](int) { return std::optional<int>(v); }; };
  const job::TopTree::Numbers likely = tree.numbers(child, q.gamma, at(q.gamma), LeafNumbers::kEstimate);
  CHECK(likely.proof == 1);
  CHECK(likely.disproof == job::TopTree::kUnlikely * static_cast<std::uint64_t>(moves));
  const job::TopTree::Numbers unlikely = tree.numbers(child, q.gamma, at(q.gamma - 2), LeafNumbers::kEstimate);
  CHECK(unlikely.proof == job::TopTree::kUnlikely);
  CHECK(unlikely.disproof == static_cast<std::uint64_t>(moves));
  // No estimate: as by moves.
  const job::TopTree::Numbers none = tree.numbers(
      child, q.gamma, [](int) { return std::optional<int>(); }, LeafNumbers::kEstimate);
  CHECK(none.proof == by_moves.proof);
  CHECK(none.disproof == by_moves.disproof);
  // The root's proof through the sowing is the child's disproof. Expanded, the child's
  // disproof is the sum over its replies: by moves a reply that ends the turn counts 1 (its
  // proof: one good answer), so with no extra turns it stays at the child's moves; a reply
  // with an extra turn asks the same player again and counts that board's moves. With 1 and 1
  // every reply counts 1, so the sowing's proof number grows from 1 to the number of replies
  // and the walk leaves the sowing it just split.
  CHECK(tree.numbers(root, 0).proof == 1);
  tree.expand(child);
  std::uint64_t expected = 0;
  for (const job::TopEdge& e : tree.node(child).edges) {
    bool through_negated = false;
    const job::Question eq = job::TopTree::edge_question(e, q.gamma, &through_negated);
    REQUIRE(tree.decided(eq.node, eq.gamma) == 0);
    expected += e.extra_turn ? static_cast<std::uint64_t>(moves_of(e.child)) : 1;
  }
  CHECK(tree.numbers(child, q.gamma, {}, LeafNumbers::kMoves).disproof == expected);
  const auto& replies = tree.node(child).edges;
  if (std::none_of(replies.begin(), replies.end(), [](const job::TopEdge& e) { return e.extra_turn; }))
    CHECK(expected == static_cast<std::uint64_t>(moves));
  CHECK(tree.numbers(child, q.gamma).disproof == tree.node(child).edges.size());
}

TEST_CASE("top tree: the committed walk follows the best estimate, one move to prove, every move to refute", "[job]") {
  job::TopTree tree = start_expanded();
  const int root = 0;
  const std::vector<job::TopEdge> edges = tree.node(root).edges;
  // Through pit 2 (no extra turn, 1 banked): 1 + 6 = 7; through pit 1 (an extra turn, 1
  // banked): 1 + 4 = 5; through pit 0 (no extra turn, none banked): 0.
  REQUIRE_FALSE(edges[2].extra_turn);
  REQUIRE(edges[1].extra_turn);
  const int best = edges[2].child, second = edges[1].child, third = edges[0].child;
  auto estimate = [&](int id) { return std::optional<int>(id == best ? -6 : id == second ? 4 : 0); };
  SECTION("expected to hold: the best edge, and nothing else while its leaf is busy") {
    CHECK(tree.select_committed(root, 0, true, estimate)->node == best);
    tree.add_in_flight(best, 1);
    CHECK_FALSE(tree.select_committed(root, 0, true, estimate).has_value());
    // Proof numbers would start the next best meanwhile.
    CHECK(tree.select(root, 0, estimate)->node == second);
    // The leaf to split for an idle worker: the line's busy one.
    CHECK(tree.select_committed(root, 0, true, estimate, true)->node == best);
  }
  SECTION("expected to fail: every edge, the most dangerous first") {
    CHECK(tree.select_committed(root, 0, false, estimate)->node == best);
    tree.add_in_flight(best, 1);
    CHECK(tree.select_committed(root, 0, false, estimate)->node == second);
    tree.add_in_flight(second, 1);
    CHECK(tree.select_committed(root, 0, false, estimate)->node == third);
    tree.add_in_flight(third, 1);
    CHECK_FALSE(tree.select_committed(root, 0, false, estimate).has_value());
    CHECK(tree.select_committed(root, 0, false, estimate, true)->node == best);
  }
  SECTION("an edge decided false is passed over for the next") {
    // "v(root) >= g" through pit 2 is "v(best) >= 1 - g + 1" false: v(best) >= 2 - g.
    const int g = tree.node(root).lower + 2;
    bool negated = false;
    const job::Question q = job::TopTree::edge_question(edges[2], g, &negated);
    REQUIRE(negated);
    tree.tighten(best, q.gamma, tree.node(best).upper);  // the opponent reaches q.gamma
    REQUIRE(tree.decided(root, g) == 0);
    CHECK(tree.select_committed(root, g, true, estimate)->node == second);
  }
  SECTION("no estimate: by pit") { CHECK(tree.select_committed(root, 0, true)->node == third); }
  SECTION("through an extra turn the expectation holds: one move of the same player") {
    auto second_best = [&](int id) { return std::optional<int>(id == second ? 10 : 0); };
    tree.expand(second);
    REQUIRE(tree.node(second).edges.size() >= 2);
    const std::optional<job::Question> one = tree.select_committed(root, 0, true, second_best);
    REQUIRE(one.has_value());
    CHECK(tree.node(one->node).parents == std::vector<int>{second});
    tree.add_in_flight(one->node, 1);
    CHECK_FALSE(tree.select_committed(root, 0, true, second_best).has_value());
  }
  SECTION("down the line: the expectation flips with the mover") {
    // Split the best sowing: at its child the opponent is to move, and the root's test
    // expected to hold is the child's expected to fail, so all its replies are walked.
    tree.expand(best);
    std::vector<int> replies;
    bool negated = false;
    const job::Question q = job::TopTree::edge_question(edges[2], 0, &negated);
    for (const job::TopEdge& e : tree.node(best).edges) {
      bool through_negated = false;
      const job::Question eq = job::TopTree::edge_question(e, q.gamma, &through_negated);
      if (tree.decided(eq.node, eq.gamma) == 0 && !tree.node(eq.node).expanded) replies.push_back(e.child);
    }
    REQUIRE(replies.size() >= 2);
    // The root's order as before; every reply estimated alike.
    auto line = [&](int id) { return std::optional<int>(id == best ? -6 : 0); };
    std::vector<int> walked;
    for (;;) {
      const std::optional<job::Question> next = tree.select_committed(root, 0, true, line);
      if (!next) break;
      walked.push_back(next->node);
      tree.add_in_flight(next->node, 1);
    }
    std::vector<int> sorted_walk = walked;
    std::sort(sorted_walk.begin(), sorted_walk.end());
    std::sort(replies.begin(), replies.end());
    CHECK(sorted_walk == replies);
    // The same from the child's side: expected to hold there, one reply only.
    for (const int r : walked) tree.add_in_flight(r, -1);
    const std::optional<job::Question> one = tree.select_committed(best, q.gamma, true, line);
    REQUIRE(one.has_value());
    tree.add_in_flight(one->node, 1);
    CHECK_FALSE(tree.select_committed(best, q.gamma, true, line).has_value());
  }
}

TEST_CASE("a job run says what its workers are on while long units run", "[job]") {
  // Kalah(6,4)'s value takes the one worker seconds without a database; its unit's budget is
  // 10 minutes, so no unit answers for a while and a waiting line (every 6 log periods) names
  // the root's value unit and how far into its budget it is. The run stops at that line.
  ScratchDir dir("job");
  job::init_job(dir.path / "j", spec_of(Position::start(6, 4), Rules{}, false));
  job::LocalRun run = small_run(1, 600);
  std::atomic<bool> cancel{false};
  run.run.cancel = &cancel;
  run.run.log_seconds = 0.02;
  std::string waiting;
  run.run.log = [&](const std::string& line) {
    if (waiting.empty() && line.find("waiting on") != std::string::npos) {
      waiting = line;
      cancel = true;
    }
  };
  const job::RunSummary s = job::run_local_job(dir.path / "j", run);
  REQUIRE_FALSE(s.finished);
  INFO(waiting);
  CHECK(waiting.find("waiting on 1 unit(s): node 0 value ") != std::string::npos);
  CHECK(waiting.find(" of 600.0 s") != std::string::npos);
}

TEST_CASE("a job run's progress lines count the units under way after the workers are refilled", "[job]") {
  // Kalah(5,3) with units of 10 ms splits into many short units, so both workers are busy
  // most of the run. A line written as an answer came in said one unit fewer than the workers
  // held whenever both were busy (never "in flight 2" with two workers); after the refill it
  // says 2. The lines for answers (their unit count grew) are the ones checked: a line as a
  // test starts comes after a refill in either version. No line may say more units than
  // workers, and no line repeats the one before it (a test's first line is not written again
  // when the refill before it has just written one), the run's closing line aside.
  ScratchDir dir("job");
  job::init_job(dir.path / "j", spec_of(Position::start(5, 3), Rules{}));
  job::LocalRun run = small_run(2, 0.01);
  run.run.log_seconds = 0;
  std::vector<std::string> lines;
  run.run.log = [&](const std::string& line) {
    if (line.find("in flight ") != std::string::npos) lines.push_back(line);
  };
  const job::RunSummary s = job::run_local_job(dir.path / "j", run);
  REQUIRE(s.finished);
  REQUIRE(lines.size() > 2);
  int most = -1, most_at_answer = -1, repeated = 0;
  long long units = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const int in_flight = std::stoi(lines[i].substr(lines[i].find("in flight ") + 10));
    most = std::max(most, in_flight);
    if (job::units_in_line(lines[i]) > units) most_at_answer = std::max(most_at_answer, in_flight);
    units = std::max(units, job::units_in_line(lines[i]));
    if (i > 0 && i + 1 < lines.size() && lines[i] == lines[i - 1]) ++repeated;
  }
  CHECK(most == 2);
  CHECK(most_at_answer == 2);
  CHECK(repeated == 0);
}

TEST_CASE("a job run told a first test asks it of the position first, and still ends at the reference", "[job]") {
  // The claim "South minus North >= M" is the root's first test, not the guess; the progress
  // lines name the goal's test (the root's remainder value >= gamma).
  // Kalah(4,4) at the start, South to move: gamma is M. A middle position with North to move
  // (margin 1, 31 seeds: odd values): "1 - v >= 0" is the negation of "v >= 2", so gamma is
  // 2 rounded up to the parity, 3. Both take a search of about half a second, so the root's
  // own value unit (30 ms) does not answer first even when its budget clock starts late.
  const Rules rules;
  struct Case {
    Position p;
    int claim, gamma;
  };
  for (const auto& [c, selection] :
       {std::pair{Case{Position::start(4, 4), -4, -4}, job::Selection::kProofNumbers},
        std::pair{Case{Position::parse("4,4,4,0/5,5,5,4/1/0/N"), 0, 3}, job::Selection::kProofNumbers},
        std::pair{Case{Position::start(4, 4), -4, -4}, job::Selection::kCommit},
        std::pair{Case{Position::parse("4,4,4,0/5,5,5,4/1/0/N"), 0, 3}, job::Selection::kCommit}}) {
    INFO(c.p.to_text() << ", claim " << c.claim << (selection == job::Selection::kCommit ? ", committed line" : ""));
    bool seen = false;
    for (int attempt = 0; attempt < 10 && !seen; ++attempt) {
      ScratchDir dir("job");
      job::init_job(dir.path / "j", spec_of(c.p, rules));
      job::LocalRun run = small_run(2, 0.03);
      run.run.first_test = c.claim;
      run.run.selection = selection;
      run.run.log_seconds = 0;
      std::optional<int> first;
      run.run.log = [&](const std::string& line) {
        const auto testing = line.find("testing >= ");
        if (first || line.find("goal node 0 in ") == std::string::npos || testing == std::string::npos) return;
        first = std::stoi(line.substr(testing + 11));
      };
      const job::RunSummary s = job::run_local_job(dir.path / "j", run);
      REQUIRE(s.finished);
      CHECK(report_of(s) == solver_openings(c.p, rules));
      if (first) {
        seen = true;
        CHECK(*first == c.gamma);
      }
    }
    CHECK(seen);
  }
}

TEST_CASE("a run starts each open leaf at the budget its units reached in earlier runs", "[job]") {
  job::TopTree tree = start_expanded();
  const int root = 0;
  const std::vector<job::TopEdge> edges = tree.node(root).edges;
  const int a = edges[0].child, b = edges[1].child, c = edges[2].child;
  auto unit = [](int node, bool complete, double seconds) {
    job::UnitRecord u;
    u.node = node;
    u.test = true;
    u.complete = complete;
    u.seconds = seconds;
    return u;
  };
  const std::vector<job::UnitRecord> units{unit(a, false, 30.0), unit(a, false, 120.0), unit(b, true, 500.0),
                                           unit(c, false, 5.0), unit(root, false, 100.0)};
  const auto budgets = job::carried_budgets(units, tree, 30, 1920);
  CHECK(budgets.at(a) == 240.0);    // twice its longest unanswered unit
  CHECK(budgets.count(b) == 0);     // answered: nothing to carry
  CHECK(budgets.at(c) == 30.0);     // never less than the first budget
  CHECK(budgets.count(root) == 0);  // expanded: not a leaf
  CHECK(job::carried_budgets({unit(a, false, 5000.0)}, tree, 30, 1920).at(a) == 1920.0);  // at most the largest
  // A leaf expanded after a long unit: its children no unit has asked start at half that.
  const auto split = job::carried_budgets({unit(root, false, 1000.0), unit(b, true, 10.0)}, tree, 30, 1920);
  CHECK(split.at(a) == 500.0);
  CHECK(split.count(b) == 0);  // asked already: its own units decide
  CHECK(split.at(c) == 500.0);
  CHECK(job::carried_budgets({unit(root, false, 50.0)}, tree, 30, 1920).empty());  // half below the first budget
  CHECK(job::carried_budgets({unit(root, false, 9000.0)}, tree, 30, 1920).at(a) == 1920.0);
  tree.tighten(a, 0, 0);  // proven since: not an open leaf
  CHECK(job::carried_budgets(units, tree, 30, 1920).count(a) == 0);
}

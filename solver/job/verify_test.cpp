// kalah job verify: finished and unfinished jobs pass under every value rule set, with every
// unit solved again; stores tampered with in the ways a wrong proof would show (a unit's bounds
// changed, units lost, a node's bounds or the report changed, a lie propagated to the root)
// fail, naming what is wrong.
#include "testing/catch.hpp"

#include <atomic>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "solver/base/program_version.hpp"
#include "solver/db/directory_lock.hpp"
#include "solver/job/job.hpp"
#include "solver/job/job_testing.hpp"
#include "solver/job/proof.hpp"
#include "solver/job/verify.hpp"
#include "solver/reference/reference_solver.hpp"
#include "solver/sqlite/sqlite.hpp"
#include "testing/rule_sets.hpp"
#include "testing/scratch_dir.hpp"

using namespace kalah;
using kalah::job::spec_of;
using kalah::test::ScratchDir;

namespace {

// Units too short to finish, so the tree grows and tests decide it.
job::LocalRun small_run() { return job::small_run(2, 1e-4); }

api::SessionConfig checker() {
  api::SessionConfig c;
  c.table_bytes = std::uint64_t(16) << 20;
  c.threads = 1;
  return c;
}

job::VerifyOptions every_unit() {
  job::VerifyOptions o;
  o.all = true;
  o.seed = 7;
  return o;
}

// Runs SQL on the store of `dir`.
void tamper(const std::filesystem::path& dir, const std::string& sql) {
  sqlite::Connection c((dir / job::kStoreFile).string(), sqlite::Connection::Mode::read_write);
  c.exec(sql);
}

std::int64_t one_number(const std::filesystem::path& dir, const std::string& sql) {
  sqlite::Connection c((dir / job::kStoreFile).string(), sqlite::Connection::Mode::read_only);
  sqlite::Statement s = c.prepare(sql);
  REQUIRE(s.step());
  return s.int64(0);
}

}  // namespace

TEST_CASE("job verify: finished jobs pass, every unit confirmed, every value rule set", "[job][verify]") {
  for (const Rules& rules : test::all_value_rules()) {
    for (const bool openings : {true, false}) {
      INFO(rules.describe() << (openings ? ", openings" : ", value only"));
      ScratchDir dir("verify");
      const Position p = Position::start(4, 2);
      job::init_job(dir.path / "j", spec_of(p, rules, openings));
      REQUIRE(job::run_local_job(dir.path / "j", small_run()).finished);
      const job::VerifyReport r = job::verify_job(dir.path / "j", checker(), every_unit());
      CHECK(r.passed());
      CHECK(r.finished);
      CHECK(r.report_matches);
      CHECK(r.report_difference.empty());
      CHECK(r.findings.empty());
      CHECK(r.lower == r.upper);
      CHECK(r.units > 0);
      CHECK(r.units_with_bounds > 0);
      CHECK(r.checks.size() == r.units_with_bounds);
      CHECK(r.confirmed == static_cast<int>(r.checks.size()));
      CHECK(r.contradicted == 0);
      CHECK(r.unchecked == 0);
      CHECK_FALSE(r.interrupted);
      const api::Json j = job::to_json(r);
      CHECK(j["passed"] == true);
      CHECK(j["checks"].size() == r.checks.size());
    }
  }
}

TEST_CASE("job verify --proof: the units a proof rests on give every reported bound again, alone", "[job][verify]") {
  // Finished jobs (every value rule set, openings and value only) and a stopped one: the
  // proof's units, applied alone to the tree with no bounds, give the position's bounds and
  // every first sowing's and turn's, and each is confirmed when solved again.
  auto check = [](const std::filesystem::path& j) {
    job::VerifyOptions o;
    o.proof = true;
    const job::VerifyReport r = job::verify_job(j, checker(), o);
    CHECK(r.passed());
    CHECK(r.proof);
    CHECK(r.proof_units == r.checks.size());
    CHECK(r.proof_units <= r.units_with_bounds);
    CHECK(r.confirmed == static_cast<int>(r.checks.size()));
    job::JobStore store(j, false);
    const job::TopTree stored = store.load_tree();
    job::TopTree alone = stored.skeleton();
    for (const job::UnitCheck& c : r.checks) alone.tighten(c.unit.node, c.unit.lower, c.unit.upper);
    for (const int id : job::reported_nodes(stored, store.spec().openings)) {
      INFO("node " << id);
      CHECK(alone.node(id).lower == stored.node(id).lower);
      CHECK(alone.node(id).upper == stored.node(id).upper);
    }
    return r;
  };
  for (const Rules& rules : test::all_value_rules()) {
    for (const bool openings : {true, false}) {
      INFO(rules.describe() << (openings ? ", openings" : ", value only"));
      ScratchDir dir("verify");
      job::init_job(dir.path / "j", spec_of(Position::start(4, 2), rules, openings));
      REQUIRE(job::run_local_job(dir.path / "j", small_run()).finished);
      const job::VerifyReport r = check(dir.path / "j");
      CHECK(r.proof_units > 0);
      CHECK(job::to_json(r)["proof_units"] == r.proof_units);
    }
  }
  ScratchDir dir("verify");
  job::run_stopped(dir.path / "j", spec_of(Position::start(4, 3), Rules{}), small_run(), 6);
  check(dir.path / "j");
}

TEST_CASE("job verify: a job stopped part way passes, its bounds so far from the units", "[job][verify]") {
  ScratchDir dir("verify");
  const Position p = Position::start(4, 3);
  job::run_stopped(dir.path / "j", spec_of(p, Rules{}), small_run(), 6);
  const job::JobStatus st = job::job_status(dir.path / "j");
  const job::VerifyReport r = job::verify_job(dir.path / "j", checker(), every_unit());
  CHECK(r.passed());
  CHECK_FALSE(r.finished);
  CHECK(r.lower == st.lower);
  CHECK(r.upper == st.upper);
}

TEST_CASE("job verify: the sample is drawn by its seed, and a budget leaves units unchecked", "[job][verify]") {
  ScratchDir dir("verify");
  job::init_job(dir.path / "j", spec_of(Position::start(4, 3), Rules{}));
  REQUIRE(job::run_local_job(dir.path / "j", small_run()).finished);
  auto units_of = [](const job::VerifyReport& r) {
    std::set<std::int64_t> ids;
    for (const job::UnitCheck& c : r.checks) ids.insert(c.unit.id);
    return ids;
  };
  job::VerifyOptions o;
  o.sample = 3;
  o.seed = 11;
  const job::VerifyReport a = job::verify_job(dir.path / "j", checker(), o);
  const job::VerifyReport b = job::verify_job(dir.path / "j", checker(), o);
  REQUIRE(a.units_with_bounds > 6);
  CHECK(a.checks.size() == 3);
  CHECK(units_of(a) == units_of(b));
  o.seed = 12;
  std::set<std::set<std::int64_t>> samples{units_of(a)};
  for (int seed = 12; seed < 20; ++seed) {
    o.seed = static_cast<std::uint64_t>(seed);
    samples.insert(units_of(job::verify_job(dir.path / "j", checker(), o)));
  }
  CHECK(samples.size() > 1);
  // A budget too small to prove anything leaves units unchecked, which is not a failure.
  o.sample = 5;
  o.check_seconds = 1e-7;
  const job::VerifyReport tight = job::verify_job(dir.path / "j", checker(), o);
  CHECK(tight.passed());
  CHECK(tight.contradicted == 0);
  CHECK(tight.confirmed + tight.unchecked == 5);
  // Ctrl-C before the first check: nothing checked, reported as interrupted.
  const std::atomic<bool> stop{true};
  o.cancel = &stop;
  const job::VerifyReport stopped = job::verify_job(dir.path / "j", checker(), o);
  CHECK(stopped.interrupted);
  CHECK(stopped.checks.empty());
}

TEST_CASE("job verify: tampered stores fail, naming what is wrong", "[job][verify]") {
  ScratchDir dir("verify");
  const std::filesystem::path j = dir.path / "j";
  job::init_job(j, spec_of(Position::start(4, 3), Rules{}));  // value +6
  REQUIRE(job::run_local_job(j, small_run()).finished);
  REQUIRE(job::verify_job(j, checker(), every_unit()).passed());
  auto copy = [&](const std::string& name) {
    const std::filesystem::path c = dir.path / name;
    std::filesystem::create_directories(c);
    std::filesystem::copy_file(j / job::kStoreFile, c / job::kStoreFile);
    return c;
  };

  SECTION("a unit's bounds moved by 2: the units conflict, and solved again it is contradicted") {
    const std::filesystem::path c = copy("moved");
    // The last unit whose lower bound is its node's exact value (a value unit, or a test that
    // proved it: a run may finish without a complete value unit): moved up, it claims too much.
    const std::int64_t unit = one_number(c,
                                         "SELECT IFNULL(MAX(u.id), -1) FROM unit u JOIN node n ON n.id = u.node WHERE "
                                         "n.lower = n.upper AND u.lower = n.lower AND u.lower + 2 <= n.seeds");
    REQUIRE(unit > 0);
    tamper(c, "UPDATE unit SET lower = lower + 2, upper = MAX(upper, lower + 2) WHERE id = " + std::to_string(unit));
    const job::VerifyReport r = job::verify_job(c, checker(), every_unit());
    CHECK_FALSE(r.passed());
    CHECK(r.conflicts + r.unjustified > 0);
    CHECK(r.contradicted >= 1);
    bool named = false;
    for (const job::UnitCheck& k : r.checks)
      if (k.unit.id == unit) named = k.verdict == job::UnitCheck::Verdict::contradicted;
    CHECK(named);
  }
  SECTION("the units of a node lost: its stored bounds are unjustified") {
    const std::filesystem::path c = copy("lost");
    // A leaf (not terminal) whose exact value came from its units.
    const std::int64_t node =
        one_number(c,
                   "SELECT IFNULL(MIN(n.id), -1) FROM node n WHERE n.expanded = 0 AND n.lower = "
                   "n.upper AND EXISTS (SELECT 1 FROM unit u WHERE u.node = n.id) AND n.seeds > 0");
    REQUIRE(node > 0);
    tamper(c, "DELETE FROM unit WHERE node = " + std::to_string(node));
    const job::VerifyReport r = job::verify_job(c, checker(), every_unit());
    CHECK_FALSE(r.passed());
    CHECK(r.unjustified > 0);
    REQUIRE_FALSE(r.findings.empty());
    CHECK_THAT(r.findings.front(), Catch::Contains("the units prove only"));
  }
  SECTION("the stored report changed: it differs from the one the units give") {
    const std::filesystem::path c = copy("report");
    tamper(c, "UPDATE meta SET value = json_set(value, '$.pie_value', 99) WHERE key = 'report'");
    const job::VerifyReport r = job::verify_job(c, checker(), every_unit());
    CHECK_FALSE(r.passed());
    CHECK(r.finished);
    CHECK_FALSE(r.report_matches);
    CHECK_THAT(r.report_difference, Catch::Contains("pie_value"));
    CHECK(r.contradicted == 0);  // the units are right; the report is not
  }
  SECTION("a node's stored bounds widened: the store is behind its units") {
    const std::filesystem::path c = copy("behind");
    // A leaf whose lower bound one of its units proves. (Not "an exact leaf": a tree where every
    // exact leaf is terminal or at the lowest margin has none, and terminal boards' bounds are not
    // read from the store.)
    const std::int64_t node = one_number(c,
                                         "SELECT IFNULL(MIN(n.id), -1) FROM node n WHERE n.expanded = 0 AND "
                                         "n.lower > -n.seeds + 2 AND EXISTS (SELECT 1 FROM unit u WHERE "
                                         "u.node = n.id AND u.lower >= n.lower)");
    REQUIRE(node > 0);
    tamper(c, "UPDATE node SET lower = lower - 2 WHERE id = " + std::to_string(node));
    // load_tree takes the stored bounds (a wider one is valid); the units prove more.
    const job::VerifyReport r = job::verify_job(c, checker(), every_unit());
    CHECK(r.behind > 0);
    CHECK(r.unjustified == 0);
    CHECK_FALSE(r.passed());
  }
}

namespace {

// A lie one unit of `units` could tell about a node the tree leaves open: its bound on the side
// `above` (a lower bound above the value) or not (an upper bound below it) moved onto the value's
// far side, and the tree the runs would have built with it. Nothing when every such lie
// contradicts another unit (the propagation check finds those) or no node is open.
std::optional<std::pair<job::UnitRecord, job::TopTree>> forgery(const job::TopTree& stored,
                                                                const std::vector<job::UnitRecord>& units,
                                                                ReferenceSolver& reference, bool above) {
  for (const job::UnitRecord& u : units) {
    const job::TopNode& n = stored.node(u.node);
    if (n.expanded || n.terminal || n.lower == n.upper) continue;
    const int v = reference.value(n.board);
    if (above ? v == n.upper : v == n.lower) continue;
    job::UnitRecord f = u;
    f.lower = f.upper = above ? n.upper : n.lower;  // inside every other unit's claim
    job::TopTree t = stored.skeleton();
    try {
      for (const job::UnitRecord& w : units) {
        const job::UnitRecord& x = w.id == f.id ? f : w;
        t.tighten(x.node, x.lower, x.upper);
      }
    } catch (const std::logic_error&) {
      continue;
    }
    return std::make_pair(f, std::move(t));
  }
  return std::nullopt;
}

}  // namespace

TEST_CASE("job verify: a forgery consistent up to the root is found by solving the unit again", "[job][verify]") {
  // A run whose worker lied: one unit claims a bound its board's value breaks, and the store's
  // nodes are what the units give (the run propagated the lie). Only solving the unit again
  // can find it. Both sides: a claimed lower bound above the value, an upper one below it.
  ScratchDir dir("verify");
  const std::filesystem::path j = dir.path / "j";
  const Rules rules = Rules::preset("standard");
  ReferenceSolver reference(4, rules.value_rules());
  // A stopped run (no report: the units alone decide) with an open node to lie about on each
  // side; how far a run of 8 units gets depends on timing, so the job is made again until so.
  bool open_both_sides = false;
  for (int attempt = 0; attempt < 20 && !open_both_sides; ++attempt) {
    job::run_stopped(j, spec_of(Position::start(4, 3), rules), small_run(), 8);
    job::JobStore store(j, true);
    const job::TopTree stored = store.load_tree();
    const std::vector<job::UnitRecord> units = store.units(stored.size());
    open_both_sides = forgery(stored, units, reference, true) && forgery(stored, units, reference, false);
  }
  REQUIRE(open_both_sides);
  for (const bool above : {true, false}) {
    INFO((above ? "a lower bound above the value" : "an upper bound below it"));
    const std::filesystem::path c = dir.path / (above ? "above" : "below");
    std::filesystem::create_directories(c);
    std::filesystem::copy_file(j / job::kStoreFile, c / job::kStoreFile);
    job::JobStore store(c, true);
    const job::TopTree stored = store.load_tree();
    auto lie = forgery(stored, store.units(stored.size()), reference, above);
    REQUIRE(lie);
    const job::UnitRecord& forged = lie->first;
    std::vector<int> every(static_cast<std::size_t>(lie->second.size()));
    for (int id = 0; id < lie->second.size(); ++id) every[static_cast<std::size_t>(id)] = id;
    store.save(lie->second, every);
    tamper(c, "UPDATE unit SET lower = " + std::to_string(forged.lower) + ", upper = " + std::to_string(forged.upper) +
                  " WHERE id = " + std::to_string(forged.id));
    const job::VerifyReport r = job::verify_job(c, checker(), every_unit());
    CHECK(r.findings.empty());  // consistent all the way up
    CHECK(r.contradicted == 1);
    CHECK_FALSE(r.passed());
    bool found = false;
    for (const job::UnitCheck& k : r.checks)
      if (k.unit.id == forged.id) found = k.verdict == job::UnitCheck::Verdict::contradicted;
    CHECK(found);
  }
}

TEST_CASE("job verify --record: checks are kept in the store, a later verify goes on from them", "[job][verify]") {
  ScratchDir dir("verify");
  const std::filesystem::path j = dir.path / "j";
  job::init_job(j, spec_of(Position::start(4, 3), Rules{}));
  REQUIRE(job::run_local_job(j, small_run()).finished);
  job::VerifyOptions o;
  o.proof = true;
  o.record = true;

  SECTION("recorded, then skipped; status counts them") {
    CHECK(job::job_status(j).checked.empty());
    const job::VerifyReport first = job::verify_job(j, checker(), o);
    REQUIRE(first.passed());
    REQUIRE(first.proof_units > 0);
    CHECK(first.recorded == 0);
    CHECK(first.confirmed == static_cast<int>(first.proof_units));
    CHECK(one_number(j, "SELECT COUNT(*) FROM unit_check") == static_cast<std::int64_t>(first.proof_units));
    CHECK(one_number(j, "PRAGMA user_version") == job::kStoreVersion);
    const job::JobStatus st = job::job_status(j);
    CHECK(st.checked.size() == first.proof_units);
    CHECK(st.checked_count("confirmed") == static_cast<int>(first.proof_units));
    CHECK(job::to_json(st)["checks"]["confirmed"] == first.proof_units);
    // Again: every unit decided by its recorded check, nothing solved, nothing recorded.
    const job::VerifyReport second = job::verify_job(j, checker(), o);
    CHECK(second.passed());
    CHECK(second.recorded == static_cast<int>(first.proof_units));
    CHECK(second.confirmed == first.confirmed);
    for (const job::UnitCheck& c : second.checks) {
      CHECK(c.recorded);
      CHECK(c.tries == 0);
    }
    CHECK(one_number(j, "SELECT COUNT(*) FROM unit_check") == static_cast<std::int64_t>(first.proof_units));
    // Without --record the recorded checks are not used: every unit is solved again.
    job::VerifyOptions fresh = o;
    fresh.record = false;
    const job::VerifyReport third = job::verify_job(j, checker(), fresh);
    CHECK(third.recorded == 0);
    CHECK(third.confirmed == first.confirmed);
  }

  SECTION("a store replaced under it (git checkout): the next record refused, what it wrote saved") {
    const std::filesystem::path store = j / job::kStoreFile, committed = dir.path / "committed.sqlite";
    std::filesystem::copy_file(store, committed);
    int logged = 0;
    o.log = [&](const std::string&) {
      if (logged++ == 0) std::filesystem::rename(committed, store);  // after the first record
    };
    CHECK_THROWS_WITH(job::verify_job(j, checker(), o), Catch::Contains("replaced while this process held it"));
    CHECK(one_number(j, "SELECT COUNT(*) FROM unit_check") == 0);  // the committed file, untouched
    const std::filesystem::path orphan = j / (std::string(job::kStoreFile) + ".orphan-" + std::to_string(::getpid()));
    std::filesystem::rename(orphan, store);
    CHECK(one_number(j, "SELECT COUNT(*) FROM unit_check") == 1);
  }

  SECTION("a recorded contradiction stands and fails the verify") {
    REQUIRE(job::verify_job(j, checker(), o).passed());
    // As a check with a wrong database might record it: an upper claim found too low.
    tamper(j,
           "UPDATE unit_check SET found_lower = claimed_upper + 2, found_upper = claimed_upper + 2, verdict = "
           "'contradicted' WHERE id = (SELECT MIN(c.id) FROM unit_check c JOIN unit u ON u.id = c.unit JOIN node n ON "
           "n.id = u.node WHERE c.claimed_upper + 2 <= n.seeds)");
    const job::VerifyReport r = job::verify_job(j, checker(), o);
    CHECK(r.contradicted == 1);
    CHECK_FALSE(r.passed());
    CHECK(job::job_status(j).checked_count("contradicted") == 1);
  }

  SECTION("damaged records are refused, naming the check") {
    REQUIRE(job::verify_job(j, checker(), o).passed());
    SECTION("claims that are not the unit's") {
      tamper(j, "UPDATE unit_check SET claimed_lower = claimed_lower - 2 WHERE id = 1");
      CHECK_THROWS_WITH(job::verify_job(j, checker(), o),
                        Catch::Contains("check 1 of unit") && Catch::Contains("its claims are not the unit's"));
    }
    SECTION("an unknown verdict") {
      tamper(j, "UPDATE unit_check SET verdict = 'maybe' WHERE id = 1");
      CHECK_THROWS_WITH(job::job_status(j), Catch::Contains("check 1: an unknown verdict"));
    }
    SECTION("bounds found beyond the seeds") {
      tamper(j, "UPDATE unit_check SET found_lower = 99, found_upper = 99 WHERE id = 1");
      CHECK_THROWS_WITH(
          job::verify_job(j, checker(), o),
          Catch::Contains("check 1 of unit") && Catch::Contains("bounds found that the seeds do not allow"));
    }
    SECTION("a verdict the bounds do not give, seen by status too") {
      tamper(j, "UPDATE unit_check SET verdict = 'unchecked' WHERE id = 1");
      CHECK_THROWS_WITH(job::verify_job(j, checker(), o), Catch::Contains("a verdict its bounds do not give"));
      CHECK_THROWS_WITH(job::job_status(j), Catch::Contains("a verdict its bounds do not give"));
    }
    SECTION("claims that are not the unit's, seen by status too") {
      tamper(j, "UPDATE unit_check SET claimed_upper = claimed_upper + 2 WHERE id = 1");
      CHECK_THROWS_WITH(job::job_status(j), Catch::Contains("its claims are not the unit's"));
    }
    SECTION("a missing unit") {
      tamper(j, "UPDATE unit_check SET unit = 100000 WHERE id = 1");
      CHECK_THROWS_WITH(job::verify_job(j, checker(), o), Catch::Contains("check 1: a check of a missing unit"));
    }
  }

  SECTION("over budget: tried again at twice the budget after the others, then later from twice the last") {
    job::VerifyOptions tight = o;
    tight.check_seconds = 1e-7;
    tight.max_check_seconds = 3e-7;  // not a power of two times the first: the last try at the limit
    const job::VerifyReport r = job::verify_job(j, checker(), tight);
    CHECK(r.passed());
    CHECK(r.confirmed + r.unchecked == static_cast<int>(r.proof_units));
    // Each unit's tries in the store: budgets 1, 2, 3 (x 1e-7 s) until one is confirmed.
    std::map<std::int64_t, std::vector<std::pair<double, std::string>>> tries;
    sqlite::Connection c((j / job::kStoreFile).string(), sqlite::Connection::Mode::read_only);
    for (sqlite::Statement s = c.prepare("SELECT unit, budget, verdict FROM unit_check ORDER BY id"); s.step();)
      tries[s.int64(0)].emplace_back(s.real(1), s.text(2));
    CHECK(tries.size() == r.proof_units);
    for (const auto& [unit, t] : tries) {
      INFO("unit " << unit);
      REQUIRE(!t.empty());
      CHECK(t.size() <= 3);
      for (std::size_t i = 0; i < t.size(); ++i) {
        CHECK(t[i].first == std::min(1e-7 * double(1 << i), 3e-7));  // doubling is exact
        CHECK(t[i].second == (i + 1 < t.size() ? "unchecked" : t[i].second));
      }
      CHECK((t.back().second == "confirmed" || (t.size() == 3 && t.back().second == "unchecked")));
    }
    // A later verify without a limit starts them at its first budget again; one with a limit
    // at twice their largest budget (at most the limit); one with no budget confirms every one.
    job::VerifyOptions again = o;
    again.check_seconds = 1e-7;
    for (const job::UnitCheck& k : job::verify_job(j, checker(), again).checks)
      if (!k.recorded) CHECK(k.budget == 1e-7);
    job::VerifyOptions later = o;
    later.check_seconds = 1e-7;
    later.max_check_seconds = 1e-6;
    const job::VerifyReport l = job::verify_job(j, checker(), later);
    for (const job::UnitCheck& k : l.checks)
      if (!k.recorded) CHECK(k.budget >= 8e-7 - 1e-12);
    const job::VerifyReport all = job::verify_job(j, checker(), o);
    CHECK(all.confirmed == static_cast<int>(all.proof_units));
    CHECK(all.unchecked == 0);
  }

  SECTION("Ctrl-C: the checks done are recorded, the next verify goes on from them") {
    std::atomic<bool> stop{false};
    job::VerifyOptions stopped = o;
    stopped.cancel = &stop;
    stopped.log = [&](const std::string&) { stop = true; };  // after the first check
    const job::VerifyReport r = job::verify_job(j, checker(), stopped);
    CHECK(r.interrupted);
    REQUIRE(r.checks.size() == 1);
    CHECK(one_number(j, "SELECT COUNT(*) FROM unit_check") == 1);
    const job::VerifyReport rest = job::verify_job(j, checker(), o);
    CHECK(rest.recorded == 1);
    CHECK(rest.confirmed == static_cast<int>(rest.proof_units));
    CHECK(one_number(j, "SELECT COUNT(*) FROM unit_check") == static_cast<std::int64_t>(rest.proof_units));
  }

  SECTION("refused while a run holds the directory, and a run refused while it does") {
    {
      const DirectoryLock verifying(j, "kalah job verify --record");
      CHECK_THROWS_WITH(job::run_local_job(j, small_run()),
                        Catch::Contains("kalah job verify --record is running in this directory") &&
                            Catch::Contains("run this kalah job run again"));
      const job::JobStatus st = job::job_status(j);
      CHECK(st.running);
      CHECK(st.holder == "kalah job verify --record");
    }
    {
      const DirectoryLock run(j, "kalah job run");
      CHECK_THROWS_WITH(job::verify_job(j, checker(), o),
                        Catch::Contains("kalah job run is running in this directory") &&
                            Catch::Contains("run this kalah job verify --record again"));
      job::VerifyOptions plain = o;
      plain.record = false;
      CHECK(job::verify_job(j, checker(), plain).passed());  // reading alone is fine
    }
  }

  SECTION("stores of version 1 and 2 gain the table when a verify records") {
    tamper(j, "ALTER TABLE run DROP COLUMN program; DROP TABLE unit_check; PRAGMA user_version = 2");
    CHECK(job::job_status(j).checked.empty());
    REQUIRE(job::verify_job(j, checker(), o).passed());
    CHECK(one_number(j, "PRAGMA user_version") == job::kStoreVersion);
    CHECK(job::job_status(j).checked_count("confirmed") > 0);
    tamper(j,
           "ALTER TABLE run DROP COLUMN in_flight; ALTER TABLE run DROP COLUMN program; DROP TABLE unit_check; "
           "PRAGMA user_version = 1");
    CHECK(job::job_status(j).checked.empty());
    REQUIRE(job::verify_job(j, checker(), o).passed());
    CHECK(one_number(j, "PRAGMA user_version") == job::kStoreVersion);
    CHECK(one_number(j, "SELECT COUNT(*) FROM pragma_table_info('run') WHERE name = 'in_flight'") == 1);
    CHECK(one_number(j, "SELECT COUNT(*) FROM pragma_table_info('run') WHERE name = 'program'") == 1);
  }

  SECTION("each check records the program that made it; a version-3 store's checks read as not recorded") {
    REQUIRE(job::verify_job(j, checker(), o).passed());
    const int made = job::job_status(j).check_records;
    REQUIRE(made > 0);
    CHECK(job::job_status(j).check_programs == std::map<std::string, int>{{program_version(), made}});
    // Back to version 3, one unit's checks forgotten, so that the next verify checks it again.
    tamper(j,
           "DELETE FROM unit_check WHERE unit = (SELECT MIN(unit) FROM unit_check); "
           "ALTER TABLE unit_check DROP COLUMN program; ALTER TABLE run DROP COLUMN program; "
           "PRAGMA user_version = 3");
    const int kept = job::job_status(j).check_records;
    REQUIRE(kept < made);
    CHECK(job::job_status(j).check_programs == std::map<std::string, int>{{"", kept}});
    REQUIRE(job::verify_job(j, checker(), o).passed());  // upgrades, then records that unit's checks
    CHECK(one_number(j, "PRAGMA user_version") == job::kStoreVersion);
    const job::JobStatus st = job::job_status(j);
    REQUIRE(st.check_records > kept);
    CHECK(st.check_programs == std::map<std::string, int>{{"", kept}, {program_version(), st.check_records - kept}});
    CHECK(job::to_json(st)["checks"]["programs"]["not recorded"] == kept);
  }
}

TEST_CASE("job verify: of a unit's records, a contradiction stands over a confirmation over the largest unchecked",
          "[job][verify]") {
  auto record = [](std::int64_t unit, const char* verdict, double budget) {
    job::CheckRecord c;
    c.unit = unit;
    c.verdict = verdict;
    c.budget = budget;
    return c;
  };
  const std::vector<job::CheckRecord> records{
      record(1, "unchecked", 120),   record(1, "confirmed", 240), record(1, "unchecked", 480),
      record(2, "contradicted", 60), record(2, "confirmed", 120), record(3, "unchecked", 240),
      record(3, "unchecked", 960),   record(3, "unchecked", 480), record(4, "confirmed", 0)};
  const auto standing = job::standing_checks(records);
  REQUIRE(standing.size() == 4);
  CHECK(standing.at(1) == &records[1]);
  CHECK(standing.at(2) == &records[3]);
  CHECK(standing.at(3) == &records[6]);
  CHECK(standing.at(4) == &records[8]);
}

#include "solver/job/job.hpp"

#include <unistd.h>

#include <algorithm>
#include <functional>
#include <set>

#include "solver/db/directory_lock.hpp"
#include "solver/job/verify.hpp"

namespace kalah::job {

namespace fs = std::filesystem;

namespace {

int pit_seeds(const Position& p) { return p.pit_seeds(Side::South) + p.pit_seeds(Side::North); }

}  // namespace

std::pair<int, int> margins(const Position& p, int lower, int upper) {
  const bool south = p.to_move == Side::South;
  return {p.margin() + (south ? lower : -upper), p.margin() + (south ? upper : -lower)};
}

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "?";
  return buf;
}

void init_job(const fs::path& dir, const JobSpec& spec) {
  if (spec.position.pits != spec.pits)
    throw api::ConfigError("the position has " + std::to_string(spec.position.pits) + " pits a side, the job " +
                           std::to_string(spec.pits));
  JobStore::create(dir, spec);
}

RunSummary run_local_job(const fs::path& dir, LocalRun config) {
  if (config.workers < 1 || config.workers > 1024) throw api::ConfigError("--workers must be between 1 and 1024");
  { JobStore probe(dir, false); }  // a missing, foreign or damaged store is refused before the lock is made
  const DirectoryLock lock(dir, "kalah job run", 2.0);
  JobStore store(dir, true);
  const JobSpec& spec = store.spec();
  api::SessionConfig c = config.session;
  c.pits = spec.pits;
  c.rules = spec.rules;
  c.max_seeds = pit_seeds(spec.position);
  std::vector<std::unique_ptr<Worker>> workers;
  api::open_worker_sessions(c, config.workers, config.share_table, [&](const api::SessionConfig& s) -> api::Session& {
    const std::string name = "local-" + std::to_string(workers.size() + 1);
    workers.push_back(std::make_unique<Worker>(s, name));
    return workers.back()->session();
  });
  api::Session& s0 = workers.front()->session();
  RunOptions run = config.run;
  run.database_seeds = s0.database_seeds();
  std::atomic<bool> stop{false};
  run.stop = &stop;
  run.info.workers = config.workers;
  run.info.threads = s0.solver().threads();
  run.info.database = c.database_dir;
  run.info.host = host_name();
  LocalPool pool(std::move(workers), &stop, s0.solver().threads());
  return run_job(store, pool, run);
}

FirstTurns first_turns(const TopTree& tree, const Position& p) {
  FirstTurns out;
  std::vector<int> pits;
  // `banked`: the seeds the turn's sowings so far put in the mover's store.
  const std::function<void(int, int, int)> walk = [&](int id, int banked, int depth) {
    for (const TopEdge& e : tree.node(id).edges) {
      pits.push_back(e.pit);
      const TopNode& c = tree.node(e.child);
      const auto [through_lo, through_hi] = tree.bounds_through(e);
      FirstTurn t;
      t.pits = pits;
      t.node = e.child;
      t.extra_turn = e.extra_turn;
      std::tie(t.lower, t.upper) = margins(p, banked + through_lo, banked + through_hi);
      if (depth == 0) out.sowings.push_back(t);
      if (e.extra_turn && c.expanded && !c.terminal) {
        walk(e.child, banked + e.stored, depth + 1);
      } else {
        t.complete_turn = !e.extra_turn || c.terminal;
        out.turns.push_back(t);
      }
      pits.pop_back();
    }
  };
  walk(0, 0, 0);
  return out;
}

JobStatus job_status(const fs::path& dir) {
  JobStatus st;
  st.dir = dir;
  st.running = DirectoryLock::held_elsewhere(dir);
  if (st.running) st.holder = DirectoryLock::holder_activity(dir);
  JobStore store(dir, false);
  st.spec = store.spec();
  st.seeds = pit_seeds(st.spec.position);
  store.begin_snapshot();  // the tree, the units and the report as of one commit of a running job
  TopTree tree = store.load_tree();
  const Position& p = st.spec.position;
  const TopNode& root = tree.node(0);
  std::tie(st.lower, st.upper) = margins(p, root.lower, root.upper);
  for (int id = 0; id < tree.size(); ++id) {
    ++st.tree_nodes;
    if (tree.node(id).expanded) ++st.expanded;
    if (tree.node(id).exact()) ++st.exact;
  }
  // The work below each row: every unit counted at its node, summed over the subtree.
  std::vector<BoundsRow> at_node(static_cast<std::size_t>(tree.size()));
  const std::vector<UnitRecord> units = store.units(tree.size());
  for (const UnitRecord& u : units) {
    BoundsRow& w = at_node[static_cast<std::size_t>(u.node)];
    ++w.units;
    w.answered += u.complete ? 1 : 0;
    w.nodes += u.nodes;
    w.seconds += u.seconds;
  }
  const auto add_work_below = [&](int top, BoundsRow& row) {
    std::vector<char> seen(static_cast<std::size_t>(tree.size()), 0);
    std::vector<int> stack{top};
    seen[static_cast<std::size_t>(top)] = 1;
    while (!stack.empty()) {
      const int id = stack.back();
      stack.pop_back();
      const BoundsRow& w = at_node[static_cast<std::size_t>(id)];
      row.units += w.units;
      row.answered += w.answered;
      row.nodes += w.nodes;
      row.seconds += w.seconds;
      for (const TopEdge& e : tree.node(id).edges)
        if (!seen[static_cast<std::size_t>(e.child)]) {
          seen[static_cast<std::size_t>(e.child)] = 1;
          stack.push_back(e.child);
        }
    }
  };
  const FirstTurns ft = first_turns(tree, p);
  const auto row_of = [&](const FirstTurn& t) {
    BoundsRow row;
    static_cast<FirstTurn&>(row) = t;
    add_work_below(t.node, row);
    return row;
  };
  for (const FirstTurn& t : ft.sowings) st.sowings.push_back(row_of(t));
  for (const FirstTurn& t : ft.turns) st.turns.push_back(row_of(t));
  // Goals: the root and, for the openings, every board reached by a first sowing and, through
  // extra turns, by a complete first turn.
  std::set<int> goal_nodes{0};
  const std::function<void(int)> chains = [&](int id) {
    for (const TopEdge& e : tree.node(id).edges) {
      goal_nodes.insert(e.child);
      if (e.extra_turn) chains(e.child);
    }
  };
  if (st.spec.openings) chains(0);
  // Below every goal: an openings job's root is often exact long before its first turns.
  st.open_leaves = tree.open_leaves_below(std::vector<int>(goal_nodes.begin(), goal_nodes.end()));
  for (const int g : goal_nodes) {
    ++st.goals;
    if (tree.node(g).exact()) ++st.goals_exact;
  }
  st.totals = store.totals();
  st.report_json = store.report();
  const std::vector<CheckRecord> records = recorded_checks(store, tree, units);
  st.check_records = static_cast<int>(records.size());
  for (const CheckRecord& c : records) ++st.check_programs[c.program];
  st.runs = store.runs();
  for (const auto& [unit, rec] : standing_checks(records)) st.checked.emplace(unit, rec->verdict);
  store.end_snapshot();
  st.last_workers = std::max(1, st.totals.last_workers);
  const double mean = st.totals.units ? st.totals.unit_seconds / static_cast<double>(st.totals.units) : 0;
  st.estimate_seconds = static_cast<double>(st.open_leaves) * mean / st.last_workers;
  return st;
}

int JobStatus::checked_count(const std::string& verdict) const {
  return static_cast<int>(
      std::count_if(checked.begin(), checked.end(), [&](const auto& c) { return c.second == verdict; }));
}

api::Json to_json(const JobStatus& s) {
  using api::Json;
  Json j;
  j["dir"] = s.dir.string();
  j["pits"] = s.spec.pits;
  j["seeds"] = s.seeds;
  j["position"] = s.spec.position.to_text();
  j["rules"] = api::rules_json(s.spec.rules);
  j["openings"] = s.spec.openings;
  j["lower"] = s.lower;
  j["upper"] = s.upper;
  j["value"] = s.lower == s.upper ? Json(s.lower) : Json(nullptr);
  j["finished"] = s.report_json.has_value();
  j["running"] = s.running;
  j["holder"] = s.running && !s.holder.empty() ? api::Json(s.holder) : api::Json(nullptr);
  auto rows = [](const std::vector<BoundsRow>& v) {
    Json a = Json::array();
    for (const BoundsRow& r : v) {
      Json o;
      o["pits"] = api::pits_json(r.pits);
      o["lower"] = r.lower;
      o["upper"] = r.upper;
      o["value"] = r.lower == r.upper ? Json(r.lower) : Json(nullptr);
      o["complete_turn"] = r.complete_turn;
      o["work"] = Json{{"units", r.units}, {"answered", r.answered}, {"nodes", r.nodes}, {"worker_seconds", r.seconds}};
      a.push_back(o);
    }
    return a;
  };
  j["sowings"] = rows(s.sowings);
  j["turns"] = rows(s.turns);
  j["tree"] =
      Json{{"nodes", s.tree_nodes}, {"expanded", s.expanded}, {"exact", s.exact}, {"open_leaves", s.open_leaves}};
  j["checks"] = Json{{"records", s.check_records},
                     {"units", s.checked.size()},
                     {"confirmed", s.checked_count("confirmed")},
                     {"contradicted", s.checked_count("contradicted")},
                     {"unchecked", s.checked_count("unchecked")}};
  Json programs = Json::object();
  for (const auto& [program, n] : s.check_programs) programs[program.empty() ? "not recorded" : program] = n;
  j["checks"]["programs"] = programs;
  Json runs = Json::array();
  for (const RunRecord& r : s.runs)
    runs.push_back(Json{{"id", r.id},
                        {"started", r.started},
                        {"ended", r.ended},
                        {"workers", r.workers},
                        {"threads", r.threads},
                        {"database", r.database.empty() ? Json(nullptr) : Json(r.database)},
                        {"host", r.host.empty() ? Json(nullptr) : Json(r.host)},
                        {"outcome", r.outcome.empty() ? Json(nullptr) : Json(r.outcome)},
                        {"program", r.program.empty() ? Json(nullptr) : Json(r.program)}});
  j["runs"] = runs;
  j["goals"] = Json{{"total", s.goals}, {"exact", s.goals_exact}};
  const double hours = s.totals.run_seconds / 3600;
  j["units"] = Json{{"done", s.totals.units},
                    {"in_flight", s.running ? s.totals.last_in_flight : 0},
                    {"answered", s.totals.complete_units},
                    {"nodes", s.totals.nodes},
                    {"worker_seconds", s.totals.unit_seconds},
                    {"runs", s.totals.runs},
                    {"run_seconds", s.totals.run_seconds},
                    {"units_per_hour", hours > 0 ? static_cast<double>(s.totals.units) / hours : 0.0},
                    {"nodes_per_second",
                     s.totals.unit_seconds > 0 ? static_cast<double>(s.totals.nodes) / s.totals.unit_seconds : 0.0}};
  j["estimate"] = Json{{"seconds_left", s.report_json ? 0.0 : s.estimate_seconds},
                       {"method",
                        "open leaves below the goals x the mean unit's seconds / the last run's workers "
                        "(a rough guide: a test needs only some leaves, an expanded leaf many units)"}};
  j["report"] = s.report_json ? Json::parse(*s.report_json) : Json(nullptr);
  return j;
}

}  // namespace kalah::job

#include "solver/job/front_end.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include "solver/api/report_json.hpp"
#include "solver/api/reports.hpp"
#include "solver/api/session.hpp"
#include "solver/base/value_bounds.hpp"
#include "solver/search/solver.hpp"

namespace kalah::job {

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

class FrontEnd {
 public:
  FrontEnd(JobStore& store, WorkerPool& pool, const RunOptions& options)
      : store_(store), pool_(pool), options_(options), tree_(store.load_tree()), t0_(Clock::now()) {
    for (const int id : store.nodes_asked_value()) asked_value_.insert(id);
    budget_ = carried_budgets(store.units(tree_.size()), tree_, options.unit_seconds, max_budget());
    if (options.estimate_nodes > 0) {
      // A session of its own, without a database, for the estimates: the selection is the
      // same whatever the workers are (threads here or MPI ranks) and whatever they loaded.
      const JobSpec& spec = store.spec();
      api::SessionConfig c;
      c.pits = spec.pits;
      c.rules = spec.rules;
      c.max_seeds = spec.position.pit_seeds(Side::South) + spec.position.pit_seeds(Side::North);
      // The estimate does not use the table, but a Solver needs one with room for exact keys
      // (mapped, never touched: it costs no memory).
      c.table_bytes =
          std::max<std::uint64_t>(std::uint64_t(1) << 20, search::Solver::min_table_bytes(spec.pits, c.max_seeds));
      c.threads = 1;
      estimator_ = std::make_unique<api::Session>(std::move(c));
    }
  }

  FrontEnd(const FrontEnd&) = delete;  // the expectations hold `this`
  FrontEnd& operator=(const FrontEnd&) = delete;
  RunSummary run();

 private:
  struct InFlight {
    int node;
    bool test;
    int gamma;
    double budget;
    Clock::time_point started;
  };
  // MTD(f) state of one goal: galloping from the guess, then bisection.
  struct Gallop {
    int step_up = 2, step_down = 2;
    bool saw_true = false, saw_false = false;
    std::optional<int> last;
  };

  void main_loop();
  int exact_value(const Board& b);
  int next_gamma(int id, Gallop& g);
  void decide(int id, int gamma);
  void dispatch(int id, int gamma);
  void submit(int node, bool test, int gamma);
  bool split_busy_leaf(int id, int gamma);
  void apply(const UnitOutcome& out);
  void check_stop(int id);
  void note_stop_request();
  void request_stop(const std::string& reason);
  UnitOutcome next_outcome();
  void drain();
  void abandon();
  std::vector<char> under_goal() const;
  void log_progress(bool force);
  void log_waiting();
  void save(std::vector<int> touched, const UnitRecord* unit = nullptr);
  int add_node(const Board& b);
  std::optional<int> expected(int id);
  int first_guess(int id);
  // The estimator's value of node id with `nodes`, memoized in `memo`.
  int memo_estimate(std::unordered_map<int, int>& memo, int id, std::uint64_t nodes);
  // The first test of goal id: the claim (--test) at the position, else the guess, else the
  // estimate (16 x --estimate-nodes when `thorough`, else the leaves' quick one).
  int first_gamma(int id, bool thorough);
  // Whether "v(id) >= gamma" is expected to hold: the claim (--test) does, another test as
  // the node's thorough estimate says (true without estimates).
  bool expects_true(int id, int gamma);
  void expand_first_turns(int id);
  bool start_pending_goal();

  JobStore& store_;
  WorkerPool& pool_;
  const RunOptions& options_;
  TopTree tree_;
  Clock::time_point t0_, last_log_ = Clock::now();
  int run_ = 0;
  std::uint64_t next_unit_ = 1;
  std::map<std::uint64_t, InFlight> in_flight_;
  bool stopping_ = false;
  bool answered_since_log_ = false;  // a unit answered since the last progress line
  std::string stop_reason_;
  RunSummary summary_;
  double front_seconds_ = 0;
  int goal_ = 0, goal_gamma_ = 0;
  bool goal_testing_ = false;       // goal_gamma_ is a test of the goal (not one of the goal before)
  std::set<int> asked_value_;       // nodes a value unit has been sent for (this run or before)
  std::vector<int> pending_goals_;  // boards the report will ask about, in its order
  // Per leaf (this run): the budget of its next unit when not the first, and the worker slot
  // whose table holds work on it.
  std::unordered_map<int, double> budget_;
  std::unordered_map<int, int> slot_;
  std::unique_ptr<api::Session> estimator_;  // none with options_.estimate_nodes == 0
  std::unordered_map<int, int> estimates_, goal_estimates_;
  TopTree::Expectation expectation_ = [this](int id) { return expected(id); };
  // The committed line's order: the quick estimate alone. A value unit's guess arriving in
  // the middle of a test (a pending goal's, say) would otherwise move the line off the edge
  // it had committed to; the estimate of a board never changes (nor between runs).
  TopTree::Expectation line_expectation_ = [this](int id) -> std::optional<int> {
    if (!estimator_) return std::nullopt;
    return memo_estimate(estimates_, id, estimate_nodes());
  };
  // An estimate costs at most about a fiftieth of a unit's first budget (some 50000 nodes a
  // second of it): on small games with short units the estimates would otherwise be most of
  // the front end's time (Kalah(6,3) with 0.05-s units: 2.5 s of a 6-s job).
  std::uint64_t estimate_nodes() const {
    const double affordable = std::max(1000.0, options_.unit_seconds * 50000);
    return std::min<std::uint64_t>(options_.estimate_nodes, static_cast<std::uint64_t>(affordable));
  }
  double max_budget() const {
    return options_.max_unit_seconds > 0 ? std::max(options_.max_unit_seconds, options_.unit_seconds)
                                         : 64 * options_.unit_seconds;
  }
};

void FrontEnd::save(std::vector<int> touched, const UnitRecord* unit) {
  std::sort(touched.begin(), touched.end());
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  store_.save(tree_, touched, unit, run_, static_cast<int>(in_flight_.size()));
}

int FrontEnd::add_node(const Board& b) {
  bool created = false;
  const int id = tree_.add(b, &created);
  if (created) save({id});
  return id;
}

int FrontEnd::memo_estimate(std::unordered_map<int, int>& memo, int id, std::uint64_t nodes) {
  if (const auto it = memo.find(id); it != memo.end()) return it->second;
  const int v = estimator_->solver().estimate(tree_.node(id).board, nodes).value;
  memo.emplace(id, v);
  return v;
}

std::optional<int> FrontEnd::expected(int id) {
  // None without estimates (--estimate-nodes 0: ties to the lowest pit); else a value unit's
  // guess (the workers' first guess, with their database) where there is one.
  if (!estimator_) return std::nullopt;
  if (const std::optional<int> guess = tree_.node(id).guess) return guess;
  return memo_estimate(estimates_, id, estimate_nodes());
}

int FrontEnd::first_guess(int id) {
  if (const std::optional<int> guess = tree_.node(id).guess) return *guess;
  if (!estimator_) return 0;
  return memo_estimate(goal_estimates_, id, 16 * estimate_nodes());
}

int FrontEnd::first_gamma(int id, bool thorough) {
  const int seeds = tree_.node(id).seeds;
  if (id != 0 || !options_.first_test)
    return base::round_down(thorough ? first_guess(id) : expected(id).value_or(0), seeds);
  // The claim "South minus North >= M": margin + v >= M with South to move; with North,
  // margin - v >= M, the negation of v >= margin - M + 1. Either test decides the claim.
  const Position& p = store_.spec().position;
  const int m = *options_.first_test;
  return p.to_move == Side::South ? base::round_up(m - p.margin(), seeds) : base::round_up(p.margin() - m + 1, seeds);
}

bool FrontEnd::expects_true(int id, int gamma) {
  // The claim's test at a position with North to move is its negation (first_gamma).
  if (id == 0 && options_.first_test && gamma == first_gamma(0, false))
    return store_.spec().position.to_move == Side::South;
  // The thorough estimate, as the line's order, not a value unit's guess: the root of
  // Kalah(6,6) empty capture came back from a value unit guessed at +6, and ">= +4" walked as
  // true after ">= +2" was proven (the estimate says +2, Rawlings' value).
  if (!estimator_) return true;
  return memo_estimate(goal_estimates_, id, 16 * estimate_nodes()) >= gamma;
}

void FrontEnd::request_stop(const std::string& reason) {
  if (stopping_) return;
  stopping_ = true;
  stop_reason_ = reason;
  if (options_.stop) options_.stop->store(true);  // the units under way stop soon and report
}

void FrontEnd::note_stop_request() {
  if (stopping_) return;
  if (options_.cancel && options_.cancel->load()) {
    request_stop("interrupted");
  } else if (options_.hours > 0 && since(t0_) > options_.hours * 3600) {
    std::ostringstream s;
    s << "stopped after " << options_.hours << " h (--hours)";
    request_stop(s.str());
  }
}

void FrontEnd::check_stop(int id) {
  note_stop_request();
  if (!stopping_) return;
  drain();
  throw search::Interrupted(tree_.node(id).lower, tree_.node(id).upper);
}

UnitOutcome FrontEnd::next_outcome() {
  // Wakes every tenth of a second: a stop (Ctrl-C, --hours) is seen at once, not when a unit
  // ends, and a busy leaf whose quarter budget has passed is split for idle workers.
  for (;;) {
    if (std::optional<UnitOutcome> out = pool_.wait_for(0.1)) return std::move(*out);
    note_stop_request();
    if (!stopping_) dispatch(goal_, goal_gamma_);
    log_waiting();
  }
}

void FrontEnd::log_waiting() {
  // Progress lines come when units answer; with units of an hour the log would be silent for
  // an hour. A line every 6 log periods (a minute from the command line) says what the workers
  // are on and how far into their budgets. None with log_seconds 0 (a line after every refill
  // that follows answers).
  if (!options_.log || !(options_.log_seconds > 0) || in_flight_.empty()) return;
  if (since(last_log_) < 6 * options_.log_seconds) return;
  last_log_ = Clock::now();
  std::ostringstream line;
  line.setf(std::ios::fixed);
  line.precision(1);
  line << "job: " << since(t0_) << " s, waiting on " << in_flight_.size() << " unit(s):";
  int shown = 0;
  for (const auto& [uid, f] : in_flight_) {
    line << (shown == 0 ? " " : ", ");
    if (++shown > 4) {
      line << "...";
      break;
    }
    line << "node " << f.node << line_text(tree_, f.node)
         << (f.test ? " >= " + std::to_string(f.gamma) : std::string(" value")) << " " << since(f.started) << " of "
         << f.budget << " s";
  }
  options_.log(line.str());
}

void FrontEnd::drain() {
  // The units under way stop and report; what they proved is kept, nothing is expanded.
  stopping_ = true;
  if (options_.stop) options_.stop->store(true);
  while (!in_flight_.empty())
    if (std::optional<UnitOutcome> out = pool_.wait_for(1.0)) {
      apply(*out);
      log_progress(false);  // nothing is refilled now: the count falls as the workers stop
    }
}

void FrontEnd::abandon() {
  // After a failure: the units under way stop; their answers are dropped (the store may be
  // what failed).
  stopping_ = true;
  if (options_.stop) options_.stop->store(true);
  while (!in_flight_.empty())
    if (std::optional<UnitOutcome> out = pool_.wait_for(1.0)) in_flight_.erase(out->id);
}

int FrontEnd::exact_value(const Board& b) {
  const int id = add_node(b);
  goal_ = id;
  goal_testing_ = false;
  Gallop gallop;
  while (!tree_.node(id).exact()) {
    check_stop(id);
    // A goal's first unit asks its exact value. A leaf goal waits for it (its guess starts
    // the tests) unless a split expands the leaf meanwhile; then tests narrow the goal.
    if (!asked_value_.count(id) && tree_.node(id).in_flight == 0) {
      if (static_cast<int>(in_flight_.size()) >= pool_.size()) {
        apply(next_outcome());
        continue;
      }
      submit(id, false, 0);
    }
    const TopNode& n = tree_.node(id);
    if (!n.expanded && n.in_flight > 0) {
      // Tests below a leaf goal come only with a split: the quick estimate will do.
      goal_gamma_ = std::clamp(first_gamma(id, false), n.lower + 2, n.upper);
      goal_testing_ = true;
      dispatch(id, goal_gamma_);
      apply(next_outcome());
      continue;
    }
    const int gamma = next_gamma(id, gallop);
    goal_gamma_ = gamma;
    goal_testing_ = true;
    decide(id, gamma);
    gallop.last = gamma;
    if (tree_.decided(id, gamma) > 0)
      gallop.saw_true = true;
    else
      gallop.saw_false = true;
  }
  return tree_.node(id).lower;
}

int FrontEnd::next_gamma(int id, Gallop& g) {
  const TopNode& n = tree_.node(id);
  const int lo = n.lower, hi = n.upper;  // lo < hi, both of the parity of the seeds
  int gamma;
  if (!g.last) {
    gamma = first_gamma(id, true);
  } else if (g.saw_true && g.saw_false) {
    gamma = base::round_up(lo + (hi - lo) / 2, n.seeds);  // bisection
  } else if (g.saw_true) {
    gamma = lo + g.step_up;
    g.step_up *= 2;
  } else {
    gamma = hi - g.step_down + 2;
    g.step_down *= 2;
  }
  return std::clamp(gamma, lo + 2, hi);  // a test that can go either way
}

void FrontEnd::decide(int id, int gamma) {
  bool started = false;
  while (tree_.decided(id, gamma) == 0) {
    check_stop(id);
    const Clock::time_point logged = last_log_;
    dispatch(id, gamma);
    // A line as each test of the goal starts (a few a goal), unless the refill just wrote one.
    if (!started && last_log_ == logged) log_progress(true);
    started = true;
    if (in_flight_.empty())
      throw std::logic_error("proof job: test on node " + std::to_string(id) + " undecided with nothing to do");
    apply(next_outcome());
  }
}

void FrontEnd::dispatch(int id, int gamma) {
  const auto t = Clock::now();
  while (static_cast<int>(in_flight_.size()) < pool_.size()) {
    const std::optional<Question> q =
        options_.selection == Selection::kCommit
            ? tree_.select_committed(id, gamma, expects_true(id, gamma), line_expectation_)
            : tree_.select(id, gamma, expectation_, options_.leaf_numbers);
    if (q) {
      submit(q->node, true, q->gamma);
      continue;
    }
    // Nothing free for this goal: a later goal's value, or a busy leaf split.
    if (!start_pending_goal() && !split_busy_leaf(id, gamma)) break;
  }
  front_seconds_ += since(t);
  // A progress line for the answers since the last one, after the refill rather than as an
  // answer comes in: "in flight" then counts the busy workers (at the answer it was one short).
  if (answered_since_log_) log_progress(false);
}

void FrontEnd::submit(int node, bool test, int gamma) {
  const TopNode& n = tree_.node(node);
  // Boards within the workers' database: their value is one probe.
  if (n.seeds <= options_.database_seeds) test = false;
  Unit u;
  u.id = next_unit_++;
  u.board = n.board;
  u.test = test;
  u.gamma = gamma;
  const auto budget = budget_.find(node);
  u.seconds = budget != budget_.end() ? budget->second : options_.unit_seconds;
  const auto slot = slot_.find(node);
  u.prefer_slot = slot != slot_.end() ? slot->second : -1;
  if (!test) asked_value_.insert(node);
  in_flight_.emplace(u.id, InFlight{node, test, gamma, u.seconds, Clock::now()});
  tree_.add_in_flight(node, 1);
  pool_.submit(u);
}

bool FrontEnd::start_pending_goal() {
  for (const int g : pending_goals_) {
    const TopNode& n = tree_.node(g);
    if (n.exact() || n.in_flight > 0 || asked_value_.count(g)) continue;
    submit(g, false, 0);
    return true;
  }
  return false;
}

void FrontEnd::expand_first_turns(int id) {
  // The boards after each first sowing and, through extra turns, after each complete first
  // turn: the boards the openings report asks about.
  if (!tree_.node(id).expanded && !tree_.node(id).terminal) {
    std::vector<int> touched{id};
    const std::vector<int> created = tree_.expand(id, &touched);
    touched.insert(touched.end(), created.begin(), created.end());
    save(touched);
  }
  for (const TopEdge& e : std::vector<TopEdge>(tree_.node(id).edges)) {
    pending_goals_.push_back(e.child);
    if (e.extra_turn && !tree_.node(e.child).terminal) expand_first_turns(e.child);
  }
}

std::vector<char> FrontEnd::under_goal() const {
  // The nodes below the current goal that are not exact (each once).
  std::vector<char> seen(static_cast<std::size_t>(tree_.size()), 0);
  std::vector<int> stack{goal_};
  while (!stack.empty()) {
    const int v = stack.back();
    stack.pop_back();
    if (seen[static_cast<std::size_t>(v)] || tree_.node(v).exact()) continue;
    seen[static_cast<std::size_t>(v)] = 1;
    for (const TopEdge& e : tree_.node(v).edges) stack.push_back(e.child);
  }
  return seen;
}

bool FrontEnd::split_busy_leaf(int id, int gamma) {
  // The oldest unit on a leaf below the current goal, once it has had a quarter of its budget:
  // its leaf is expanded so that idle workers can take its children. Down the committed line,
  // the line's own busy leaf: a split off the line gives the walk nothing to take.
  const auto now = Clock::now();
  auto candidate = [&](const InFlight& f) {
    const TopNode& n = tree_.node(f.node);
    return !n.expanded && !n.exact() && !n.terminal && n.seeds > options_.database_seeds &&
           std::chrono::duration<double>(now - f.started).count() >= options_.unit_seconds / 4;
  };
  bool any = false;
  for (const auto& [uid, f] : in_flight_) any = any || candidate(f);
  if (!any) return false;
  const InFlight* oldest = nullptr;
  if (options_.selection == Selection::kCommit) {
    const std::optional<Question> line =
        tree_.select_committed(id, gamma, expects_true(id, gamma), line_expectation_, true);
    for (const auto& [uid, f] : in_flight_)
      if (line && f.node == line->node && candidate(f) && (!oldest || f.started < oldest->started)) oldest = &f;
  } else {
    const std::vector<char> below = under_goal();
    for (const auto& [uid, f] : in_flight_)
      if (candidate(f) && below[static_cast<std::size_t>(f.node)] && (!oldest || f.started < oldest->started))
        oldest = &f;
  }
  if (!oldest) return false;
  const int leaf = oldest->node;
  std::vector<int> touched{leaf};
  const std::vector<int> created = tree_.expand(leaf, &touched);
  touched.insert(touched.end(), created.begin(), created.end());
  save(touched);
  ++summary_.expansions;
  return true;
}

void FrontEnd::apply(const UnitOutcome& out) {
  const auto t = Clock::now();
  const auto it = in_flight_.find(out.id);
  if (it == in_flight_.end())
    throw std::logic_error("proof job: an answer to no unit (" + std::to_string(out.id) + ")");
  const InFlight f = it->second;
  in_flight_.erase(it);
  tree_.add_in_flight(f.node, -1);
  if (!out.error.empty())
    throw std::runtime_error("worker " + out.worker + " could not answer a unit on node " + std::to_string(f.node) +
                             ": " + out.error);
  std::vector<int> touched;
  tree_.tighten(f.node, out.lower, out.upper, &touched);
  if (out.guess && !tree_.node(f.node).exact()) {
    tree_.set_guess(f.node, *out.guess);
    touched.push_back(f.node);
  }
  const TopNode& n = tree_.node(f.node);
  const bool answered = f.test ? tree_.decided(f.node, f.gamma) != 0 : n.exact();
  // A unit that ran out of budget keeps its work: the leaf's next unit gets twice the budget
  // and prefers the same worker. Past the maximum budget the leaf is expanded; its children
  // start from half that budget on the same worker. A stopped unit changes nothing (it would
  // split the tree down to the database for nothing).
  if (!answered && out.over_budget && !stopping_ && !n.expanded && !n.terminal) {
    if (out.slot >= 0) slot_[f.node] = out.slot;
    if (f.budget < max_budget()) {
      budget_[f.node] = std::min(2 * f.budget, max_budget());
      ++summary_.regrown;
    } else {
      touched.push_back(f.node);
      const std::vector<int> created = tree_.expand(f.node, &touched);
      touched.insert(touched.end(), created.begin(), created.end());
      for (const TopEdge& e : tree_.node(f.node).edges) {
        if (budget_.count(e.child)) continue;
        budget_[e.child] = std::max(options_.unit_seconds, f.budget / 2);
        if (out.slot >= 0) slot_[e.child] = out.slot;
      }
      ++summary_.expansions;
    }
  }
  UnitRecord r;
  r.node = f.node;
  r.test = f.test;
  r.gamma = f.gamma;
  r.lower = out.lower;
  r.upper = out.upper;
  r.complete = out.complete;
  r.nodes = out.nodes;
  r.seconds = out.seconds;
  r.worker = out.worker;
  save(touched, &r);
  ++summary_.units;
  summary_.nodes += out.nodes;
  front_seconds_ += since(t);
  if (out.worker_interrupted) request_stop("interrupted (worker " + out.worker + " got a signal)");
  answered_since_log_ = true;
}

void FrontEnd::log_progress(bool force) {
  if (!options_.log) return;
  if (!force && std::chrono::duration<double>(Clock::now() - last_log_).count() < options_.log_seconds) return;
  last_log_ = Clock::now();
  answered_since_log_ = false;
  const TopNode& root = tree_.node(0);
  const TopNode& goal = tree_.node(goal_);
  const double s = since(t0_);
  std::ostringstream line;
  line.setf(std::ios::fixed);
  line.precision(1);
  line << "job: " << s << " s, root value in [" << root.lower << ", " << root.upper << "] (remainder), goal node "
       << goal_ << line_text(tree_, goal_) << " in [" << goal.lower << ", " << goal.upper << "]";
  if (goal_testing_ && !goal.exact() && goal.expanded) line << " testing >= " << goal_gamma_;
  const double units = static_cast<double>(summary_.units), nodes = static_cast<double>(summary_.nodes);
  line << ", units " << summary_.units << " (" << units / std::max(s, 1e-9) << "/s), in flight " << in_flight_.size()
       << ", tree " << tree_.size() << " nodes, " << nodes / std::max(s, 1e-9) / 1e6 << " M nodes/s";
  options_.log(line.str());
}

RunSummary FrontEnd::run() {
  if (const std::optional<std::string> done = store_.report()) {
    summary_.finished = summary_.already = true;
    summary_.outcome = "finished before this run";
    summary_.report_json = *done;
    return summary_;
  }
  run_ = store_.begin_run(options_.info);
  summary_.carried = budget_.size();
  if (options_.stop) options_.stop->store(false);
  try {
    main_loop();
  } catch (const std::exception& e) {
    abandon();
    try {
      store_.finish_run(run_, std::string("failed: ") + e.what(), nullptr);
    } catch (...) {
      // the store itself may be what failed: the original error is the one to report
    }
    throw;
  }
  log_progress(true);
  return summary_;
}

void FrontEnd::main_loop() {
  const JobSpec& spec = store_.spec();
  // The openings report asks about every first sowing and turn: their boards go into the tree
  // at once (job status shows them), and idle workers take their values ahead of the report.
  if (spec.openings && !tree_.node(0).terminal) expand_first_turns(0);
  const Oracle oracle = [this](const Board& b) { return exact_value(b); };
  api::SearchStats stats;
  stats.solver = "job";
  auto fill = [&] {
    const StoreTotals t = store_.totals();
    stats.nodes = t.nodes;
    stats.seconds = stats.search_seconds = t.run_seconds;
    stats.threads = pool_.size() * pool_.threads_per_worker();
    stats.db_max_seeds = options_.database_seeds;
    stats.db_dir = options_.info.database;
  };
  api::Json report;
  bool interrupted = false;
  if (spec.openings) {
    api::OpeningsReport r = api::openings_from(spec.position, spec.rules, oracle);
    interrupted = r.interrupted;
    drain();  // units of earlier goals may still be out: their bounds are kept
    fill();
    r.stats = stats;
    report = api::to_json(r);
  } else {
    api::SolveReport r = api::solve_from(spec.position, spec.rules, oracle, {}, true);
    interrupted = r.interrupted;
    drain();
    fill();
    r.stats = stats;
    report = api::to_json(r);
  }
  summary_.report_json = api::json_text(report);
  summary_.seconds = since(t0_);
  summary_.front_end_seconds = front_seconds_;
  summary_.finished = !interrupted;
  summary_.outcome = interrupted ? (stop_reason_.empty() ? "interrupted" : stop_reason_) : "finished";
  store_.finish_run(run_, summary_.outcome, summary_.finished ? &summary_.report_json : nullptr);
}

}  // namespace

std::unordered_map<int, double> carried_budgets(const std::vector<UnitRecord>& units, const TopTree& tree,
                                                double unit_seconds, double max_budget) {
  const double largest = std::max(max_budget, unit_seconds);
  auto open_leaf = [&](const TopNode& n) { return !n.expanded && !n.exact() && !n.terminal; };
  std::unordered_map<int, double> longest;  // the longest unanswered unit of each node
  std::vector<char> asked(static_cast<std::size_t>(tree.size()), 0);
  for (const UnitRecord& u : units) {
    if (u.node < 0 || u.node >= tree.size()) continue;
    asked[static_cast<std::size_t>(u.node)] = 1;
    if (u.complete || tree.node(u.node).exact()) continue;
    double& s = longest[u.node];
    s = std::max(s, u.seconds);
  }
  std::unordered_map<int, double> budgets;
  for (const auto& [node, s] : longest) {
    const TopNode& n = tree.node(node);
    if (open_leaf(n)) {
      budgets[node] = std::min(std::max(unit_seconds, 2 * s), largest);
    } else if (n.expanded) {
      // A leaf expanded after a unit over the largest budget: its children start at half that
      // budget, as within a run (FrontEnd::apply), where no unit has asked them yet.
      for (const TopEdge& e : n.edges) {
        if (asked[static_cast<std::size_t>(e.child)] || !open_leaf(tree.node(e.child)) || s / 2 <= unit_seconds)
          continue;
        double& b = budgets[e.child];
        b = std::max(b, std::min(s / 2, largest));
      }
    }
  }
  return budgets;
}

RunSummary run_job(JobStore& store, WorkerPool& pool, const RunOptions& options) {
  FrontEnd front(store, pool, options);
  return front.run();
}

}  // namespace kalah::job

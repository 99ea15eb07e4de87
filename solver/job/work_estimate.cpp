#include "solver/job/work_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <map>
#include <random>
#include <unordered_map>

#include "solver/base/value_bounds.hpp"
#include "solver/job/job.hpp"
#include "solver/job/worker.hpp"

namespace kalah::job {

namespace fs = std::filesystem;

namespace {

int seeds_of(const Board& b, int m) { return side_seeds(b, m, 0) + side_seeds(b, m, 1); }

// The CPU time of this process: a frontier test's is what its search threads used (the
// estimator does nothing else meanwhile).
double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

struct Leaf {
  double seconds = 0;
  std::uint64_t nodes = 0;
  bool complete = true;
  bool proved = false;  // complete, and v >= gamma
};

// The p-quantile of sorted `x` (nearest rank).
double quantile(const std::vector<double>& x, double p) {
  if (x.empty()) return 0;
  const auto i = static_cast<std::size_t>(std::ceil(p * static_cast<double>(x.size())));
  return x[std::min(x.size() - 1, i == 0 ? 0 : i - 1)];
}

}  // namespace

const char* end_name(WorkProbe::End e) {
  switch (e) {
    case WorkProbe::End::frontier: return "frontier";
    case WorkProbe::End::database: return "database";
    case WorkProbe::End::terminal: return "terminal";
    case WorkProbe::End::decided: return "decided";
  }
  return "?";
}

WorkEstimate estimate_work(const fs::path& dir, api::SessionConfig session, const WorkEstimateOptions& options) {
  if (options.depth < 0 || options.depth > 200) throw api::ConfigError("the depth must be between 0 and 200 sowings");
  if (options.probes < 1 || options.probes > 1000000)
    throw api::ConfigError("the probes must be between 1 and 1000000");
  WorkEstimate r;
  r.dir = dir;
  r.depth = options.depth;
  r.seed = options.seed;
  JobStore store(dir, false);
  r.spec = store.spec();
  store.begin_snapshot();
  const TopTree tree = store.load_tree();
  store.end_snapshot();
  const Position& p = r.spec.position;
  const int m = r.spec.pits;
  const Rules rules = r.spec.rules.value_rules();
  std::tie(r.job_lower, r.job_upper) = margins(p, tree.node(0).lower, tree.node(0).upper);
  const bool south = p.to_move == Side::South;
  const Board root = p.board();

  std::atomic<bool> cancel{false};
  session.pits = m;
  session.rules = r.spec.rules;
  session.max_seeds = seeds_of(root, m);
  session.cancel = &cancel;
  session.progress = nullptr;
  api::Session guide(session);  // estimates; loads the database the frontier sessions share
  r.database_seeds = guide.database_seeds();
  r.threads = guide.solver().threads();
  std::unordered_map<Board, int, BoardHash> estimates;
  auto estimate = [&](const Board& b) {
    const auto it = estimates.find(b);
    if (it != estimates.end()) return it->second;
    const int v = guide.solver().estimate(b, options.guess_nodes).value;
    estimates.emplace(b, v);
    return v;
  };
  const int root_estimate = estimate(root);
  {
    const TopNode& n = tree.node(0);
    const int v = std::clamp(base::round_down(root_estimate, n.seeds), n.lower, n.upper);
    r.guess = p.margin() + (south ? v : -v);
  }
  // By default the test the guess makes hardest: the margin guessed, within the margins the
  // job has not decided (job_lower, job_upper] (a margin has the parity of the seeds).
  r.margin = options.margin.value_or(std::clamp(r.guess, r.job_lower + 2, std::max(r.job_lower + 2, r.job_upper)));
  // South minus North >= margin as a test "v >= g0" on the mover's remainder value v (North to
  // move: v <= margin(p) - margin, the negation of v >= margin(p) - margin + 1; deciding either
  // costs the same). The expected answer is the one the walk assumes at the root.
  const int g0 = south ? r.margin - p.margin() : p.margin() - r.margin + 1;
  r.expected = options.expect.value_or((root_estimate >= g0) == south);
  r.assumed = options.expect.has_value();
  if (const int d = tree.decided(0, g0); d != 0) {
    r.decided = true;
    return r;
  }

  api::SessionConfig leaf_config = session;
  leaf_config.database = guide.shared_database();  // as loaded (its top level already chosen)
  leaf_config.database_dir.clear();
  leaf_config.database_seeds = -1;
  std::unordered_map<Board, std::map<int, Leaf>, BoardHash> leaves;  // by board, then gamma
  auto solve_leaf = [&](const Board& b, int gamma, bool* reused) -> std::optional<Leaf> {
    if (const auto it = leaves.find(b); it != leaves.end())
      if (const auto g = it->second.find(gamma); g != it->second.end()) {
        *reused = true;
        return g->second;
      }
    api::Session fresh(leaf_config);  // its own table: no probe profits from another's
    Unit u;
    u.board = b;
    u.test = true;
    u.gamma = gamma;
    u.seconds = options.leaf_seconds > 0 ? options.leaf_seconds : 1e8;
    const double cpu0 = process_cpu_seconds();
    const UnitOutcome out = answer(fresh.solver(), cancel, u, options.cancel);
    const double cpu = process_cpu_seconds() - cpu0;
    if (!out.complete && !out.over_budget) return std::nullopt;  // stopped
    Leaf leaf;
    leaf.seconds = cpu;
    leaf.nodes = out.nodes;
    leaf.complete = out.complete;
    leaf.proved = out.complete && out.lower >= gamma;
    r.measured_seconds += cpu;
    ++r.leaves_solved;
    leaves[b].emplace(gamma, leaf);
    *reused = false;
    return leaf;
  };

  std::mt19937_64 random(options.seed);
  std::vector<double> seconds, nodes;
  for (int probe = 0; probe < options.probes; ++probe) {
    if (options.cancel && options.cancel->load()) {
      r.interrupted = true;
      break;
    }
    WorkProbe w;
    Board b = root;
    int gamma = g0;
    // "v >= gamma" is expected true here: the assumed answer carried down the walk (flipped
    // where a sowing hands the move over), or else the board's estimate.
    bool assumed_true = r.expected == south;
    auto expected_true = [&] { return r.assumed ? assumed_true : estimate(b) >= gamma; };
    bool stopped = false;
    for (int depth = 0;; ++depth) {
      int remainder = 0;
      if (is_terminal(b, m, rules.end, remainder)) {
        w.end = WorkProbe::End::terminal;
        break;
      }
      if (const auto id = tree.find(b); id && tree.decided(*id, gamma) != 0) {
        w.end = WorkProbe::End::decided;
        break;
      }
      if (seeds_of(b, m) <= r.database_seeds) {
        w.end = WorkProbe::End::database;  // one probe: nothing to count
        break;
      }
      if (depth == options.depth) {
        w.end = WorkProbe::End::frontier;
        const std::optional<Leaf> leaf = solve_leaf(b, gamma, &w.reused);
        if (!leaf) {
          stopped = true;
          break;
        }
        w.seconds = leaf->seconds;
        w.nodes = leaf->nodes;
        w.complete = leaf->complete;
        w.surprise = leaf->complete && leaf->proved != expected_true();
        break;
      }
      struct Child {
        Board board;
        int pit, stored;
        bool extra;
      };
      std::vector<Child> children;
      for (int pit = 0; pit < m; ++pit) {
        if (b.cells[static_cast<std::size_t>(pit)] == 0) continue;
        Board c = b;
        const SowOutcome out = sow(c, m, pit, rules);
        if (!out.extra_turn) c = flipped(c, m);
        children.push_back(Child{c, pit, out.stored, out.extra_turn});
      }
      // The child's test "v(c) >= child_gamma" (negated without an extra turn, where the
      // child's mover is the opponent), and whether the job's tree has already refuted this
      // sowing for the test here.
      auto child_gamma = [&](const Child& c, bool* negated = nullptr) {
        bool flip = false;
        const int g = TopTree::edge_question(TopEdge{-1, c.pit, c.stored, c.extra}, gamma, &flip).gamma;
        if (negated) *negated = flip;
        return g;
      };
      auto refuted = [&](const Child& c) {
        const auto id = tree.find(c.board);
        if (!id) return false;
        const int d = tree.decided(*id, child_gamma(c));
        return c.extra ? d == -1 : d == 1;
      };
      std::size_t next = children.size();
      const bool true_here = expected_true();
      if (true_here) {
        // Expected true: the sowing the estimates rate best, of those not refuted, proves it.
        int best = 0;
        for (std::size_t i = 0; i < children.size(); ++i) {
          const Child& c = children[i];
          if (refuted(c)) continue;
          const int through = c.extra ? c.stored + estimate(c.board) : c.stored - estimate(c.board);
          if (next == children.size() || through > best) {
            best = through;
            next = i;
          }
        }
      }
      // (Expected true but every sowing refuted by the job: the expectation is wrong here, and
      // the walk goes on as for false.)
      const bool one_sowing = next != children.size();
      if (!one_sowing) {
        // Expected false: every sowing must be refuted; one stands for all of them (drawn by
        // the standard's Mersenne Twister alone, so a seed draws the same walks everywhere).
        next = static_cast<std::size_t>(random() % children.size());
        w.weight *= static_cast<double>(children.size());
      }
      const Child& c = children[next];
      bool negated = false;
      gamma = child_gamma(c, &negated);
      // One sowing proves a true test: the child's test is as expected here, negated where the
      // move passes; refuting every sowing of a false one likewise.
      assumed_true = one_sowing != negated;
      b = c.board;
      w.pits.push_back(c.pit);
    }
    if (stopped) {
      r.interrupted = true;
      break;
    }
    if (w.surprise) ++r.surprises;
    if (!w.complete) ++r.incomplete;
    seconds.push_back(w.weight * w.seconds);
    nodes.push_back(w.weight * static_cast<double>(w.nodes));
    r.probes.push_back(w);
    if (options.log) {
      std::string path;
      for (const int pit : w.pits) path += (path.empty() ? "" : "-") + std::to_string(pit + 1);
      char buf[200];
      std::snprintf(buf, sizeof buf, "probe %zu of %d: %s, weight %.3g, %s %.3g s%s%s", r.probes.size(), options.probes,
                    path.empty() ? "(the position)" : path.c_str(), w.weight, end_name(w.end), w.seconds,
                    w.reused ? " (measured before)" : "", w.complete ? "" : " (over budget)");
      options.log(buf);
    }
  }
  const auto n = static_cast<double>(seconds.size());
  if (n > 0) {
    double sum = 0, sum_nodes = 0;
    for (std::size_t i = 0; i < seconds.size(); ++i) {
      sum += seconds[i];
      sum_nodes += nodes[i];
    }
    r.mean_seconds = sum / n;
    r.mean_nodes = sum_nodes / n;
    double squares = 0;
    for (const double x : seconds) squares += (x - r.mean_seconds) * (x - r.mean_seconds);
    r.standard_error_seconds = n > 1 ? std::sqrt(squares / (n - 1) / n) : 0;
    std::sort(seconds.begin(), seconds.end());
    r.median_seconds = quantile(seconds, 0.5);
    r.p10_seconds = quantile(seconds, 0.1);
    r.p90_seconds = quantile(seconds, 0.9);
  }
  return r;
}

api::Json to_json(const WorkEstimate& e) {
  using api::Json;
  Json j;
  j["dir"] = e.dir.string();
  j["pits"] = e.spec.pits;
  j["position"] = e.spec.position.to_text();
  j["rules"] = api::rules_json(e.spec.rules);
  j["margin"] = e.margin;
  j["expected"] = e.expected;
  j["assumed"] = e.assumed;
  j["guess"] = e.guess;
  j["job_lower"] = e.job_lower;
  j["job_upper"] = e.job_upper;
  j["decided"] = e.decided;
  j["depth"] = e.depth;
  j["seed"] = e.seed;
  j["db_max_seeds"] = e.database_seeds;
  j["threads"] = e.threads;
  j["probes"] = e.probes.size();
  j["leaves_solved"] = e.leaves_solved;
  j["surprises"] = e.surprises;
  j["incomplete"] = e.incomplete;
  j["cpu_seconds"] = Json{{"mean", e.mean_seconds},
                          {"standard_error", e.standard_error_seconds},
                          {"median", e.median_seconds},
                          {"p10", e.p10_seconds},
                          {"p90", e.p90_seconds}};
  j["nodes"] = e.mean_nodes;
  j["measured_seconds"] = e.measured_seconds;
  Json probes = Json::array();
  for (const WorkProbe& w : e.probes)
    probes.push_back({{"pits", api::pits_json(w.pits)},
                      {"weight", w.weight},
                      {"end", end_name(w.end)},
                      {"seconds", w.seconds},
                      {"nodes", w.nodes},
                      {"complete", w.complete},
                      {"surprise", w.surprise},
                      {"reused", w.reused}});
  j["probe_list"] = probes;
  j["interrupted"] = e.interrupted;
  return j;
}

}  // namespace kalah::job

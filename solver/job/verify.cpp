#include "solver/job/verify.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <numeric>
#include <optional>
#include <random>
#include <set>
#include <stdexcept>

#include "solver/api/reports.hpp"
#include "solver/base/value_bounds.hpp"
#include "solver/db/directory_lock.hpp"
#include "solver/job/job.hpp"
#include "solver/job/proof.hpp"
#include "solver/job/worker.hpp"

namespace kalah::job {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kFindingsShown = 20;  // of each kind; the counts are complete

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g s", s);
  return buf;
}

std::string interval(int lower, int upper) {
  auto v = [](int x) { return (x > 0 ? "+" : "") + std::to_string(x); };
  return lower == upper ? v(lower) : "[" + v(lower) + ", " + v(upper) + "]";
}

// The report's board is not exact in the rebuilt tree: the stored report claims more than the
// units prove.
struct NotProven : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The tree of `stored` (its boards and expansions) with no bounds but those the units prove.
// Units that contradict the others are counted as conflicts and left out.
TopTree rebuild(const TopTree& stored, const std::vector<UnitRecord>& units, VerifyReport& r) {
  TopTree tree = stored.skeleton();
  for (const UnitRecord& u : units) {
    try {
      tree.tighten(u.node, u.lower, u.upper);
    } catch (const std::logic_error& e) {
      if (r.conflicts++ < kFindingsShown)
        r.findings.push_back("units disagree: unit " + std::to_string(u.id) + " on node " + std::to_string(u.node) +
                             " proved " + interval(u.lower, u.upper) +
                             ", which contradicts the bounds the units before it gave (" + e.what() + ")");
    }
  }
  return tree;
}

void compare_bounds(const TopTree& stored, const TopTree& rebuilt, VerifyReport& r) {
  for (int id = 0; id < stored.size(); ++id) {
    const TopNode& s = stored.node(id);
    const TopNode& u = rebuilt.node(id);
    if (s.lower > u.lower || s.upper < u.upper) {
      if (r.unjustified++ < kFindingsShown)
        r.findings.push_back("node " + std::to_string(id) + ": the store says " + interval(s.lower, s.upper) +
                             ", the units prove only " + interval(u.lower, u.upper));
    } else if (s.lower < u.lower || s.upper > u.upper) {
      if (r.behind++ < kFindingsShown)
        r.findings.push_back("node " + std::to_string(id) + ": the units prove " + interval(u.lower, u.upper) +
                             ", the store has only " + interval(s.lower, s.upper));
    }
  }
}

// The report computed again from `tree`; compared with the stored one, statistics aside.
void check_report(const TopTree& tree, const JobSpec& spec, const std::string& stored_json, VerifyReport& r) {
  const Oracle oracle = [&](const Board& b) {
    const std::optional<int> id = tree.find(b);
    if (!id) throw NotProven("the report asks about a board the tree does not hold");
    const TopNode& n = tree.node(*id);
    if (!n.exact())
      throw NotProven("the report asks for the value of node " + std::to_string(*id) +
                      ", which the units bound only to " + interval(n.lower, n.upper));
    return n.lower;
  };
  api::Json again;
  try {
    again = spec.openings ? api::to_json(api::openings_from(spec.position, spec.rules, oracle))
                          : api::to_json(api::solve_from(spec.position, spec.rules, oracle, {}, true));
  } catch (const NotProven& e) {
    r.report_difference = e.what();
    return;
  }
  api::Json stored;
  try {
    stored = api::Json::parse(stored_json);
  } catch (const std::exception& e) {
    r.report_difference = std::string("the stored report is not JSON: ") + e.what();
    return;
  }
  const api::Json a = api::without_statistics(again), b = api::without_statistics(stored);
  r.report_matches = a == b;
  if (!r.report_matches) {
    for (const auto& [key, value] : a.items())
      if (!b.contains(key) || b[key] != value) {
        const std::string shown = b.contains(key) ? api::json_text(b[key]) : "nothing";
        r.report_difference = "\"" + key + "\": the units give " + api::json_text(value).substr(0, 200) +
                              ", the stored report " + shown.substr(0, 200);
        return;
      }
    r.report_difference = "the stored report has keys the units do not give";
  }
}

// The unit's claims at the parity of its board's seeds; whether it claims anything.
bool claims(const TopNode& n, const UnitRecord& u, const Rules& rules, UnitCheck& c) {
  if (n.terminal) return false;  // its value is the board's (the rebuild checks units against it)
  c.unit = u;
  c.seeds = n.seeds;
  c.claimed_lower = std::max(base::min_value(n.seeds, rules), base::round_up(u.lower, n.seeds));
  c.claimed_upper = std::min(base::max_value(n.seeds), base::round_down(u.upper, n.seeds));
  return c.claimed_lower > base::min_value(n.seeds, rules) || c.claimed_upper < base::max_value(n.seeds);
}

// What bounds found again say of the claimed ones.
UnitCheck::Verdict verdict_of(int claimed_lower, int claimed_upper, int found_lower, int found_upper) {
  if (found_lower > claimed_upper || found_upper < claimed_lower) return UnitCheck::Verdict::contradicted;
  if (found_lower >= claimed_lower && found_upper <= claimed_upper) return UnitCheck::Verdict::confirmed;
  return UnitCheck::Verdict::unchecked;
}

// Solves the claims of `c` again. False: stopped (Ctrl-C) before the check was done.
bool solve_again(api::Session& session, std::atomic<bool>& cancel, const TopNode& n, UnitCheck& c,
                 const std::atomic<bool>* stop) {
  const int lo = base::min_value(n.seeds, session.config().rules.value_rules()), hi = base::max_value(n.seeds);
  c.found_lower = lo;
  c.found_upper = hi;
  std::vector<Unit> questions;
  Unit q;
  q.board = n.board;
  q.seconds = c.budget > 0 ? c.budget : 1e8;
  // One null-window test a claimed bound (an exact claim is two): cheaper than a value.
  q.test = true;
  if (c.claimed_lower > lo) {
    q.gamma = c.claimed_lower;
    questions.push_back(q);
  }
  if (c.claimed_upper < hi) {
    q.gamma = c.claimed_upper + 2;
    questions.push_back(q);
  }
  for (const Unit& question : questions) {
    const UnitOutcome out = answer(session.solver(), cancel, question, stop);
    c.nodes += out.nodes;
    c.seconds += out.seconds;
    c.found_lower = std::max(c.found_lower, base::round_up(out.lower, n.seeds));
    c.found_upper = std::min(c.found_upper, base::round_down(out.upper, n.seeds));
    if (c.found_lower > c.found_upper)
      throw std::logic_error("kalah job verify: the search proved crossed bounds on one board");
    if (!out.complete && !out.over_budget) return false;
  }
  c.verdict = verdict_of(c.claimed_lower, c.claimed_upper, c.found_lower, c.found_upper);
  return true;
}

}  // namespace

const char* verdict_name(UnitCheck::Verdict v) {
  switch (v) {
    case UnitCheck::Verdict::confirmed: return "confirmed";
    case UnitCheck::Verdict::contradicted: return "contradicted";
    case UnitCheck::Verdict::unchecked: return "unchecked";
  }
  return "?";
}

std::vector<CheckRecord> recorded_checks(JobStore& store, const TopTree& tree, const std::vector<UnitRecord>& units) {
  std::map<std::int64_t, const UnitRecord*> by_id;
  for (const UnitRecord& u : units) by_id[u.id] = &u;
  const Rules rules = store.spec().rules.value_rules();
  std::vector<CheckRecord> out = store.checks();
  for (const CheckRecord& rec : out) {
    auto damaged = [&](const std::string& what) {
      return StoreError(store.file().string() + ": damaged (check " + std::to_string(rec.id) + " of unit " +
                        std::to_string(rec.unit) + ": " + what + ")");
    };
    const auto u = by_id.find(rec.unit);
    if (u == by_id.end()) throw damaged("a unit the store lacks");
    const TopNode& n = tree.node(u->second->node);
    UnitCheck c;
    if (!claims(n, *u->second, rules, c) || c.claimed_lower != rec.claimed_lower ||
        c.claimed_upper != rec.claimed_upper)
      throw damaged("its claims are not the unit's");
    const int lo = base::min_value(n.seeds, rules), hi = base::max_value(n.seeds);
    if (rec.found_lower < lo || rec.found_upper > hi || ((rec.found_lower - n.seeds) & 1) ||
        ((rec.found_upper - n.seeds) & 1))
      throw damaged("bounds found that the seeds do not allow");
    if (rec.verdict != verdict_name(verdict_of(rec.claimed_lower, rec.claimed_upper, rec.found_lower, rec.found_upper)))
      throw damaged("a verdict its bounds do not give");
  }
  return out;
}

std::map<std::int64_t, const CheckRecord*> standing_checks(const std::vector<CheckRecord>& records) {
  const auto rank = [](const CheckRecord& c) {
    return std::pair(c.verdict == "contradicted" ? 2 : c.verdict == "confirmed" ? 1 : 0, c.budget);
  };
  std::map<std::int64_t, const CheckRecord*> standing;
  for (const CheckRecord& rec : records) {
    const auto [it, fresh] = standing.emplace(rec.unit, &rec);
    if (!fresh && rank(rec) > rank(*it->second)) it->second = &rec;
  }
  return standing;
}

VerifyReport verify_job(const fs::path& dir, api::SessionConfig session, const VerifyOptions& options) {
  if (options.sample < 0) throw api::ConfigError("the sample must be 0 or more units");
  VerifyReport r;
  r.dir = dir;
  r.seed = options.seed;
  // Recording writes the store: no run may write it meanwhile.
  std::optional<DirectoryLock> lock;
  if (options.record) {
    { JobStore probe(dir, false); }  // a missing, foreign or damaged store is refused before the lock is made
    lock.emplace(dir, "kalah job verify --record", 2.0);
  }
  JobStore store(dir, options.record);
  r.spec = store.spec();
  store.begin_snapshot();  // the tree, the units and the report as of one commit
  const TopTree stored = store.load_tree();
  const std::vector<UnitRecord> units = store.units(stored.size());
  const std::optional<std::string> report = store.report();
  const std::vector<CheckRecord> recorded =
      options.record ? recorded_checks(store, stored, units) : std::vector<CheckRecord>{};
  store.end_snapshot();
  r.tree_nodes = static_cast<std::uint64_t>(stored.size());
  r.units = units.size();

  // 1. Propagation, and the report.
  const TopTree rebuilt = rebuild(stored, units, r);
  compare_bounds(stored, rebuilt, r);
  std::tie(r.lower, r.upper) = margins(r.spec.position, rebuilt.node(0).lower, rebuilt.node(0).upper);
  r.finished = report.has_value();
  if (r.finished) check_report(rebuilt, r.spec, *report, r);

  // 2. A sample of the units that proved something, solved again.
  // Units whose claim is a bound of its node in the rebuilt tree (the proof rests on them)
  // come first; units a tighter one superseded after them.
  std::vector<UnitCheck> candidates, superseded, claimed;
  for (const UnitRecord& u : units) {
    UnitCheck c;
    if (!claims(stored.node(u.node), u, r.spec.rules.value_rules(), c)) continue;
    claimed.push_back(c);
    const TopNode& n = rebuilt.node(u.node);
    const int lo = base::min_value(n.seeds, r.spec.rules.value_rules()), hi = base::max_value(n.seeds);
    const bool decisive =
        (c.claimed_lower > lo && c.claimed_lower == n.lower) || (c.claimed_upper < hi && c.claimed_upper == n.upper);
    (decisive ? candidates : superseded).push_back(c);
  }
  r.units_with_bounds = candidates.size() + superseded.size();
  r.decisive_units = candidates.size();
  if (!options.proof) {
    // Fisher-Yates with the 64-bit Mersenne Twister (both fixed by the standard, unlike
    // std::shuffle): the same seed and store draw the same units everywhere.
    std::mt19937_64 random(options.seed);
    auto shuffle = [&](std::vector<UnitCheck>& v) {
      for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[random() % i]);
    };
    shuffle(candidates);
    shuffle(superseded);
    candidates.insert(candidates.end(), superseded.begin(), superseded.end());
    const std::size_t take = options.all ? candidates.size() : std::min<std::size_t>(candidates.size(), options.sample);
    candidates.resize(take);
  } else {
    r.proof = true;
    // With units in conflict the rebuilt tree is not what the runs proved: no proof to walk.
    candidates.clear();
    if (r.conflicts == 0) {
      // The proof's units, with their claims (a unit in the proof proved something).
      std::set<std::int64_t> in_proof;
      for (const UnitRecord& u : proof_of(rebuilt, reported_nodes(rebuilt, r.spec.openings), units).units)
        in_proof.insert(u.id);
      for (const UnitCheck& c : claimed)
        if (in_proof.count(c.unit.id)) candidates.push_back(c);
    }
    r.proof_units = candidates.size();
    for (const UnitCheck& c : candidates) r.proof_seconds += c.unit.seconds;
  }
  std::sort(candidates.begin(), candidates.end(),
            [](const UnitCheck& a, const UnitCheck& b) { return a.unit.id < b.unit.id; });
  if (candidates.empty()) return r;

  // Checks recorded by earlier verifies (each checked against its unit by recorded_checks): a
  // confirmation or a contradiction stands, a unit left unchecked starts at twice its largest
  // budget (at most the limit).
  const double limit = std::max(options.check_seconds, options.max_check_seconds);
  std::map<std::int64_t, const CheckRecord*> decided;
  std::map<std::int64_t, double> tried_budget;
  for (const auto& [unit, rec] : standing_checks(recorded)) {
    if (rec->verdict == "unchecked")
      tried_budget[unit] = rec->budget;
    else
      decided[unit] = rec;
  }
  std::vector<UnitCheck> pending;
  for (UnitCheck& c : candidates) {
    if (const auto d = decided.find(c.unit.id); d != decided.end()) {
      const CheckRecord& rec = *d->second;
      c.verdict = rec.verdict == "confirmed" ? UnitCheck::Verdict::confirmed : UnitCheck::Verdict::contradicted;
      c.found_lower = rec.found_lower;
      c.found_upper = rec.found_upper;
      c.nodes = rec.nodes;
      c.seconds = rec.seconds;
      c.budget = rec.budget;
      c.recorded = true;
      ++r.recorded;
      ++(c.verdict == UnitCheck::Verdict::confirmed ? r.confirmed : r.contradicted);
      r.checks.push_back(c);
      continue;
    }
    c.budget = options.check_seconds;
    if (const auto t = tried_budget.find(c.unit.id); t != tried_budget.end() && c.budget > 0)
      c.budget = std::min(limit, std::max(c.budget, 2 * t->second));
    pending.push_back(c);
  }
  // Units at larger budgets after the others, whose searches warm the table for them.
  std::stable_sort(pending.begin(), pending.end(), [](const UnitCheck& a, const UnitCheck& b) {
    return a.budget > 0 && (b.budget == 0 || a.budget < b.budget);
  });
  if (options.log && r.recorded > 0)
    options.log(std::to_string(r.recorded) + " of the " + std::to_string(candidates.size()) +
                " units decided by checks recorded earlier, not solved again here (" + std::to_string(r.confirmed) +
                " confirmed, " + std::to_string(r.contradicted) + " contradicted); " + std::to_string(pending.size()) +
                " to check");
  if (pending.empty()) return r;

  std::atomic<bool> cancel{false};
  session.pits = r.spec.pits;
  session.rules = r.spec.rules;
  session.max_seeds = r.spec.position.pit_seeds(Side::South) + r.spec.position.pit_seeds(Side::North);
  session.cancel = &cancel;
  session.progress = nullptr;
  const std::string database = session.database_dir;
  api::Session checker(std::move(session));
  const std::string host = host_name();
  // Rounds: a unit over its budget goes again after the others, at twice the budget.
  while (!pending.empty() && !r.interrupted) {
    std::vector<UnitCheck> again;
    for (UnitCheck& c : pending) {
      if (options.cancel && options.cancel->load()) {
        r.interrupted = true;
        break;
      }
      const std::uint64_t nodes0 = c.nodes;
      const double seconds0 = c.seconds;
      if (!solve_again(checker, cancel, stored.node(c.unit.node), c, options.cancel)) {
        r.interrupted = true;
        break;
      }
      ++c.tries;
      if (options.record) {
        CheckRecord rec;
        rec.unit = c.unit.id;
        rec.claimed_lower = c.claimed_lower;
        rec.claimed_upper = c.claimed_upper;
        rec.found_lower = c.found_lower;
        rec.found_upper = c.found_upper;
        rec.verdict = verdict_name(c.verdict);
        rec.budget = c.budget;
        rec.nodes = c.nodes - nodes0;
        rec.seconds = c.seconds - seconds0;
        rec.threads = checker.solver().threads();
        rec.database = database;
        rec.host = host;
        store.save_check(rec);
      }
      const std::string head = "unit " + std::to_string(c.unit.id) + " (node " + std::to_string(c.unit.node) + ", " +
                               std::to_string(c.seeds) + " seeds, " +
                               (c.unit.test ? "test >= " + std::to_string(c.unit.gamma) : std::string("value")) +
                               "): claimed " + interval(c.claimed_lower, c.claimed_upper) + ", proven again " +
                               interval(c.found_lower, c.found_upper);
      if (c.verdict == UnitCheck::Verdict::unchecked && c.budget > 0 && c.budget < limit) {
        const double next = std::min(2 * c.budget, limit);
        if (options.log)
          options.log(head + ": over " + seconds_text(c.budget) + ", again at " + seconds_text(next) +
                      " after the others");
        c.budget = next;
        again.push_back(c);
        continue;
      }
      switch (c.verdict) {
        case UnitCheck::Verdict::confirmed: ++r.confirmed; break;
        case UnitCheck::Verdict::contradicted: ++r.contradicted; break;
        case UnitCheck::Verdict::unchecked: ++r.unchecked; break;
      }
      r.checks.push_back(c);
      if (options.log)
        options.log(
            head + ": " + verdict_name(c.verdict) +
            (c.verdict == UnitCheck::Verdict::unchecked ? " (over " + seconds_text(c.budget) + ")" : std::string()) +
            " (" + std::to_string(r.checks.size()) + " of " + std::to_string(candidates.size()) + ")");
    }
    if (r.interrupted) {
      // Units over their budget that were to go again count as unchecked (their tries are
      // recorded).
      for (UnitCheck& c : again) {
        ++r.unchecked;
        r.checks.push_back(c);
      }
      break;
    }
    pending = std::move(again);
  }
  std::sort(r.checks.begin(), r.checks.end(),
            [](const UnitCheck& a, const UnitCheck& b) { return a.unit.id < b.unit.id; });
  return r;
}

api::Json to_json(const VerifyReport& r) {
  using api::Json;
  Json j;
  j["dir"] = r.dir.string();
  j["pits"] = r.spec.pits;
  j["position"] = r.spec.position.to_text();
  j["rules"] = api::rules_json(r.spec.rules);
  j["passed"] = r.passed();
  j["tree_nodes"] = r.tree_nodes;
  j["units"] = r.units;
  j["units_with_bounds"] = r.units_with_bounds;
  j["decisive_units"] = r.decisive_units;
  j["proof"] = r.proof;
  j["proof_units"] = r.proof ? Json(r.proof_units) : Json(nullptr);
  j["proof_seconds"] = r.proof ? Json(r.proof_seconds) : Json(nullptr);
  j["lower"] = r.lower;
  j["upper"] = r.upper;
  j["propagation"] =
      Json{{"unjustified", r.unjustified}, {"behind", r.behind}, {"conflicts", r.conflicts}, {"findings", r.findings}};
  j["finished"] = r.finished;
  j["report_matches"] = r.finished ? Json(r.report_matches) : Json(nullptr);
  j["report_difference"] = r.report_difference.empty() ? Json(nullptr) : Json(r.report_difference);
  j["seed"] = r.seed;
  Json checks = Json::array();
  for (const UnitCheck& c : r.checks)
    checks.push_back({{"unit", c.unit.id},
                      {"node", c.unit.node},
                      {"seeds", c.seeds},
                      {"question", c.unit.test ? "test" : "value"},
                      {"gamma", c.unit.test ? Json(c.unit.gamma) : Json(nullptr)},
                      {"claimed_lower", c.claimed_lower},
                      {"claimed_upper", c.claimed_upper},
                      {"found_lower", c.found_lower},
                      {"found_upper", c.found_upper},
                      {"verdict", verdict_name(c.verdict)},
                      {"nodes", c.nodes},
                      {"seconds", c.seconds},
                      {"budget", c.budget},
                      {"tries", c.tries},
                      {"recorded", c.recorded}});
  j["checks"] = checks;
  j["confirmed"] = r.confirmed;
  j["contradicted"] = r.contradicted;
  j["unchecked"] = r.unchecked;
  j["recorded"] = r.recorded;
  j["interrupted"] = r.interrupted;
  return j;
}

}  // namespace kalah::job

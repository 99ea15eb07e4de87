// solver/job/front_end.hpp — a proof job's front end: it owns the store and the top tree,
// hands units to a worker pool, and turns their answers into the job's report.
//
// The job's report is what `kalah openings` (or `kalah solve --value-only`) reports, computed
// by the same code (api::openings_from, api::solve_from) from an oracle that is the job: each
// board the analysis asks about becomes a goal, "the exact value of this node", reached by
// MTD(f) over the top tree. The first unit on a goal that is still a leaf asks its exact value;
// if that runs over the unit budget, the goal is narrowed by tests "value >= gamma" (gamma from
// the guess the value unit left, then galloping and bisection). A test is decided over the top
// tree (top_tree.hpp): its most-proving free leaf (or the first free leaf of the line the
// estimate expects, with Selection::kCommit) becomes the next unit, where proof numbers tie
// the one a quick estimate (search/estimate.hpp, made by the front end itself, the same
// whether the workers are threads or MPI ranks) expects to prove; a goal expanded before its
// value unit's guess came back starts its tests at that estimate. A unit that runs over
// its budget keeps its work: its leaf's budget doubles and the next unit on it prefers the same
// worker (whose table holds what the search did), up to the maximum budget; past that the leaf
// is expanded. When every free leaf is busy and a worker idles, the oldest busy leaf is
// expanded so its children can be shared: that, not a small budget, is what splits the work.
// Every finished unit is committed with the bounds it moved before the next unit goes out.
// Stopping (Ctrl-C, --hours) lets the units under way report what they proved, commits them,
// and ends the run; the next run starts from the store.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "solver/job/job_store.hpp"
#include "solver/job/worker_pool.hpp"

namespace kalah::job {

struct RunOptions {
  double unit_seconds = 30;  // a unit's first budget
  // A unit over budget on a leaf is asked again with twice the budget (on the same worker when
  // idle, whose table holds the work) up to this budget; past it the leaf is expanded.
  // 0: 64 x unit_seconds.
  double max_unit_seconds = 0;
  double hours = 0;  // stop after this long; 0: run to the end
  // Units on boards with at most this many seeds (the workers' database) ask the exact value.
  int database_seeds = -1;
  // Nodes of the quick estimate of a leaf's value that breaks ties between the most-proving
  // leaves (with LeafNumbers::kEstimate, weights their numbers too; and 16 times that for a
  // goal's first test when no value unit's guess is back),
  // at most 50000 a second of unit_seconds (an estimate stays a small part of a unit);
  // 0: none, ties go to the lowest pit and such a goal's first test is ">= 0".
  std::uint64_t estimate_nodes = std::uint64_t(1) << 16;
  // How a leaf's proof and disproof numbers start (top_tree.hpp): by default its moves, the
  // estimate breaking ties (kEstimate weights them by the estimate too: on (6,6) that left a
  // split sowing, results/kalah66.md run 4).
  LeafNumbers leaf_numbers = LeafNumbers::kMoves;
  // How the next leaf of a test is picked (top_tree.hpp): by proof numbers, or down the line
  // the quick estimate expects (kCommit; the claim of --test expected to hold, any other test
  // as the goal's thorough estimate says, and to hold without estimates).
  Selection selection = Selection::kProofNumbers;
  // The position's first test in this run, "South minus North >= first_test" (a claim to
  // check before anything else, e.g. a published bound), instead of one at the guess. The
  // tests after it gallop and bisect as usual. Ignored once the position's value is exact.
  std::optional<int> first_test;
  const std::atomic<bool>* cancel = nullptr;    // set by Ctrl-C: stop
  std::atomic<bool>* stop = nullptr;            // the pool's stop flag, raised when stopping
  std::function<void(const std::string&)> log;  // progress lines
  double log_seconds = 10;
  RunInfo info;
};

struct RunSummary {
  bool finished = false;                               // the report is complete and saved in the store
  bool already = false;                                // it was complete before this run
  std::string outcome;                                 // "finished", "stopped after ...", "interrupted"
  std::uint64_t units = 0, nodes = 0, expansions = 0;  // this run's
  std::uint64_t regrown = 0;                           // units over budget whose leaf was given a doubled budget
  std::uint64_t carried = 0;  // open leaves that started at a budget carried from earlier runs (carried_budgets)
  double seconds = 0;
  double front_end_seconds = 0;  // this run's time in the front end (selection, store)
  std::string report_json;       // the report (interrupted: with the bounds so far)
};

// Runs the job in `store` on `pool` until its report is complete or it is stopped.
RunSummary run_job(JobStore& store, WorkerPool& pool, const RunOptions& options);

// The budgets a run starts its open leaves at, carried from the units of earlier runs: a leaf
// whose longest unanswered unit ran s seconds starts at 2 s (at least `unit_seconds`, at most
// `max_budget`), not at `unit_seconds` again. The workers' tables did not survive the run
// that stopped, so asking again from the smallest budget would only repeat the short units
// that could not answer before (a stopped run of hours would lose another hour per leaf).
// A leaf no unit has asked, below a node whose longest unanswered unit ran s seconds (a leaf
// expanded after its unit ran over the largest budget), starts at s / 2, as within a run.
std::unordered_map<int, double> carried_budgets(const std::vector<UnitRecord>& units, const TopTree& tree,
                                                double unit_seconds, double max_budget);

}  // namespace kalah::job

// solver/job/work_estimate.hpp — how much work a proof job has left, measured rather than
// guessed: Knuth's estimator (1975) run over the proof tree of one test at the job's position,
// its frontier tests solved to the end and timed.
//
// The test is "South minus North >= margin" at the job's position, "v >= gamma" on its board's
// remainder value v. A probe walks from the position down to a frontier `depth` sowings deep.
// At each board the test is expected to come out as a quick estimate of v says
// (search::Solver::estimate), or as an answer assumed at the position implies
// (WorkEstimateOptions::expect):
//   expected true  — one sowing proves it: the probe follows the sowing whose estimate is
//                    best, its weight unchanged;
//   expected false — every sowing must be refuted: the probe follows one of them at random
//                    and multiplies its weight by their number.
// A board whose test the job's top tree already decides costs nothing (that work is done), a
// terminal or database board nothing (one probe); a board at the frontier has its test
// solved by a new session (its own table, so no probe profits from another's) and timed; a
// frontier board met again reuses its measurement. A probe's sample is its weight times that
// test's CPU time (and nodes): the mean over probes estimates the CPU time of every frontier
// test of the proof, unbiased while the expectations hold. At a board expected true the walk
// skips sowings the job's tree has already refuted. One test: a value needs two (>= G true,
// >= G + 2 false) and an openings report one a first sowing more, so run it for each. Its spread is heavy-tailed, so
// the standard error comes with the median and the 10% and 90% points. It does not count the search above the frontier
// (small next to the leaves), it counts a transposition once a path (the real search shares it through its table: an
// overestimate), and a frontier test whose answer is not the expected one ("surprises", counted) means the proof needs
// more than the walk assumed there (an underestimate).
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "solver/api/report_json.hpp"
#include "solver/api/session.hpp"
#include "solver/job/job_store.hpp"

namespace kalah::job {

struct WorkEstimateOptions {
  // The test: South minus North >= margin. None: the margin a quick estimate guesses (within
  // the job's bounds), the test the guess makes hardest.
  std::optional<int> margin;
  // The test's answer, assumed instead of estimated: every board of the walk then expects what
  // that answer implies there (a proof's boards alternate: one sowing where the side the answer
  // favours moves, every sowing where the other does), whatever the estimates say. None: each
  // board expects what its estimate says.
  std::optional<bool> expect;
  int depth = 6;  // sowings from the position to the frontier
  int probes = 32;
  std::uint64_t seed = 0;
  double leaf_seconds = 0;                      // a frontier test's budget (0: none); one over it is a lower bound
  std::uint64_t guess_nodes = 1u << 16;         // each estimate's search
  const std::atomic<bool>* cancel = nullptr;    // set (Ctrl-C): stop, report the probes done
  std::function<void(const std::string&)> log;  // a line a probe
};

struct WorkProbe {
  std::vector<int> pits;  // the sowings from the position (0-based)
  double weight = 1;      // the product of the branching taken as "every sowing"
  enum class End { frontier, database, terminal, decided };
  End end = End::frontier;
  bool surprise = false;  // the frontier test did not come out as expected
  bool complete = true;   // the frontier test finished within its budget
  double seconds = 0;     // the frontier test's CPU time (0 for the other ends)
  std::uint64_t nodes = 0;
  bool reused = false;  // the frontier board was measured by an earlier probe
};
const char* end_name(WorkProbe::End e);

struct WorkEstimate {
  std::filesystem::path dir;
  JobSpec spec;
  int margin = 0;         // the test at the position: South minus North >= margin
  bool expected = false;  // the test's expected answer
  bool assumed = false;   // `expected` was given (WorkEstimateOptions::expect), not estimated
  int guess = 0;          // the estimate of the position's value (South minus North)
  int job_lower = 0, job_upper = 0;
  bool decided = false;  // the job already decides the test: nothing is left
  int depth = 0;
  std::uint64_t seed = 0;
  int database_seeds = -1;
  int threads = 1;  // of each frontier test (its seconds are the CPU time of all of them)
  std::vector<WorkProbe> probes;
  int leaves_solved = 0;  // distinct frontier boards solved
  int surprises = 0, incomplete = 0;
  // Over the probes: the estimated CPU seconds (wall seconds x threads) and nodes of the whole
  // proof's frontier tests.
  double mean_seconds = 0, standard_error_seconds = 0;
  double median_seconds = 0, p10_seconds = 0, p90_seconds = 0;
  double mean_nodes = 0;
  double measured_seconds = 0;  // the time this estimate spent solving frontier tests
  bool interrupted = false;
};

// Estimates the work left on the job in `dir` (read as of one commit). `session` gives the
// database, memory and threads of the frontier tests (pits, rules and seeds come from the
// job). Throws StoreError for a store that cannot be read, api::ConfigError for options out
// of range, DatabaseError for a database that cannot be used.
WorkEstimate estimate_work(const std::filesystem::path& dir, api::SessionConfig session,
                           const WorkEstimateOptions& options);

api::Json to_json(const WorkEstimate& estimate);

}  // namespace kalah::job

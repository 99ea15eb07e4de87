// solver/job/worker.hpp — what a proof job hands a worker (a unit) and what comes back, and
// the worker itself: a Session (its own transposition table, a database shared with the
// other workers of the process) that answers units one at a time within a time budget.
//
// A unit asks of one board either its exact value or a test "value >= gamma" (one
// null-window search). The answer is the pair of bounds it proved, [lower, upper] on the
// board's remainder value: exact, or a test decided (fail-soft: often tighter than the
// question), or, when the budget ran out first, whatever the search had proven by then.
// The worker's table carries over from unit to unit, so a worker gets faster on related
// boards; every bound it holds is proven, so the answers never depend on what came before.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

#include "engine/board.hpp"
#include "solver/api/session.hpp"

namespace kalah::job {

struct Unit {
  std::uint64_t id = 0;  // the front end's number, echoed in the outcome
  Board board;
  bool test = false;  // a test "value >= gamma"; else the exact value
  int gamma = 0;
  double seconds = 60;  // the budget: past it the search stops and reports its bounds
  // The pool's worker slot to run it on when that worker is idle (its table holds work on this
  // board); -1, or a busy slot: any idle worker.
  int prefer_slot = -1;
};

struct UnitOutcome {
  std::uint64_t id = 0;
  int lower = 0, upper = 0;         // proven bounds on the board's remainder value
  bool complete = false;            // the question was answered (else stopped by the budget or a stop)
  bool over_budget = false;         // not answered because the budget ran out (not because of a stop)
  bool worker_interrupted = false;  // the worker got a signal: it takes no more units
  std::optional<int> guess;         // the search's first guess for the value (value units)
  std::uint64_t nodes = 0;
  double seconds = 0;
  std::string worker;
  int slot = -1;      // the pool's worker slot that ran it (0 .. size-1), set by the pool
  std::string error;  // non-empty: the unit could not be answered (nothing was proven)
};

// Answers a unit with `solver` (a Session's): the cancel flag `cancel` must be the one the
// solver was configured with; it is raised when the budget runs out or *stop is set.
UnitOutcome answer(search::Solver& solver, std::atomic<bool>& cancel, const Unit& unit, const std::atomic<bool>* stop);

class Worker {
 public:
  // Opens a session for boards of up to `config.max_seeds` seeds (config.cancel is replaced by
  // the worker's own flag).
  Worker(api::SessionConfig config, std::string name);
  UnitOutcome run(const Unit& unit, const std::atomic<bool>* stop = nullptr);
  const std::string& name() const { return name_; }
  api::Session& session() { return *session_; }

 private:
  std::atomic<bool> cancel_{false};
  std::unique_ptr<api::Session> session_;
  std::string name_;
};

}  // namespace kalah::job

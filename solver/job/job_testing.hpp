// solver/job/job_testing.hpp — for the job's tests: a job's description, a run with small
// units, and a job stopped part way, reliably.
//
// A run told to stop after a few answered units can still finish first: under load a unit's
// budget thread wakes late and a small game's units complete (CI saw a Kalah(4,3) job finish
// within 8 units). run_stopped makes the job afresh and runs it again until a run stops before
// the end.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "solver/job/job.hpp"

namespace kalah::job {

inline JobSpec spec_of(const Position& p, const Rules& rules, bool openings = true) {
  JobSpec s;
  s.pits = p.pits;
  s.rules = rules;
  s.position = p;
  s.openings = openings;
  return s;
}

// `workers` threads, one thread and 16 MiB of table each, units of `unit_seconds` growing to
// `max_unit_seconds` (by default not at all: a unit over budget has its leaf expanded at once,
// so the top tree grows most).
inline LocalRun small_run(int workers, double unit_seconds, double max_unit_seconds = 0) {
  LocalRun run;
  run.session.table_bytes = std::uint64_t(16) << 20;
  run.session.threads = 1;
  run.workers = workers;
  run.run.unit_seconds = unit_seconds;
  run.run.max_unit_seconds = max_unit_seconds > 0 ? max_unit_seconds : unit_seconds;
  return run;
}

// The units a progress line says the run has answered ("units N (r/s)"), or -1 for a line
// without the count (a line naming the units under way).
inline long long units_in_line(const std::string& line) {
  const auto at = line.find(", units ");
  return at == std::string::npos ? -1 : std::stoll(line.substr(at + 8));
}

// Creates the job `spec` in `dir` (removing what is there) and runs it with `run` until the
// run has answered at least `answers` units, then stops it. Tries again from scratch when the job
// finished first; throws std::runtime_error after `attempts` such tries.
inline RunSummary run_stopped(const std::filesystem::path& dir, const JobSpec& spec, LocalRun run, int answers,
                              int attempts = 20) {
  for (int attempt = 0; attempt < attempts; ++attempt) {
    std::filesystem::remove_all(dir);
    init_job(dir, spec);
    std::atomic<bool> cancel{false};
    run.run.cancel = &cancel;
    run.run.log_seconds = 0;  // a line after each refill that follows answers
    run.run.log = [&](const std::string& line) {
      if (units_in_line(line) >= answers) cancel = true;
    };
    RunSummary s = run_local_job(dir, run);
    if (!s.finished) return s;
  }
  throw std::runtime_error("run_stopped: the job finished before " + std::to_string(answers) + " units in every try");
}

}  // namespace kalah::job

// solver/job/stopped_run.hpp — for tests: a job stopped part way, reliably.
//
// A run told to stop after a few answered units can still finish first: under load a unit's
// budget thread wakes late and a small game's units complete (CI saw a Kalah(4,3) job finish
// within 8 units). run_stopped makes the job afresh and runs it again until a run stops before
// the end.
#pragma once

#include <atomic>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "solver/job/job.hpp"

namespace kalah::job {

// Creates the job `spec` in `dir` (removing what is there) and runs it with `run` until the
// run has answered `answers` units, then stops it. Tries again from scratch when the job
// finished first; throws std::runtime_error after `attempts` such tries.
inline RunSummary run_stopped(const std::filesystem::path& dir, const JobSpec& spec, LocalRun run, int answers,
                              int attempts = 20) {
  for (int attempt = 0; attempt < attempts; ++attempt) {
    std::filesystem::remove_all(dir);
    init_job(dir, spec);
    std::atomic<bool> cancel{false};
    int answered = 0;
    run.run.cancel = &cancel;
    run.run.log_seconds = 0;  // a call for every unit answered
    run.run.log = [&](const std::string&) {
      if (++answered >= answers) cancel = true;
    };
    RunSummary s = run_local_job(dir, run);
    if (!s.finished) return s;
  }
  throw std::runtime_error("run_stopped: the job finished before " + std::to_string(answers) +
                           " units in every try");
}

}  // namespace kalah::job

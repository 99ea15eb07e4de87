// solver/job/history.hpp — kalah job history: how a job's bounds moved, replayed from its
// units, for plots of the bounds over time (scripts/plot_job_history).
//
// The top tree's boards and expansions are taken as they are now (TopTree::skeleton), and the
// units are applied in the order the store numbered them (the order they were committed). A
// point is recorded at the start and whenever the bounds of the position, of a first sowing
// or of a first turn move: the unit, its run, the run time so far (the runs' lengths, gaps between runs
// left out), the worker time so far (the units' seconds summed), and the bounds as
// South-minus-North margins, and those of each first sowing and each first turn (first_turns in
// job.hpp: "1-3" is sowing 1, an extra turn, then 3). Their bounds are those their boards' nodes
// give in the tree as it is now: before the root was expanded, a sowing's board was not yet in
// the tree, and its bounds are what the units on it proved since.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "solver/api/report_json.hpp"
#include "solver/job/job_store.hpp"

namespace kalah::job {

struct HistoryPoint {
  std::int64_t unit = 0;  // the unit that moved the bounds (0: the start)
  int run = 0;
  double run_seconds = 0;                       // the runs' time up to this unit
  double worker_seconds = 0;                    // the units' seconds up to this one
  std::uint64_t units = 0;                      // units applied
  int lower = 0, upper = 0;                     // the position's bounds, South minus North
  std::vector<int> sowing_lower, sowing_upper;  // each first sowing's (JobHistory::sowing_pits)
  std::vector<int> turn_lower, turn_upper;      // each first turn's (JobHistory::turns)
};

struct JobHistory {
  std::filesystem::path dir;
  JobSpec spec;
  std::vector<int> sowing_pits;  // the first sowings the tree holds (0-based pits)
  // The first turns the tree reaches (0-based pits each); `turn_complete[i]` false: the turn
  // goes on past the tree, and its bounds are the prefix's.
  std::vector<std::vector<int>> turns;
  std::vector<bool> turn_complete;
  std::vector<HistoryPoint> points;
};

// Throws StoreError for a store that cannot be read, std::logic_error when units contradict
// each other (kalah job verify names them).
JobHistory job_history(const std::filesystem::path& dir);

api::Json to_json(const JobHistory& history);

}  // namespace kalah::job

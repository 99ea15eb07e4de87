// solver/job/job.hpp — the proof job's entry points (kalah job init / run / status): create a
// job, run it with worker threads in this process, and report where it stands; and the tree's
// first sowings and turns with their bounds (first_turns, for status and history). The MPI run
// (solver/mpi/mpi_job.hpp) shares the front end and the status.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "solver/api/report_json.hpp"
#include "solver/api/session.hpp"
#include "solver/job/front_end.hpp"
#include "solver/job/job_store.hpp"
#include "solver/job/top_tree.hpp"

namespace kalah::job {

// This machine's name (gethostname), as runs and workers record it.
std::string host_name();

// A remainder-value interval [lower, upper] of p's board as South-minus-North margins.
std::pair<int, int> margins(const Position& p, int lower, int upper);

// The first sowings of the tree's position and its first turns: a turn goes on through extra
// turns as far as the tree is expanded, so "1-3" is sowing 1 then 3. Each with the bounds the
// tree gives it now, as South-minus-North margins (what the turn banks plus its board's bounds).
struct FirstTurn {
  std::vector<int> pits;    // the turn's sowings (0-based)
  int node = 0;             // the board after the last of them
  bool extra_turn = false;  // the last sowing gives another turn
  // False: the turn goes on but the tree does not (the prefix's bounds). Always true in `sowings`.
  bool complete_turn = true;
  int lower = 0, upper = 0;  // South-minus-North margins
};
struct FirstTurns {
  std::vector<FirstTurn> sowings;  // one a first sowing, in pit order
  std::vector<FirstTurn> turns;    // one a first turn the tree reaches, in pit order
};
FirstTurns first_turns(const TopTree& tree, const Position& p);

// Creates the job in `dir` (api::ConfigError for a position no job can take).
void init_job(const std::filesystem::path& dir, const JobSpec& spec);

struct LocalRun {
  // The workers' session: database, memory, table, threads a worker, cancel flag. Pits,
  // rules and seeds come from the job.
  api::SessionConfig session;
  int workers = 1;
  // The workers search one table (search/table_share.hpp: each builds on the others' proofs
  // and puts off the boards they are in); false: a table each, the size split between them.
  bool share_table = true;
  RunOptions run;
};
// Runs the job in `dir` with `config.workers` worker threads, holding DIR/.lock.
RunSummary run_local_job(const std::filesystem::path& dir, LocalRun config);

// Where a job stands (kalah job status).
struct BoundsRow : FirstTurn {
  // The work on the row's board and below it in the tree (a board reached by several rows
  // counts in each): units, those answered, their search nodes and worker seconds.
  std::uint64_t units = 0, answered = 0, nodes = 0;
  double seconds = 0;
};
struct JobStatus {
  std::filesystem::path dir;
  JobSpec spec;
  int seeds = 0;             // in the pits of the job's position
  int lower = 0, upper = 0;  // the position's value, South minus North
  std::vector<BoundsRow> sowings, turns;
  std::uint64_t tree_nodes = 0, expanded = 0, exact = 0, open_leaves = 0;
  // The boards the report asks about: the position and, for the openings, every board after a
  // first sowing or a complete first turn (as far as the tree holds them); how many are exact.
  int goals = 0, goals_exact = 0;
  StoreTotals totals;
  bool running = false;                    // a kalah job run (or verify --record) holds the lock now
  std::string holder;                      // (running) the holder's activity, e.g. "kalah job run"
  std::optional<std::string> report_json;  // once finished
  // The estimate of the work left: open leaves below the goals times the mean unit's seconds,
  // over the workers of the last run.
  double estimate_seconds = 0;
  int last_workers = 0;
  // Units solved again by kalah job verify --record, by unit id: the verdict that stands (a
  // contradiction outweighs a confirmation, which outweighs a check over its budget).
  std::map<std::int64_t, std::string> checked;
  int check_records = 0;                      // checks recorded (a unit tried at growing budgets has several)
  std::vector<RunRecord> runs;                // every run, by id, with the program that ran it
  std::map<std::string, int> check_programs;  // check records by the program that made them ("": not recorded)
  int checked_count(const std::string& verdict) const;
};
JobStatus job_status(const std::filesystem::path& dir);
api::Json to_json(const JobStatus& status);

}  // namespace kalah::job

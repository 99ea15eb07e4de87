// solver/mpi/mpi_job.hpp — a proof job run by MPI ranks (Open MPI): `mpirun -np N kalah job
// run DIR ...` makes rank 0 the front end (solver/job/front_end.hpp), the only rank that
// touches the store, and ranks 1..N-1 workers, each with its own session and table.
//
// Messages (all between rank 0 and one worker, JSON text in MPI_CHAR buffers):
//   0 -> all   spec     the job (pits, rules, position) or, if rank 0 cannot run it, an error
//   w -> 0     ready    the worker's host, search threads and database levels, or its error
//   0 -> w     unit     solver/job/worker.hpp's Unit
//   w -> 0     outcome  its UnitOutcome
//   0 -> w     stop     the unit under way stops soon and reports what it proved
//   0 -> w     done     the worker leaves
// On each host (MPI_COMM_TYPE_SHARED) the first worker rank opens its database first, writing
// any missing raw cache files, and the host's other ranks after it (a barrier), mapping those
// files: the ranks of one host share one copy of the levels in the page cache
// (solver/db/raw_cache.hpp), not one each. Every worker must load the same levels.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "solver/job/job.hpp"

namespace kalah::mpi {

// Whether this process was started by mpirun/mpiexec (Open MPI, MPICH or a PMI launcher).
bool launched_by_mpirun();

// Runs the job in `dir` on the ranks of MPI_COMM_WORLD (at least 2). Every rank calls it with
// the same configuration (config.workers is ignored: the workers are ranks 1..N-1). Rank 0
// returns the run's summary; the others return an empty summary (`worker` set) once rank 0
// lets them go. Initialises and finalises MPI.
struct MpiSummary {
  bool worker = false;
  job::RunSummary run;
};
MpiSummary run_mpi_job(const std::filesystem::path& dir, job::LocalRun config);

// What a worker rank reports once it has tried to open its session (the "ready" message).
struct RankReady {
  int rank = 0;
  std::string host;
  std::string program;  // its build, program_version(); "unknown" when it did not say
  std::string error;    // why it could not open its session; empty when it did
  int threads = 0;
  int database_seeds = -1;  // the levels it loaded: 0..database_seeds
};

// Why rank 0, running build `program`, cannot go on with these workers (in the order they
// reported; the first reason found), or "" when every rank opened its session, runs rank 0's
// build and loaded the same levels. The store records rank 0's program for the whole run.
std::string ranks_refusal(const std::vector<RankReady>& ready, std::string_view program);

}  // namespace kalah::mpi

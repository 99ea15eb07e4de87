// solver/cli/search_setup.hpp — the search options shared by solve, openings and bench
// (--threads, --tt-memory, --db, --db-seeds, --tt-above-db) and the Solver they configure.
#pragma once

#include <memory>
#include <string>

#include "solver/cli/common.hpp"
#include "solver/search/solver.hpp"

namespace kalah::cli {

po::options_description search_options();

// A solver (and the endgame database it probes, if any) built from the search options.
struct SearchSetup {
  std::shared_ptr<void> database;  // keeps the database alive for the probe
  int db_max_seeds = -1;
  std::string db_dir;
  double db_seconds = 0;           // time to load the database
  std::unique_ptr<search::Solver> solver;
};
// For boards of `pits` pits with at most max_seeds seeds in the pits, under `rules`.
// Progress lines go to stderr when `progress` is set.
SearchSetup make_search(const po::variables_map& vm, int pits, const Rules& rules, int max_seeds, bool progress);

// Human-readable byte count ("1.0 GiB").
std::string byte_text(double bytes);

}  // namespace kalah::cli

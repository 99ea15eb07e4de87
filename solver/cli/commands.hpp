// solver/cli/commands.hpp — the `kalah` subcommands, one file each (cmd_<name>.cpp).
// Each takes the arguments after its name and returns the process exit code; errors are
// thrown (UsageError -> exit 2, any other exception -> exit 1) and reported by main.
#pragma once

#include <string>
#include <vector>

namespace kalah::cli {

using Args = std::vector<std::string>;

int run_solve(const Args& args);     // exact value, best move, principal variation
int run_openings(const Args& args);  // every first sowing / first turn, pie rule
int run_replay(const Args& args);    // replay a game record (Finnish or Irving notation)
int run_db(const Args& args);        // endgame databases: build, info, probe, verify, stats
int run_bench(const Args& args);     // fixed search benchmark with a node-count signature
int run_job(const Args& args);       // proof jobs: init, run, status
int run_label(const Args& args);     // every sowing's exact value for many positions (JSON lines)
int run_analyze(const Args& args);   // every turn of a played game: value, best turns, mistakes
int run_sample(const Args& args);    // random reachable positions
int run_serve(const Args& args);     // the explorer: web page and JSON API over HTTP
int run_book(const Args& args);      // the opening book: build, info, verify

}  // namespace kalah::cli

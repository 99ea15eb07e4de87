// solver/api/reports.hpp — what a user asks of a position, computed on a Session: `solve`
// (value, best sowings, principal variation, pie value) and `openings` (every first sowing
// and complete first turn, pie value), each returned as one report value that the CLI
// renders as text and report_json.hpp as JSON.
//
// Values are South's final store minus North's with perfect play to the natural end
// (solver/analysis/analysis.hpp). A report is complete unless `interrupted`: then [lower,
// upper] bounds the position's value as proven before the interruption (lower == upper when
// the value was known and the rest was cut short).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/position.hpp"
#include "engine/rules.hpp"
#include "solver/analysis/analysis.hpp"
#include "solver/api/session.hpp"
#include "solver/search/estimate.hpp"

namespace kalah::api {

// How a report was computed: effort, table and database.
struct SearchStats {
  std::string solver = "search";  // "search" or "reference"
  std::uint64_t nodes = 0;        // all nodes of the report
  double seconds = 0;             // wall time, opening the session (database load) included
  double search_seconds = 0;      // wall time of the search alone
  double value_seconds = 0;       // to the root's value alone
  std::uint64_t value_nodes = 0;
  int threads = 1;
  std::uint64_t split_points = 0;               // split points the threads opened (search::Solver)
  double idle_seconds = 0;                      // the threads' time waiting for work, all together
  std::uint64_t discarded_nodes = 0;            // nodes of split points' children a cut threw away
  std::uint64_t passes = 0;                     // null-window passes
  std::optional<search::Estimate> first_guess;  // MTD(f)'s first guess at the root (none: no pass ran)
  int deepening_depth = 0;                      // the root's deepest iterative-deepening iteration (0: none)
  std::uint64_t table_bytes = 0, table_entries = 0, table_used = 0;
  std::uint64_t table_max_bytes = 0;            // the most the table may grow to (--tt-memory, capped)
  bool table_capped = false;                    // smaller than asked: the problem has fewer boards
  int db_max_seeds = -1;                        // -1: no database
  int db_partial_level = -1;                    // level db_max_seeds + 1 held for some pairs (-1: none)
  int db_partial_pairs = 0;                     // how many of its pairs
  int db_bound_first = -1, db_bound_last = -1;  // levels held as bounds (-1: none)
  int db_bound_pairs = 0;                       // pairs of level db_bound_last held
  double db_seconds = 0;
  std::uint64_t db_memory_bytes = 0;  // the levels in memory
  std::uint64_t db_mapped_bytes = 0;  // of those, the bytes mapping raw cache files
  double db_bits_per_board = 0;       // 8 for levels of one byte a board; 2-4.2 packed
  std::string db_dir;
  std::string book;             // the opening book's name (its file; empty: none)
  std::uint64_t book_hits = 0;  // boards of the report answered from the book
  double nodes_per_second() const { return search_seconds > 0 ? static_cast<double>(nodes) / search_seconds : 0; }
};

struct SolveReport {
  Position position;
  Rules rules;
  bool value_only = false;                 // best, pv and final position left out
  int value = 0;                           // the game's value (under the pie rule at a start: the pie value)
  PositionSolution play;                   // best sowings, principal variation (without the pie swap)
  std::optional<int> value_without_pie;    // set when the pie rule made `value` differ in kind
  std::vector<std::vector<int>> balanced;  // with the pie rule: the most balanced first turns
  bool interrupted = false;
  int lower = 0, upper = 0;  // bounds of the value when interrupted (else both = value)
  SearchStats stats;
};

// Solve `position` under the session's rules. value_only: the value alone (no best sowings,
// no principal variation). Throws ConfigError when the position does not fit the session.
SolveReport solve(Session& session, const Position& position, bool value_only = false);
// The same from any exact oracle (the proof job's, solver/job): `best_sowings` finds the best
// sowings faster than an exact value of each (may be empty); `on_value` runs once the value is
// known, before the rest. An oracle may throw search::Interrupted with the bounds of the board
// it was asked about: the report is then `interrupted`. Statistics are left to the caller.
SolveReport solve_from(const Position& position, const Rules& rules, const Oracle& oracle,
                       const BestSowings& best_sowings, bool value_only,
                       const std::function<void(SolveReport&)>& on_value = {});
// The same with the brute-force reference solver (small boards: ConfigError beyond).
SolveReport solve_with_reference(const Position& position, const Rules& rules, bool value_only = false);

struct OpeningsReport {
  Position position;
  Rules rules;
  Openings openings;  // value, every first sowing and turn, pie value (from a start)
  bool interrupted = false;
  int lower = 0, upper = 0;  // bounds of openings.value when interrupted
  SearchStats stats;
};

// Every first sowing and complete first turn of `position`, and the pie value from a start
// position (computed whether or not the session's rules have the pie rule on).
OpeningsReport openings(Session& session, const Position& position);
// The same from any exact oracle (as solve_from); statistics are left to the caller.
OpeningsReport openings_from(const Position& position, const Rules& rules, const Oracle& oracle);

}  // namespace kalah::api

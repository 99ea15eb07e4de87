// solver/api/session.hpp — the library's entry point: a ready solver opened from a
// configuration (board size, rules, database, memory budget, threads).
//
// A Session owns everything a solve needs: the endgame database (loaded from a directory or
// handed over in memory), the transposition table and the searchers. It decides how the
// memory budget is split: the table first (capped at what the problem can fill,
// search::Solver::table_bytes_for), the database within what the table leaves. The reports
// of reports.hpp (solve, openings) and the bench run on a Session; so will the proof job,
// the server and the labeller. Nothing here prints: progress goes to a callback.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include "engine/position.hpp"
#include "engine/rules.hpp"
#include "solver/analysis/analysis.hpp"
#include "solver/api/known_boards.hpp"
#include "solver/db/database.hpp"
#include "solver/db/store.hpp"
#include "solver/search/solver.hpp"

namespace kalah::api {

// A configuration the library cannot serve: a size, a count or a memory split out of range.
// The message names the setting; the caller's input is at fault (the CLI exits 2).
struct ConfigError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

struct SessionConfig {
  int pits = 6;
  Rules rules;        // the game's rules; the search uses their value rules (Rules::value_rules)
  int max_seeds = 0;  // the most seeds in the pits of any board the session will be asked about
  // Endgame database: a directory (kalah db build), or one already in memory; neither: none.
  std::string database_dir;
  int database_seeds = -1;  // load levels 0..this only (-1: every level the directory holds)
  // The most memory the database's levels take (0: no limit of their own): the complete levels
  // that fit (of those database_seeds allows), then the pairs of the next level from the
  // middle out that fit in what is left, when it is a format-3 file held packed (a partial
  // level: EndgameDatabase::partial_level). Within the memory budget beside the table.
  std::uint64_t database_bytes = 0;
  // Levels of bounds above the exact ones (EndgameDatabase::bound_first: a bit a board, whether
  // the value is above its sublevel's median; format-3 directories held packed). With a memory
  // limit (database_bytes, or a budget the whole database does not fit), the exact levels and
  // bounds that fit (bounds_within: the last level of bounds may hold some pairs); else levels
  // database_seeds + 1 .. + this (database_seeds -1: the top ones filed). kAutoBoundLevels:
  // kDefaultBoundLevels where a memory limit leaves levels of a format-3 database held packed
  // out (levels 0..database_seeds, exact or bounds, with both), else none.
  static constexpr int kAutoBoundLevels = -1;
  static constexpr int kDefaultBoundLevels = 5;
  int database_bound_levels = kAutoBoundLevels;
  // Map the directory's levels from their raw cache files, writing them when missing or
  // stale (EndgameDatabase::load, solver/db/raw_cache.hpp); false: read the level files only.
  bool database_cache = true;
  // Copy the levels mapped from raw caches into this process's own memory, on huge pages
  // (EndgameDatabase::load's private_copy): faster probes where TLB misses are dear, but the
  // memory is no longer shared with other processes mapping the same files.
  bool database_private = false;
  // How the directory's levels are held in memory (the same values either way):
  // as_filed: packed when level 0's file is format 2 (format-2 levels as they are, any format-1
  // level of a mixed directory packed at load), else one byte a board; packed: every
  // level packed to 2-4 bits a board (format-1 levels packed as they load, about half the
  // memory; solver/db/packed_level.hpp); bytes: every level one byte a board (format-2 levels
  // unpacked; the fastest probes).
  enum class DatabaseLayout { as_filed, packed, bytes };
  DatabaseLayout database_layout = DatabaseLayout::as_filed;
  std::shared_ptr<const EndgameDatabase> database;
  // Boards known ahead (an opening book, solver/book): looked up before any search. It must
  // be for the same pits and value rules (else ConfigError).
  std::shared_ptr<const KnownBoards> book;
  std::uint64_t table_bytes = std::uint64_t(1) << 30;  // asked for; capped to the problem
  // Another session's table and busy marks (Session::table_share()), searched by both at
  // once (search/table_share.hpp); table_bytes is then ignored and the table is not counted
  // in this session's memory budget. The sessions must have the same pits, seeds and value
  // rules (else ConfigError).
  std::shared_ptr<search::TableShare> table_share;
  std::uint64_t memory_bytes = 0;                    // for the table and the database together; 0: physical memory
  int threads = 0;                                   // 0: all cores
  bool split_points = true;                          // search::SolverOptions::split_points
  std::function<void(const std::string&)> progress;  // a line per MTD(f) pass of a long value
  std::function<void(const std::string&)> note;      // one-line notes while loading the database (a damaged cache)
  std::function<void(const search::PassRecord&)> on_pass;  // search::SolverOptions::on_pass (thread-safe)
  const std::atomic<bool>* cancel = nullptr;               // once set, work stops with search::Interrupted
  // search::SolverOptions' table bypass and near table (a thread's).
  int table_seeds_above_db = search::SolverOptions::kAutoAboveDatabase;
  std::uint64_t near_table_bytes = search::SolverOptions{}.near_table_bytes;
};

// Whether a database directory scanned as `scan` is held packed under `layout` (as_filed:
// when level 0's file is format 2).
bool holds_packed(SessionConfig::DatabaseLayout layout, const DbScan& scan);

class Session {
 public:
  // Throws ConfigError for a configuration out of range (pits, seeds, threads, a table that
  // does not fit the budget or is too small for exact keys, a board too large to search),
  // DatabaseError for a database that cannot be used.
  explicit Session(SessionConfig config);

  search::Solver& solver() { return *solver_; }
  const search::Solver& solver() const { return *solver_; }
  const SessionConfig& config() const { return config_; }
  int pits() const { return config_.pits; }
  const Rules& rules() const { return config_.rules; }

  const EndgameDatabase* database() const { return database_.get(); }
  const KnownBoards* book() const { return config_.book.get(); }
  // The book's entry for b (false: no book, or b is not in it); counts a hit.
  bool find_in_book(const Board& b, KnownBoard& out);
  std::uint64_t book_hits() const { return book_hits_; }  // boards answered from the book so far
  // Exact values for solver/analysis/analysis.hpp: the book's when it holds the board, else
  // the search's. What every report of a session uses.
  Oracle oracle();
  BestSowings best_sowings_function();
  // The same, to share with other sessions (SessionConfig::database): one copy in memory.
  std::shared_ptr<const EndgameDatabase> shared_database() const { return database_; }
  // The table, to share with other sessions of the same pits, seeds and value rules
  // (SessionConfig::table_share): their searches then build on each other's. Call it between
  // searches.
  std::shared_ptr<search::TableShare> table_share() { return solver_->table_share(); }
  int database_seeds() const { return database_ ? database_->max_seeds() : -1; }  // -1: none
  // Throws ConfigError naming the mismatch when `p` has another pit count than the session
  // or more seeds in its pits than config().max_seeds.
  void check_fits(const Position& p) const;
  double database_seconds() const { return database_seconds_; }  // loading it
  // The database directory's build stopped part way: it holds levels 0..database_seeds(),
  // its build set out to make levels 0..database_target_seeds() (-1: complete or in memory).
  int database_target_seeds() const { return database_target_seeds_; }
  double open_seconds() const { return open_seconds_; }  // opening the session
  // open_seconds() the first time, 0 after: a report's wall time includes opening the
  // session only if it is the session's first.
  double take_open_seconds() {
    const double s = open_seconds_unreported_;
    open_seconds_unreported_ = 0;
    return s;
  }

 private:
  SessionConfig config_;
  std::shared_ptr<const EndgameDatabase> database_;
  std::unique_ptr<search::Solver> solver_;
  std::atomic<std::uint64_t> book_hits_{0};
  double database_seconds_ = 0;
  int database_target_seeds_ = -1;
  double open_seconds_ = 0;
  double open_seconds_unreported_ = 0;
};

// The machine's physical memory in bytes (0 if unknown): the default memory budget.
std::uint64_t physical_memory_bytes();
// The budget a memory_bytes setting gives: itself, or physical memory when 0 (0 if unknown).
inline std::uint64_t memory_budget(std::uint64_t memory_bytes) {
  return memory_bytes ? memory_bytes : physical_memory_bytes();
}
// What the near tables of a session opened from `config` take at most: each thread's, with a
// database (without one the searchers have none).
std::uint64_t near_tables_bytes(const SessionConfig& config);

// Opens `count` sessions for the workers of one process (a proof job's, a labeller's) from
// `config`: the first loads the database, within the memory the other sessions' tables
// leave, and the others share it; they search one table (share_table) or each its share of
// config.table_bytes. `open(c)` opens a session from `c` and returns it (the caller keeps it).
void open_worker_sessions(const SessionConfig& config, int count, bool share_table,
                          const std::function<Session&(const SessionConfig&)>& open);

}  // namespace kalah::api

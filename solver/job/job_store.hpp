// solver/job/job_store.hpp — a proof job's store: one SQLite file, DIR/job.sqlite, in WAL
// mode with synchronous=FULL, so a committed transaction survives a killed process and a
// power cut, and readers (kalah job status) never block the writer.
//
// Tables (docs/job.md has the full schema):
//   meta(key, value)     the job: store version, pits, rules (JSON), position (text), whether
//                        the openings are wanted, creation time; 'report' (JSON) once done
//   node(id, board, seeds, lower, upper, guess, expanded)
//                        the top tree (solver/job/top_tree.hpp): a board as its 2m pit counts,
//                        mover first, ids 0.. in creation order, node 0 the job's position
//   edge(parent, pit, child, stored, extra_turn)
//                        the expansions
//   unit(id, run, node, question, gamma, lower, upper, complete, nodes, seconds, worker, finished)
//                        every unit a worker finished: the question (value or test >= gamma),
//                        the bounds it proved, its effort and who ran it
//   run(id, started, ended, workers, threads, database, host, outcome, in_flight, program)
//   unit_check(id, unit, claimed_lower, claimed_upper, found_lower, found_upper, verdict,
//              budget, nodes, seconds, threads, database, host, finished, program)
//                        a unit solved again by kalah job verify --record: the bounds it
//                        claims, what the new search proved, within which budget (0: none)
//   `program` is the kalah that wrote the row (program_version(): its git commit), NULL in
//   rows written before version 4.
// The file carries SQLite's application id 0x4B4A4F42 ("KJOB") and user_version 4; a file
// without them is refused as foreign, a damaged one by SQLite's quick_check, and every row
// read back is checked (boards, seeds, bounds within the seeds, edges against the sowings).
// One process writes (kalah job run holds DIR/.lock); a finished unit, the bounds it moved
// and any expansion it caused are one transaction.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/position.hpp"
#include "engine/rules.hpp"
#include "solver/job/top_tree.hpp"
#include "solver/sqlite/sqlite.hpp"

namespace kalah::job {

// The store is an SQLite file (solver/sqlite).
using sqlite::Connection;
using sqlite::Statement;
using sqlite::StoreError;
using sqlite::Transaction;

// 2: run.in_flight; 3: unit_check; 4: run.program and unit_check.program. An older store gains
// what it lacks when opened to be written.
inline constexpr int kStoreVersion = 4;
inline constexpr std::int64_t kApplicationId = 0x4B4A4F42;  // "KJOB"
inline constexpr const char* kStoreFile = "job.sqlite";

struct JobSpec {
  int pits = 6;
  Rules rules;           // as given (early end and pie kept for the report; values use value_rules)
  Position position;     // the position the job solves
  bool openings = true;  // also every first sowing and turn, and the pie value (kalah openings)
};

// A unit a worker finished (or gave up over its budget).
struct UnitRecord {
  std::int64_t id = 0;  // the store's number (set when read back; save() numbers a new unit)
  int node = -1;
  bool test = false;  // a test "v >= gamma"; else the value
  int gamma = 0;
  int lower = 0, upper = 0;  // the bounds proven on v(node)
  bool complete = false;     // the question was answered (else over budget or stopped)
  std::uint64_t nodes = 0;
  double seconds = 0;
  std::string worker;
  int run = 0;          // set when read back
  double finished = 0;  // Unix seconds; set when read back
};

// A run as stored: its Unix start and end (the end moves with every unit: a killed run keeps
// its length), its workers and where it ran.
struct RunRecord {
  int id = 0;
  double started = 0, ended = 0;
  int workers = 1, threads = 1;
  std::string database, host;
  std::string outcome;  // empty while running or when killed
  int in_flight = 0;    // units under way at its last commit (0 once ended)
  std::string program;  // the kalah that ran it (program_version()); empty: not recorded
};

// A unit solved again by kalah job verify --record (solver/job/verify.hpp). The claims are
// the unit's bounds at the parity of its board's seeds; a check over its budget proves less
// and is "unchecked".
struct CheckRecord {
  std::int64_t id = 0;  // the store's number (set when read back)
  std::int64_t unit = 0;
  int claimed_lower = 0, claimed_upper = 0;
  int found_lower = 0, found_upper = 0;
  std::string verdict;  // "confirmed", "contradicted" or "unchecked"
  double budget = 0;    // seconds a test (0: none)
  std::uint64_t nodes = 0;
  double seconds = 0;
  int threads = 1;
  std::string database, host;
  double finished = 0;  // Unix seconds; set when saved
  std::string program;  // the kalah that checked (set when saved); empty: not recorded
};

struct RunInfo {
  int workers = 1, threads = 1;
  std::string database;  // the directory, or empty
  std::string host;
};

// What kalah job status shows of the units and runs.
struct StoreTotals {
  std::uint64_t units = 0, complete_units = 0, nodes = 0;
  double unit_seconds = 0;  // summed over units (worker time)
  int runs = 0;
  double run_seconds = 0;  // wall time of all runs
  int last_workers = 0;    // of the latest run
  int last_in_flight = 0;  // units under way at the latest run's last commit
};

class JobStore {
 public:
  // Creates DIR (if needed) and DIR/job.sqlite for `spec`; refuses a DIR that already holds a
  // store. Throws StoreError.
  static void create(const std::filesystem::path& dir, const JobSpec& spec);
  // Opens DIR's store; throws StoreError when it is missing, foreign, damaged or newer.
  JobStore(const std::filesystem::path& dir, bool writable);

  const JobSpec& spec() const { return spec_; }
  const std::filesystem::path& file() const { return file_; }

  // The top tree as stored, every row checked. Throws StoreError naming what is wrong.
  TopTree load_tree();
  // Writes nodes `touched` of `tree` (new or changed: board, bounds, guess, expansion with its
  // edges) and the unit (if any), as one transaction.
  // `run`'s end time and its units under way move with every save.
  void save(const TopTree& tree, std::span<const int> touched, const UnitRecord* unit = nullptr, int run = 0,
            int in_flight = 0);

  // Every unit, in the order the store numbered them (worker, run and time left out). Rows
  // are checked: a node that is not in the tree, an unknown question, bounds crossed.
  std::vector<UnitRecord> units(int tree_size);

  // Every run, by id. begin_run() records this program's version with it.
  std::vector<RunRecord> runs();

  // Every recorded check, by id (none in a store older than version 3). Rows are checked: a
  // unit that is not in the store, an unknown verdict, bounds crossed.
  std::vector<CheckRecord> checks();
  // Records one check (a transaction of its own).
  void save_check(const CheckRecord& check);

  // Nodes that have had a unit asking their value (answered or not).
  std::vector<int> nodes_asked_value();

  int begin_run(const RunInfo& info);
  // Ends `run` with its outcome and, when the job is done, its report: one transaction.
  void finish_run(int run, const std::string& outcome, const std::string* report_json);

  std::optional<std::string> report();
  StoreTotals totals();

  // Reads between begin_snapshot() and end_snapshot() see one state of the store, whatever a
  // run commits meanwhile (kalah job status while a run works).
  void begin_snapshot() { db_->exec("BEGIN"); }
  void end_snapshot() { db_->exec("COMMIT"); }

 private:
  std::filesystem::path file_;
  std::unique_ptr<Connection> db_;
  bool has_in_flight_ = true;
  bool has_checks_ = true;   // the unit_check table (version 3)
  bool has_program_ = true;  // run.program and unit_check.program (version 4)
  bool writable_ = false;
  JobSpec spec_;
};

}  // namespace kalah::job

// solver/search/table_share.hpp — a transposition table and its busy marks as the Solvers
// searching them see it (one Solver, or several of one process: a proof job's or a
// labeller's workers), and the table's growth while none of them is in it.
//
// Every Solver searches its table through a share; handing the share to other Solvers
// (Solver::table_share, SolverOptions::share) lets them build on each other's proofs, and
// with one set of busy marks (busy_table.hpp) each puts off the boards another is searching,
// as one Solver's threads do. The table starts small and doubles when an eighth of its
// entries are in use (solver.cpp, "Growth"), but growth moves entries between buckets, so
// nobody may probe or store during it:
//   - every access to the table runs between enter() and leave();
//   - searchers count the entries they put in empty slots, in batches (fill_batch) added
//     with add_fills(); the batch that reaches the growth point asks for growth, which sets
//     every member's stop flag, so searches under way unwind, and enter() waits;
//   - the last member to leave() grows the table, clears the stop flags and lets them in;
//   - leave() says whether a growth was asked for while the caller was in, so a search it
//     stopped is run again (every bound proven before stays in the table).
// Members must key boards alike: the same pit count, seed cap and value rules (join checks).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "engine/rules.hpp"
#include "solver/search/busy_table.hpp"
#include "solver/search/transposition_table.hpp"

namespace kalah::search {

class TableShare {
 public:
  // A share of `table` (empty), for Solvers of `pits` pits, at most `max_seeds` seeds and
  // `rules`' values.
  TableShare(std::unique_ptr<TranspositionTable> table, int pits, int max_seeds, const Rules& rules);
  TableShare(const TableShare&) = delete;
  TableShare& operator=(const TableShare&) = delete;

  TranspositionTable& table() const { return *table_; }
  BusyTable& busy() { return busy_; }
  int doublings() const { return doublings_.load(std::memory_order_relaxed); }

  // A Solver joins with its stop flag (set to make its searchers unwind) and thread count;
  // returns the busy-mark id of its first searcher (busy_table.hpp: ids below 65535, reused
  // beyond that, which at worst costs lost work). Throws std::invalid_argument when the
  // Solver would key boards differently.
  int join(std::atomic<bool>* stop, int threads, int pits, int max_seeds, const Rules& rules);
  void quit(std::atomic<bool>* stop, int threads);

  // Access to the table: enter() waits while a growth is asked for or under way; leave()
  // returns true when a growth was asked for while the caller was in (a search it ran may
  // have been stopped); the table has grown by the time it returns.
  void enter();
  bool leave();

  // `n` more entries went into empty slots; at an eighth of the capacity, growth is asked for.
  void add_fills(std::uint64_t n);
  // How many entries a searcher counts before calling add_fills (small against the growth
  // point, so the table grows near it; a shared counter a store would cost a contended line).
  std::uint64_t fill_batch() const { return fill_batch_.load(std::memory_order_relaxed); }

 private:
  void ask_growth();        // with mutex_ held
  void set_growth_point();  // with mutex_ held, or before any search
  std::unique_ptr<TranspositionTable> table_;
  BusyTable busy_;
  int pits_, max_seeds_;
  Rules rules_;

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::atomic<bool>*> stops_;  // the members'
  int threads_ = 0;                        // the members' together (growth runs on as many, up to the cores)
  int next_mark_ = 0;
  int inside_ = 0;  // members between enter() and leave()
  bool growth_asked_ = false;
  std::uint64_t generation_ = 0;  // growths done
  std::atomic<std::uint64_t> fills_{0};
  std::atomic<std::uint64_t> grow_at_{UINT64_MAX};
  std::atomic<std::uint64_t> fill_batch_{1};
  std::atomic<int> doublings_{0};
};

}  // namespace kalah::search

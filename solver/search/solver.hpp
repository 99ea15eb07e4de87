// solver/search/solver.hpp — the exact solver: MTD(f) driver over the alpha-beta search,
// parallel passes on a shared table, and an Oracle for solver/analysis/analysis.hpp.
//
// value(b) returns the exact remainder value of a board (engine/board.hpp). It is found by
// MTD(f): a sequence of null-window searches around a guess, each proving a bound, until the
// lower and upper bounds meet. With a database the first guess is the last value of an
// iterative deepening (shallow passes that also leave best sowings in the table); without
// one, a quick depth-limited estimate (estimate.hpp) on large boards, 0 on small ones. With
// T > 1 threads one searcher walks each pass's tree and the others search the children of
// its nodes after the first (split points, split_point.hpp); or, with split_points off,
// all T walk it on the same window, each putting off the children others are in
// (busy_table.hpp), and the first to finish decides the pass. The table is shared and
// lock-free.
// Every bound in the table is proven, so the value is the same for any thread count; only
// node counts vary.
//
// A Solver is for one pit count, one rule set (values to the natural end: early end and the
// pie rule are handled by the caller) and boards with at most max_seeds seeds in the pits.
// Its table carries over between calls, so reuse one Solver for related positions.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "engine/board.hpp"
#include "engine/rules.hpp"
#include "solver/analysis/analysis.hpp"
#include "solver/search/alphabeta.hpp"
#include "solver/search/endgame_probe.hpp"
#include "solver/search/estimate.hpp"
#include "solver/search/table_share.hpp"
#include "solver/search/transposition_table.hpp"

namespace kalah::search {

// One MTD(f) pass as it ended (SolverOptions::on_pass; `kalah solve --trace-passes`): what it
// tested, where, how, and what it cost. A pass stopped for the table to grow and run again
// is one record (its cost both runs').
struct PassRecord {
  // What the pass was for: a value's iterative deepening or its exact passes, a test's
  // (value_at_least, a full solve's tests of sowings) deepening or its exact pass.
  enum class Purpose : std::uint8_t { value_deepening, value, test_deepening, test };
  int solver = 0;          // 0: the Solver called; i > 0: its i-th test helper (tests side by side)
  std::uint64_t pass = 0;  // that Solver's count of passes, this one included
  Purpose purpose = Purpose::value;
  int seeds = 0;                          // seeds in the board's pits
  int seeds_above_database = 0;           // of those, above the database's exact levels (none: all)
  int depth = 0;                          // sowings looked ahead (a shallow pass); 0: to the end (exact)
  int gamma = 0;                          // the pass tested "value >= gamma"
  NodeKind expected = NodeKind::unknown;  // what it expected of its root (where split points open)
  bool ordered = false;                   // an ordered shallow pass (SolverOptions::ordered_shallow)
  bool alone = false;                     // on the walker alone (one thread, or the others out of it)
  int result = 0;                         // fail-soft: a lower bound if >= gamma, else an upper bound
  std::uint64_t nodes = 0;                // the Solver's nodes in the pass, all its searchers
  std::uint64_t discarded_nodes = 0;      // of those, the ones a cut at a split point threw away
  std::uint64_t split_points = 0;
  double seconds = 0;       // wall time
  double idle_seconds = 0;  // its searchers' wait for work, all together
};

struct SolverOptions {
  // Table memory. A problem whose boards (at most max_seeds seeds) are fewer than the table's
  // entries gets a smaller table: the smallest power-of-two number of buckets with an entry
  // for every such board (table_bytes() tells the size used).
  std::size_t table_bytes = std::size_t(256) << 20;
  // The table starts at this size (or the smallest with room for exact keys) and doubles,
  // up to table_bytes, whenever an eighth of its entries are in use (transposition_table.hpp,
  // "Growth"): a small problem touches little memory. 0: table_bytes from the start.
  std::size_t table_initial_bytes = std::size_t(16) << 20;
  // Another Solver's table and busy marks (Solver::table_share()): the Solvers search them at
  // the same time, as one Solver's threads do (every bound in the table is proven, so each
  // Solver's values are as exact as alone), and the table grows while none of them is in it
  // (table_share.hpp). table_bytes and table_initial_bytes are then ignored. The Solver must
  // be for the same pits, seed cap and value rules (else std::invalid_argument).
  std::shared_ptr<TableShare> share;
  int threads = 1;  // <= 0: all cores (omp_get_max_threads)
  // With more than one thread: one searcher walks the tree and the others search the
  // children of its nodes after the first (split points, split_point.hpp); false: every
  // searcher walks the tree from the root, putting off the children others are in (busy marks,
  // busy_table.hpp).
  bool split_points = true;
  // Where split points open (NodeKind, split_point.hpp): by what each pass expects of its root
  // (the default); by no kind (every node's as a test's, after two children; session 47's rule
  // was after the first); or by the opposite of what each pass expects (for tests: every
  // expectation wrong, the values the same).
  enum class SplitKinds { expected, none, inverted };
  SplitKinds split_kinds = SplitKinds::expected;
  // Which shallow passes (iterative deepening) are ordered: their table stores held back until
  // the pass ends and a cut at a split point stopping only the children after it, so the table
  // they leave does not depend on the threads' timing (split_point.hpp). By default those split
  // among threads on a board below tall (under 28 seeds above the database), whose exact passes
  // a timing-dependent table costs most (Kalah(5,5): docs/search.md, "Ordered shallow passes"),
  // and a test's deepening on any board (its passes short, to the iteration budget; `never`:
  // on the walker alone); on a tall board's value the held stores would hide a long pass's
  // own transpositions from it. `always`:
  // one thread's too (for tests: any number of threads leaves the same table, slot by slot,
  // while no bucket has to evict, whose choice weighs each searcher's own node count). Never
  // with busy marks or a table other Solvers share (Solver::table_share), whose timing would
  // decide again.
  enum class OrderedShallow { split_below_tall, always, never };
  OrderedShallow ordered_shallow = OrderedShallow::split_below_tall;
  EndgameProbe probe;  // no database by default
  // MTD(f)'s first guess for a board with many seeds (28 or more) and no iterative deepening
  // (no database, or deepening_step 0): a depth-limited estimate (estimate.hpp) searching
  // about this many nodes; 0: start from 0.
  std::uint64_t estimate_nodes = std::uint64_t(1) << 20;
  // With a database: boards fewer than this many seeds above the database's bypass the
  // transposition table (alphabeta.hpp, SearchContext::table_min_seeds); 0: none do;
  // kAutoAboveDatabase: 12 with a near table (below), 8 without (the measured best of each,
  // docs/search.md "A near table").
  static constexpr int kAutoAboveDatabase = -1;
  int table_seeds_above_db = kAutoAboveDatabase;
  // With a database: each searcher's own table for the boards below the shared one
  // (near_table.hpp), at most this many bytes (a power of two of 16-byte entries), sized to
  // stay in a core's cache; 0: none. Not used for 8 pits a side (no room in an entry).
  std::size_t near_table_bytes = std::size_t(256) << 10;
  // Iterative deepening before the exact passes (the table learns best sowings for move
  // ordering, and the last shallow value is MTD(f)'s first guess): MTD(f) searches to
  // deepening_step, 2 deepening_step, ... sowings, up to deepening_max_depth, stopping after
  // an iteration that searched deepening_iteration_nodes nodes or more a thread; in a value's
  // deepening (not a test's) on a board at least 28 seeds above the database (a tall board)
  // whose iteration's cut-offs still
  // overturned the static move order (children.hpp) at more than deepening_reorder_share of
  // its fail-high nodes, after one that searched deepening_reorder_nodes or more a thread
  // instead (docs/search.md, "The deepening's budget"). "A thread": the busiest searcher's
  // nodes with busy marks, where each walks the tree; with split points, where the searchers
  // share one tree, all nodes but those a cut threw away (Solver::discarded_nodes). step 0: none.
  int deepening_step = 3;
  int deepening_max_depth = 30;
  std::uint64_t deepening_iteration_nodes = std::uint64_t(1) << 17;
  std::uint64_t deepening_reorder_nodes = std::uint64_t(1) << 23;
  double deepening_reorder_share = 0.03;
  // Called after every MTD(f) pass of a top-level value() call that has run for at least
  // progress_after seconds, with a one-line summary.
  std::function<void(const std::string&)> progress;
  double progress_after = 1.0;
  // Called after every pass, with what it was and cost (a trace; null: none). The test
  // helpers of a full solve's tests side by side call it too, from their threads, at the same
  // time as this Solver (PassRecord::solver tells them apart): it must be thread-safe.
  std::function<void(const PassRecord&)> on_pass;
  // When set (e.g. by a signal handler), the search stops within a few nodes and the call
  // under way throws Interrupted. Bounds proven before stay in the table.
  const std::atomic<bool>* cancel = nullptr;
};

// A call interrupted through SolverOptions::cancel. [lower, upper] bounds the remainder
// value of the board the call was about, as proven before the interruption.
struct Interrupted : std::runtime_error {
  Interrupted(int lower_bound, int upper_bound)
      : std::runtime_error("interrupted"), lower(lower_bound), upper(upper_bound) {}
  int lower, upper;
};

class Solver {
 public:
  Solver(int pits, const Rules& rules, int max_seeds, SolverOptions options = {});
  ~Solver();
  Solver(const Solver&) = delete;
  Solver& operator=(const Solver&) = delete;

  // The table size a Solver gets when asked for `requested` bytes (SolverOptions::table_bytes).
  static std::size_t table_bytes_for(int pits, int max_seeds, std::size_t requested);
  // The least table with room for exact keys of boards with max_seeds seeds (at most kTagBits
  // of a key above the bucket index): smaller ones are refused (SIZE_MAX: none fits).
  static std::size_t min_table_bytes(int pits, int max_seeds);
  // The most memory the searchers' near tables take (near_table_bytes a thread, rounded down
  // to a power of two entries; none above NearTable::kMaxPits pits), `threads` as in
  // SolverOptions (0: all cores).
  static std::size_t near_tables_bytes(int pits, int threads, std::size_t near_table_bytes);

  // Exact remainder value of b (mover to move). Throws std::invalid_argument when b holds
  // more than max_seeds seeds in the pits, Interrupted when cancelled.
  int value(const Board& b);
  // Is value(b) >= gamma? One null-window search (cheaper than the exact value); on a board
  // 30 seeds or more above the database, after an iterative deepening (value()'s, without
  // its extension for reordering shallow passes, on one thread).
  bool value_at_least(const Board& b, int gamma) { return test(b, gamma) >= gamma; }
  // The same search, fail-soft: a bound r with value(b) >= r when r >= gamma, value(b) <= r
  // when r < gamma. Throws Interrupted when cancelled.
  int test(const Board& b, int gamma);
  // The sowings (0-based pits) of b's mover that attain value(b), by null-window tests of
  // each sowing against the value; empty when b is terminal. On T > 1 threads with split
  // points, a board that is not tall with at least T sowings has its tests searched side by
  // side, a thread each (one-thread Solvers on this one's table; their nodes and passes count
  // in nodes() and passes()).
  std::vector<int> best_sowings(const Board& b);
  // The same for a non-terminal board whose value is known (value(b)); with first_only, only
  // the line's sowing: the first of line_order (analysis.hpp) that attains it, whose test the
  // value's passes have most often answered already (docs/search.md, "The full solve's line").
  std::vector<int> best_sowings(const Board& b, int value, bool first_only);
  // The iterative deepening's estimate of b's remainder value alone: value()'s shallow passes
  // to their budget (with a database; without one, what the table knows, clamped to 0), which
  // leave best sowings in the table. Exact at terminal and database boards and where the table
  // has the value; else never a bound. Throws Interrupted when cancelled.
  int deepened_estimate(const Board& b);
  // A quick, inexact estimate of b's remainder value searching about `nodes` nodes
  // (estimate.hpp): exact at terminal and database boards, never a bound; the table is not
  // touched. For guesses outside MTD(f) (which way a proof will go: solver/job/work_estimate).
  Estimate estimate(const Board& b, std::uint64_t nodes) const;
  // An oracle for solver/analysis/analysis.hpp (refers to this solver).
  Oracle oracle() {
    return [this](const Board& b) { return value(b); };
  }

  BestSowings best_sowings_function() {
    return [this](const Board& b, int value, bool first_only) { return best_sowings(b, value, first_only); };
  }

  int pits() const { return ctx_.pits; }
  int threads() const { return threads_; }
  std::uint64_t nodes() const;   // nodes searched so far, all threads, all calls
  std::uint64_t passes() const;  // MTD(f) passes so far
  // Of those, the ones ordered (SolverOptions::ordered_shallow: their table one thread's).
  std::uint64_t ordered_passes() const;
  // With split points (SolverOptions::split_points): how many the searchers opened so far,
  // and the seconds they spent, all threads together, waiting for work (CPU time too: they
  // spin; and the other threads' wall time while a test deepens on the walker alone), and the
  // nodes of theirs that a cut threw away (Searcher::discarded_nodes).
  std::uint64_t split_points() const;
  std::uint64_t cut_split_points() const;   // of those, the ones at nodes expected to fail high
  std::uint64_t near_split_points() const;  // and the ones at boards below the table (search_near)
  double idle_seconds() const;
  std::uint64_t discarded_nodes() const;
  // The first guess of the exact passes of the latest value() call (the last
  // iterative-deepening estimate when there was one), and the depth-limited estimate that
  // started it (depth 0: none). None when that call ran no pass (a terminal or database board,
  // bounds the table had already closed, a cancel before the first pass) and after
  // forget_first_guess(): a caller never reads another board's guess as this one's.
  const std::optional<Estimate>& first_guess() const { return first_guess_; }
  // The deepest iteration of the iterative deepening of the latest value() call (0: none).
  int deepening_depth() const { return deepening_depth_; }
  // Clears both, for a caller whose next value may come from elsewhere (a book).
  void forget_first_guess() {
    first_guess_.reset();
    deepening_depth_ = 0;
  }
  // The table's size reached so far, entries, and entries in use (a scan); a shared table's
  // are read while no member can grow it.
  std::size_t table_bytes() const;
  std::size_t table_max_bytes() const { return table_->max_bytes(); }
  // Doublings of the table (a shared one's, by whichever Solver).
  int table_doublings() const { return share_->doublings(); }
  // Was the table made smaller than asked because the problem has fewer boards?
  bool table_capped() const { return table_capped_; }
  std::size_t table_capacity() const;
  std::size_t table_used() const;
  // A checksum of the table's entries, slot by slot (keys, bounds and sowings, not the work,
  // which depends on which searcher searched what): searches that left the same table give the
  // same (tests of ordered shallow passes, SolverOptions::ordered_shallow).
  std::uint64_t table_digest() const;

 private:
  // One null-window pass; throws Interrupted([lower, upper]) when cancelled during it. A
  // pass stopped for the table to grow is run again on the doubled table. `root`: what the
  // pass expects of its result (where its split points open: NodeKind, split_point.hpp).
  // `purpose`: what the pass is for (SolverOptions::on_pass).
  int pass(const Board& b, int k, int alpha, int beta, int lower, int upper, int depth, NodeKind root,
           PassRecord::Purpose purpose);
  // What a test of "value >= gamma" after the guess `guess` expects: a fail high at or below
  // the guess (the root a cut node), a fail low above it (an all node); as
  // SolverOptions::split_kinds asks.
  NodeKind expected_at(int gamma, int guess) const;
  // Iterative deepening before the exact passes: shallow MTD(f) searches that leave best
  // sowings in the table; returns the last shallow value (a guess). `may_extend`: a tall
  // board whose shallow passes still reorder may deepen to deepening_reorder_nodes (a
  // value's deepening); false for a test's, which stops at deepening_iteration_nodes (the
  // value's passes have ordered the table already: docs/search.md, "A test's deepening").
  int deepen(const Board& b, int k, int guess, int lower, int upper, bool may_extend);
  // What the table knows of b (k seeds): its bounds within the seeds-in-play bounds.
  std::pair<int, int> known_bounds(const Board& b, int k) const;

 public:
  // This Solver's table and busy marks, for SolverOptions::share of other Solvers of the same
  // pits, seed cap and value rules; from the first call on, this Solver marks the boards it
  // searches even with one thread. Call it between searches, not during one.
  std::shared_ptr<TableShare> table_share();

 private:
  std::uint64_t horizon_boards() const;
  Searcher::ShallowCuts shallow_cuts() const;
  // This Solver's searchers' counts alone (not the test helpers'): for its own passes'
  // budgets and progress lines, read while the helpers may be searching.
  std::uint64_t own_nodes() const;
  std::uint64_t own_discarded_nodes() const;
  std::uint64_t own_split_points() const;
  double own_idle_seconds() const;
  // Does sowing `pit` of b attain `target` (b's value)? One null-window test.
  bool sowing_attains(const Board& b, int pit, int target);
  // attains[i] = sowing_attains(b, pits[i], target) for i < n (n >= threads), the tests
  // side by side: a thread each, this Solver's walker and the test helpers' on its table;
  // a thread without a test left helps the other walkers at their split points.
  void tests_side_by_side(const Board& b, int target, const int* pits, int n, bool* attains);
  int seeds_checked(const Board& b) const;
  // Seeds of a board of k seeds above the database's exact levels (without one: k).
  int seeds_above_database(int k) const;
  // A board of k seeds is tall 28 seeds or more above the database (kTallAboveDatabase;
  // without one, from 28 seeds): the long deepening (and, without a database, the first
  // guess's estimate) are for it.
  bool is_tall(int k) const;
  // Is a pass to `depth` sowings of a board with k seeds ordered (SolverOptions::ordered_shallow)?
  bool ordered_pass(int k, int depth) const;
  // Does a test's deepening run as ordered split passes (else on the walker alone)?
  bool ordered_test_deepening() const;

  std::shared_ptr<TableShare> share_;  // this Solver's alone until handed out
  TranspositionTable* table_;          // share_->table()
  SearchContext ctx_;
  std::unique_ptr<SplitPool> split_pool_;  // with split points
  std::vector<std::unique_ptr<Searcher>> searchers_;
  int threads_ = 1;
  std::uint64_t passes_ = 0;
  std::uint64_t ordered_passes_ = 0;
  SolverOptions options_;
  bool table_capped_ = false;
  std::optional<Estimate> first_guess_;
  int deepening_depth_ = 0;
  // Solvers on this one's table for the root's tests side by side (made at the first full
  // solve on more than one thread; as many searchers as this one, to help each other's last
  // tests), and whether a pass runs on the walker alone (the others help only when idle).
  std::vector<std::unique_ptr<Solver>> test_helpers_;
  bool walker_alone_ = false;
  // Whether a test's deepening is running (its shallow passes ordered: ordered_test_deepening).
  bool test_deepening_ = false;
  // The other threads' seconds of waiting while a test deepened on the walker alone.
  double alone_idle_seconds_ = 0;
  // This Solver's number among a test's walkers (PassRecord::solver): 0, or i for the i-th test helper.
  int walker_number_ = 0;
};

}  // namespace kalah::search

#include "solver/search/solver.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "solver/base/value_bounds.hpp"
#include "solver/search/estimate.hpp"

namespace kalah::search {

namespace {
// Boards are marked busy in a parallel search, and share their children at split points, only
// from this many seeds above the database's: below, subtrees are too small for either to pay.
constexpr int kBusySeedsAboveDatabase = 4;
// A board this many seeds above the database or more (or with none) is tall: only there may
// the iterative deepening go deep, and only there, without a database, does MTD(f) start
// from an estimate. Below, the exact passes are cheap and neither would pay.
constexpr int kTallAboveDatabase = 28;
// A null-window test deepens first from this many seeds above the database: the value's
// passes have ordered the table for the root's sowings already, and lower a test's shallow
// passes cost more than they save (Kalah(6,4) at the 20-seed memory, children 28-29 seeds
// above: tests 2.19 -> 0.54 M nodes without them; Kalah(5,6), 31-32 above: 40.5 M with them,
// 132.4 M without; docs/search.md, "A test's deepening").
constexpr int kTestDeepensAboveDatabase = 30;
// The default table bypass (SolverOptions::table_seeds_above_db): with the boards below the
// shared table in each searcher's near table, and without (docs/search.md, "A near table").
constexpr int kAboveDatabaseWithNearTable = 12;
constexpr int kAboveDatabaseAlone = 8;
// MTD(f) passes at most per iteration of the iterative deepening.
constexpr int kShallowPasses = 8;
// log2 of a searcher's near-table entries for `bytes` a table (0: none; none above 7 pits).
int near_table_bits(int pits, std::size_t bytes) {
  return pits <= NearTable::kMaxPits ? NearTable::bits_within(bytes) : 0;
}
}  // namespace

// The requested table size, capped at the smallest power-of-two bucket count with an entry
// for every board with at most max_seeds seeds (a bigger table could never fill up; on a
// small problem its pages would only cost time to fault in and zero).
std::size_t Solver::table_bytes_for(int pits, int max_seeds, std::size_t requested) {
  const std::uint64_t boards = BoardKey(pits, std::max(max_seeds, 0)).boards();
  std::size_t bytes = TranspositionTable::kBucketBytes;
  while (bytes / sizeof(std::uint64_t) < boards && bytes < requested) bytes *= 2;
  return std::min(bytes, requested);
}

std::size_t Solver::min_table_bytes(int pits, int max_seeds) {
  const int key_bits = BoardKey(pits, std::max(max_seeds, 0)).bits();
  const int index_bits = std::max(key_bits - TranspositionTable::kTagBits, 0);
  return index_bits >= 40 ? SIZE_MAX : TranspositionTable::kBucketBytes << index_bits;
}

namespace {
// The table's starting size: as asked, but with room for exact keys.
std::size_t initial_table_bytes(int pits, int max_seeds, std::size_t asked) {
  if (asked == 0) return 0;
  return std::max(asked, Solver::min_table_bytes(pits, max_seeds));
}
}  // namespace

namespace {
std::shared_ptr<TableShare> share_for(int pits, const Rules& rules, int max_seeds, const SolverOptions& options) {
  if (options.share) return options.share;
  return std::make_shared<TableShare>(
      std::make_unique<TranspositionTable>(Solver::table_bytes_for(pits, max_seeds, options.table_bytes),
                                           initial_table_bytes(pits, max_seeds, options.table_initial_bytes)),
      pits, std::max(max_seeds, 0), rules);
}
}  // namespace

Solver::Solver(int pits, const Rules& rules, int max_seeds, SolverOptions options)
    : share_(share_for(pits, rules, max_seeds, options)), table_(&share_->table()), options_(std::move(options)) {
  const bool joined = options_.share != nullptr;  // another Solver's share
  options_.share.reset();                         // held in share_
  table_capped_ = !joined && table_bytes_for(pits, max_seeds, options_.table_bytes) < options_.table_bytes;
  ctx_.pits = pits;
  ctx_.rules = rules.value_rules();
  ctx_.key = BoardKey(pits, std::max(max_seeds, 0));
  ctx_.table = table_;
  ctx_.share = share_.get();
  ctx_.probe = options_.probe;
  // The move generator's tables; with an in-memory database, its indexing too.
  const BoardIndexer no_database(pits, 0);
  const BoardIndexer& indexer = ctx_.probe.database ? ctx_.probe.database->indexer() : no_database;
  ctx_.sowing = std::make_unique<base::SowTables>(indexer, std::max(max_seeds, 0));
  if (ctx_.key.bits() - table_->index_bits() > TranspositionTable::kTagBits)
    throw std::length_error("the transposition table is too small for exact keys of boards with " +
                            std::to_string(max_seeds) + " seeds (" + std::to_string(ctx_.key.bits()) +
                            "-bit keys, at most " + std::to_string(TranspositionTable::kTagBits) +
                            " tag bits): give it more memory");
  threads_ = options_.threads > 0 ? options_.threads : omp_get_max_threads();
  // Marks pay with other searchers beside this one's: its own threads (unless they share
  // split points), or another Solver's.
  const bool splits = threads_ > 1 && options_.split_points;
  ctx_.parallel = (threads_ > 1 && !splits) || joined;
  if (splits) {
    split_pool_ = std::make_unique<SplitPool>(threads_);
    ctx_.split = split_pool_.get();
  }
  ctx_.cancel = options_.cancel;
  const int near_bits = near_table_bits(pits, options_.near_table_bytes);
  const int above = options_.table_seeds_above_db != SolverOptions::kAutoAboveDatabase
                        ? options_.table_seeds_above_db
                        : (near_bits > 0 ? kAboveDatabaseWithNearTable : kAboveDatabaseAlone);
  if (ctx_.probe.max_seeds >= 0 && above > 0) ctx_.table_min_seeds = ctx_.probe.max_seeds + above;
  if (ctx_.table_min_seeds > 0 && ctx_.table_min_seeds - 1 <= NearTable::kMaxSeeds) ctx_.near_table_bits = near_bits;
  // (A board below the table has no key to mark; it may still share its children.)
  ctx_.busy_min_seeds = std::max(std::max(ctx_.probe.max_seeds, 0) + kBusySeedsAboveDatabase, ctx_.table_min_seeds);
  ctx_.split_min_seeds = std::max(ctx_.probe.max_seeds, 0) + kBusySeedsAboveDatabase;
  const int first_mark = share_->join(&ctx_.stop, threads_, pits, ctx_.key.max_seeds(), ctx_.rules);
  for (int t = 0; t < threads_; ++t)
    searchers_.push_back(std::make_unique<Searcher>(ctx_, (first_mark + t) % BusyTable::kMarks, t));
}

std::size_t Solver::near_tables_bytes(int pits, int threads, std::size_t near_table_bytes) {
  const int bits = near_table_bits(pits, near_table_bytes);
  if (bits == 0) return 0;
  return (NearTable::kEntryBytes << bits) * static_cast<std::size_t>(threads > 0 ? threads : omp_get_max_threads());
}

Solver::~Solver() { share_->quit(&ctx_.stop, threads_); }

std::shared_ptr<TableShare> Solver::table_share() {
  ctx_.parallel = true;  // other Solvers' searchers will search beside this one's
  return share_;
}

namespace {
// Access to the table for one scope (TableShare::enter and leave).
class TableAccess {
 public:
  explicit TableAccess(TableShare& share) : share_(&share) { share_->enter(); }
  ~TableAccess() { leave(); }
  TableAccess(const TableAccess&) = delete;
  TableAccess& operator=(const TableAccess&) = delete;
  // Leave now; true when the table was to grow meanwhile (a search may have been stopped).
  bool leave() {
    TableShare* const s = std::exchange(share_, nullptr);
    return s && s->leave();
  }

 private:
  TableShare* share_;
};
}  // namespace

std::size_t Solver::table_bytes() const {
  const TableAccess access(*share_);
  return table_->bytes();
}

std::size_t Solver::table_capacity() const {
  const TableAccess access(*share_);
  return table_->capacity();
}

std::size_t Solver::table_used() const {
  const TableAccess access(*share_);
  return table_->used();
}

std::uint64_t Solver::table_digest() const {
  const TableAccess access(*share_);
  return table_->digest();
}

std::pair<int, int> Solver::known_bounds(const Board& b, int k) const {
  const TableAccess access(*share_);
  const BoardKey::Split key = ctx_.key.split(b, table_->index_bits());
  const TableEntry known = table_->probe(key.index, key.tag);
  return {std::max(base::min_value(k, ctx_.rules), known.lower), std::min(base::max_value(k), known.upper)};
}

namespace {
// The sum of a counter over a Solver's searchers (or its test helpers).
template <class T, class Each, class Count>
T sum_over(const std::vector<Each>& each, Count count) {
  T n{};
  for (const auto& e : each) n += count(*e);
  return n;
}
}  // namespace

std::uint64_t Solver::own_nodes() const {
  return sum_over<std::uint64_t>(searchers_, [](const Searcher& s) { return s.nodes(); });
}
std::uint64_t Solver::own_discarded_nodes() const {
  return sum_over<std::uint64_t>(searchers_, [](const Searcher& s) { return s.discarded_nodes(); });
}
std::uint64_t Solver::own_split_points() const {
  return sum_over<std::uint64_t>(searchers_, [](const Searcher& s) { return s.split_points(); });
}
double Solver::own_idle_seconds() const {
  return alone_idle_seconds_ + sum_over<double>(searchers_, [](const Searcher& s) { return s.idle_seconds(); });
}
std::uint64_t Solver::nodes() const {
  return own_nodes() + sum_over<std::uint64_t>(test_helpers_, [](const Solver& h) { return h.nodes(); });
}
std::uint64_t Solver::passes() const {
  return passes_ + sum_over<std::uint64_t>(test_helpers_, [](const Solver& h) { return h.passes(); });
}
std::uint64_t Solver::ordered_passes() const {
  return ordered_passes_ + sum_over<std::uint64_t>(test_helpers_, [](const Solver& h) { return h.ordered_passes(); });
}
std::uint64_t Solver::cut_split_points() const {
  return sum_over<std::uint64_t>(searchers_, [](const Searcher& s) { return s.cut_split_points(); }) +
         sum_over<std::uint64_t>(test_helpers_, [](const Solver& h) { return h.cut_split_points(); });
}
std::uint64_t Solver::near_split_points() const {
  return sum_over<std::uint64_t>(searchers_, [](const Searcher& s) { return s.near_split_points(); }) +
         sum_over<std::uint64_t>(test_helpers_, [](const Solver& h) { return h.near_split_points(); });
}
std::uint64_t Solver::split_points() const {
  return own_split_points() + sum_over<std::uint64_t>(test_helpers_, [](const Solver& h) { return h.split_points(); });
}
std::uint64_t Solver::discarded_nodes() const {
  return own_discarded_nodes() +
         sum_over<std::uint64_t>(test_helpers_, [](const Solver& h) { return h.discarded_nodes(); });
}
double Solver::idle_seconds() const {
  return own_idle_seconds() + sum_over<double>(test_helpers_, [](const Solver& h) { return h.idle_seconds(); });
}
std::uint64_t Solver::horizon_boards() const {
  return sum_over<std::uint64_t>(searchers_, [](const Searcher& s) { return s.horizon_boards(); });
}

Searcher::ShallowCuts Solver::shallow_cuts() const {
  Searcher::ShallowCuts sum;
  for (const auto& s : searchers_) {
    sum.cuts += s->shallow_cuts().cuts;
    sum.reordered += s->shallow_cuts().reordered;
  }
  return sum;
}

int Solver::deepen(const Board& b, int k, int guess, int lower, int upper, bool may_extend) {
  const auto t0 = std::chrono::steady_clock::now();
  const bool extendable = may_extend && is_tall(k);
  for (int depth = options_.deepening_step; options_.deepening_step > 0 && depth <= options_.deepening_max_depth;
       depth += options_.deepening_step) {
    // MTD(f) on the shallow values: they are estimates, of any parity, and not bounds of
    // each other, so the passes stop after a few even if the window has not closed.
    int lo = -k - 1, hi = k + 1;
    const std::uint64_t horizon0 = horizon_boards();
    const std::uint64_t nodes0 = own_nodes(), discarded0 = own_discarded_nodes();
    std::vector<std::uint64_t> searcher_nodes0;
    for (const auto& s : searchers_) searcher_nodes0.push_back(s->nodes());
    const Searcher::ShallowCuts cuts0 = shallow_cuts();
    for (int p = 0; p < kShallowPasses && lo < hi; ++p) {
      const int gamma = std::clamp(guess == lo ? guess + 1 : guess, lo + 1, hi);
      const int r = pass(b, k, gamma - 1, gamma, lower, upper, depth, expected_at(gamma, guess),
                         may_extend ? PassRecord::Purpose::value_deepening : PassRecord::Purpose::test_deepening);
      if (r < gamma)
        hi = r;
      else
        lo = r;
      guess = r;
    }
    deepening_depth_ = depth;
    const std::uint64_t used = own_nodes() - nodes0;
    // The budget is the busiest searcher's: each searcher of a shallow pass searches most of
    // the shallow tree (Kalah(5,5) to 18 sowings: 98.6 K nodes on one thread, 132-196 K on
    // two), so the iterations' total would stop the deepening shallower the more threads there
    // are, and their mean, which varies by run, stopped Kalah(6,4) at the 24-seed memory after
    // 18 sowings (196 K nodes on one thread) in some runs on two threads and after 21 (1.06 M
    // more) in others.
    // With split points the searchers share one tree: the iteration's cost is all their nodes
    // but those a cut threw away, which one searcher would mostly not have searched (Kalah(5,5)
    // to 18 sowings: 106-141 K nodes on two threads, over the budget in 5 of 12 runs, and the
    // deepening then stopped there, 1.9-2.5 M nodes in all instead of 1.3-1.8 M; less the
    // discarded ones 98-124 K).
    std::uint64_t cost = used - (own_discarded_nodes() - discarded0);
    if (!ctx_.split) {
      cost = 0;
      for (std::size_t i = 0; i < searchers_.size(); ++i)
        cost = std::max(cost, searchers_[i]->nodes() - searcher_nodes0[i]);
    }
    if (options_.progress) {
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (s >= options_.progress_after)
        options_.progress("depth " + std::to_string(depth) + ": estimate " + std::to_string(guess) + ", " +
                          std::to_string(used) + " nodes (" + std::to_string(own_discarded_nodes() - discarded0) +
                          " discarded), " + std::to_string(s) + " s");
    }
    if (horizon_boards() == horizon0) break;  // every line seen to its end: exact
    // Deeper would cost too much: soon where the static order foresaw the cuts or the exact
    // passes will be short (a deeper iteration would cost more than it teaches them), later
    // on a tall board whose shallow passes still reorder (there they save the exact passes
    // many times what they cost).
    const Searcher::ShallowCuts cuts = shallow_cuts();
    const double reordered = static_cast<double>(cuts.reordered - cuts0.reordered);
    const bool reordering =
        extendable && reordered > options_.deepening_reorder_share * static_cast<double>(cuts.cuts - cuts0.cuts);
    if (cost >= (reordering ? options_.deepening_reorder_nodes : options_.deepening_iteration_nodes)) break;
  }
  return guess;
}

NodeKind Solver::expected_at(int gamma, int guess) const {
  const bool high = gamma <= guess;
  switch (options_.split_kinds) {
    case SolverOptions::SplitKinds::none: return NodeKind::unknown;
    case SolverOptions::SplitKinds::inverted: return high ? NodeKind::all : NodeKind::cut;
    default: return high ? NodeKind::cut : NodeKind::all;
  }
}

int Solver::pass(const Board& b, int k, int alpha, int beta, int lower, int upper, int depth, NodeKind root,
                 PassRecord::Purpose purpose) {
  ++passes_;
  const bool ordered = ordered_pass(k, depth);
  if (ordered) ++ordered_passes_;
  // What the trace reports of the pass (read before and after: the counts are this Solver's);
  // nothing read without a trace.
  PassRecord record;
  std::chrono::steady_clock::time_point t0;
  if (options_.on_pass) {
    t0 = std::chrono::steady_clock::now();
    record.solver = walker_number_;
    record.pass = passes_;
    record.purpose = purpose;
    record.seeds = k;
    record.seeds_above_database = seeds_above_database(k);
    record.depth = depth == Searcher::kFullDepth ? 0 : depth;
    record.gamma = beta;
    record.expected = root;
    record.ordered = ordered;
    record.alone = threads_ == 1 || walker_alone_;
    record.nodes = own_nodes();
    record.discarded_nodes = own_discarded_nodes();
    record.split_points = own_split_points();
    record.idle_seconds = own_idle_seconds();
  }
  const auto report = [&](int result) {
    if (!options_.on_pass) return result;
    record.result = result;
    record.nodes = own_nodes() - record.nodes;
    record.discarded_nodes = own_discarded_nodes() - record.discarded_nodes;
    record.split_points = own_split_points() - record.split_points;
    record.idle_seconds = own_idle_seconds() - record.idle_seconds;
    record.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    options_.on_pass(record);
    return result;
  };
  for (;;) {
    TableAccess access(*share_);
    const BoardKey::Split key = ctx_.key.split(b, table_->index_bits());
    int result = 0;
    ctx_.ordered = ordered;
    // The table's new pages faulted in by all the threads (not by whichever searcher first
    // stores there while the others wait for work).
    if (threads_ > 1) table_->populate(threads_);
    if (threads_ == 1 || walker_alone_) {  // (no searcher is idle to share with)
      result = searchers_[0]->search(b, k, key, alpha, beta, depth, root);
    } else if (ctx_.split) {
      ctx_.split->done.store(false);
#pragma omp parallel num_threads(threads_)
      {
        const int t = omp_get_thread_num();
        if (t == 0) {
          result = searchers_[0]->search(b, k, key, alpha, beta, depth, root);
          ctx_.split->done.store(true, std::memory_order_release);
        } else {
          searchers_[static_cast<std::size_t>(t)]->help();
        }
      }
    } else {
#pragma omp parallel num_threads(threads_)
      {
        const int t = omp_get_thread_num();
        const int r = searchers_[static_cast<std::size_t>(t)]->search(b, k, key, alpha, beta, depth);
        // The first searcher to finish completed its search (nobody had set stop before it).
        if (!ctx_.stop.exchange(true)) result = r;
      }
    }
    ctx_.stop.store(false);
    ctx_.ordered = false;
    // A growth asked for during the pass happens as the last searcher of the table leaves
    // (even a cancelled pass's: else the next call's first pass would run on the small table
    // only to be searched again).
    const bool grew = access.leave();
    if (ctx_.cancelled()) throw Interrupted(lower, upper);
    if (!grew) return report(result);
    // The pass was (perhaps) stopped for the table to grow: again, on twice the table.
    if (options_.progress)
      options_.progress("table grown to " + std::to_string(table_bytes() >> 20) + " MiB at " +
                        std::to_string(own_nodes()) + " nodes");
  }
}

int Solver::seeds_above_database(int k) const { return k - std::max(ctx_.probe.max_seeds, 0); }

bool Solver::is_tall(int k) const { return seeds_above_database(k) >= kTallAboveDatabase; }

bool Solver::ordered_pass(int k, int depth) const {
  // Not where busy marks put children off by what other searchers are in, or other Solvers
  // write to the table during the pass (ctx_.parallel: busy marks, or a shared table): there
  // the timing would decide again.
  if (depth >= Searcher::kFullDepth || ctx_.parallel) return false;
  const bool shared = threads_ > 1 && !walker_alone_;
  switch (options_.ordered_shallow) {
    case SolverOptions::OrderedShallow::never: return false;
    case SolverOptions::OrderedShallow::always: return true;
    default: return shared && ctx_.split != nullptr && (!is_tall(k) || test_deepening_);
  }
}

bool Solver::ordered_test_deepening() const {
  return threads_ > 1 && !walker_alone_ && ctx_.split != nullptr && !ctx_.parallel &&
         options_.ordered_shallow != SolverOptions::OrderedShallow::never;
}

int Solver::seeds_checked(const Board& b) const {
  int k = 0;
  for (int i = 0; i < 2 * ctx_.pits; ++i) k += b.cells[i];
  if (k > ctx_.key.max_seeds())
    throw std::invalid_argument("board with " + std::to_string(k) + " seeds given to a solver for at most " +
                                std::to_string(ctx_.key.max_seeds()));
  return k;
}

int Solver::test(const Board& b, int gamma) {
  int remainder = 0;
  if (is_terminal(b, ctx_.pits, ctx_.rules.end, remainder)) return remainder;
  const int k = seeds_checked(b);
  if (ctx_.probe.covers(b, k)) return ctx_.probe.value(b, k);
  auto [lo, hi] = known_bounds(b, k);
  if (lo < gamma && hi >= gamma && ctx_.probe.max_seeds >= 0 && seeds_above_database(k) >= kTestDeepensAboveDatabase) {
    // A test far above the database costs as much as a value (a full solve's tests of the
    // root's other sowings): an iterative deepening first, for the move order (Kalah(5,6):
    // 175.6 -> 107.1 M nodes), without the value's extension for reordering shallow passes
    // (Kalah(5,6)'s tests 73.4 -> 40.5 M nodes). Lower, the value's passes have ordered the
    // table already and deepening costs more than it saves (kTestDeepensAboveDatabase;
    // docs/search.md, "The full solve's line", "A test's deepening").
    const int deepest = deepening_depth_;  // the latest value()'s, as reported
    {
      // The shallow passes split and ordered (split_point.hpp): unordered, they leave an order
      // in the table that depends on the threads' timing and costs the exact pass more
      // (Kalah(5,6)'s full solve, its first root test: 10.2 M nodes after one thread's
      // deepening, 13.1-13.7 M after a split one; session 56 found the same of a value's);
      // ordered, the order is one thread's and the other threads help rather than wait
      // (docs/search.md, "A test's deepening, ordered"). Where a pass cannot be ordered (busy
      // marks, a table shared with other Solvers, or ordered passes switched off), they run on
      // the walker alone for the same reason (10.7-11.8 M nodes for that test; docs/search.md,
      // "A test's deepening on the walker alone"), and the other threads' wait counts as their
      // idle time (they have no work meanwhile).
      const bool ordered = ordered_test_deepening();
      bool& flag = ordered ? test_deepening_ : walker_alone_;
      const bool was = std::exchange(flag, true);
      struct Restore {
        bool& flag;
        bool value;
        double& idle;
        double waiting;  // threads waiting meanwhile
        std::chrono::steady_clock::time_point since = std::chrono::steady_clock::now();
        ~Restore() {
          flag = value;
          idle += waiting * std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
        }
      } restore{flag, was, alone_idle_seconds_, ordered || was ? 0.0 : threads_ - 1.0};
      deepen(b, k, gamma, lo, hi, false);
    }
    deepening_depth_ = deepest;
    std::tie(lo, hi) = known_bounds(b, k);  // the shallow passes may prove bounds
  }
  if (lo >= gamma) return lo;
  if (hi < gamma) return hi;
  return pass(b, k, gamma - 1, gamma, lo, hi, Searcher::kFullDepth, NodeKind::unknown, PassRecord::Purpose::test);
}

int Solver::deepened_estimate(const Board& b) {
  int remainder = 0;
  if (is_terminal(b, ctx_.pits, ctx_.rules.end, remainder)) return remainder;
  const int k = seeds_checked(b);
  if (ctx_.probe.covers(b, k)) return ctx_.probe.value(b, k);
  const auto [lo, hi] = known_bounds(b, k);
  const int guess = std::clamp(base::round_down(0, k), lo, hi);  // value()'s without an estimate
  if (lo == hi || ctx_.probe.max_seeds < 0) return guess;
  return deepen(b, k, guess, lo, hi, true);
}

Estimate Solver::estimate(const Board& b, std::uint64_t nodes) const {
  Estimate e;
  int remainder = 0;
  if (is_terminal(b, ctx_.pits, ctx_.rules.end, remainder)) {
    e.value = remainder;
    return e;
  }
  const int k = seeds_checked(b);
  if (ctx_.probe.covers(b, k)) {
    e.value = ctx_.probe.value(b, k);
    return e;
  }
  return estimate_value(b, ctx_.pits, k, ctx_.rules, *ctx_.sowing, ctx_.probe, nodes);
}

std::vector<int> Solver::best_sowings(const Board& b) {
  int remainder = 0;
  if (is_terminal(b, ctx_.pits, ctx_.rules.end, remainder)) return {};
  return best_sowings(b, value(b), false);
}

std::vector<int> Solver::best_sowings(const Board& b, int target, bool first_only) {
  const int m = ctx_.pits;
  // Every sowing in pit order, or the line's preference until one attains: its first choice
  // is most often the sowing the value's own passes proved, whose test the table answers.
  int pits[kMaxPits], n = 0;
  if (first_only) {
    n = line_order(b, m, ctx_.rules, pits);
  } else {
    for (int pit = 0; pit < m; ++pit)
      if (b.cells[pit]) pits[n++] = pit;
  }
  bool attains[kMaxPits] = {};
  // Side by side below tall boards only: a tall board's tests are long and unequal (Kalah(5,6)
  // at the 26-seed memory: 5.6, 6.6, 13.9 and 29.0 M nodes), and the threads of the short ones
  // would then wait for the long one, which split points share.
  if (!first_only && ctx_.split && n >= threads_ && !is_tall(seeds_checked(b))) {
    tests_side_by_side(b, target, pits, n, attains);
  } else {
    for (int i = 0; i < n; ++i) {
      attains[i] = sowing_attains(b, pits[i], target);
      if (attains[i] && first_only) break;
    }
  }
  std::vector<int> best;  // (with first_only, the loop above stopped at the first that attains)
  for (int i = 0; i < n; ++i)
    if (attains[i]) best.push_back(pits[i]);
  return best;
}

bool Solver::sowing_attains(const Board& b, int pit, int target) {
  const int m = ctx_.pits;
  Board next = b;
  const SowOutcome o = sow(next, m, pit, ctx_.rules);
  // Through this sowing the value is o.stored + v(next) (extra turn) or o.stored - v(flipped
  // next); no sowing exceeds the target, so reaching it is the test.
  return o.extra_turn ? value_at_least(next, target - o.stored)
                      : !value_at_least(flipped(next, m), o.stored - target + 1);
}

void Solver::tests_side_by_side(const Board& b, int target, const int* pits, int n, bool* attains) {
  // The tests are independent: each thread takes the next one and searches it alone, with
  // this Solver's walker or the walker of a Solver made on its table, so no test's split
  // points speculate (a test of a sowing that does not attain is a cut at its root whose
  // refutation is often not the first reply tried: docs/search.md, "The root's tests side by
  // side"). A thread without a test left helps the walkers still searching: each of the T
  // Solvers has T searchers, and a walker opens split points only when one of its helpers is
  // idle, so only the last tests split (Kalah(5,5): the longest test, 0.8 of 1.9 M nodes,
  // left one thread waiting for the other). T is at most the sowings, so at most 8 x 8
  // searchers.
  if (test_helpers_.size() + 1 < static_cast<std::size_t>(threads_)) {
    const std::shared_ptr<TableShare> share = table_share();
    while (test_helpers_.size() + 1 < static_cast<std::size_t>(threads_)) {
      SolverOptions o = options_;
      o.share = share;
      o.progress = nullptr;
      test_helpers_.push_back(std::make_unique<Solver>(ctx_.pits, ctx_.rules, ctx_.key.max_seeds(), std::move(o)));
      test_helpers_.back()->walker_number_ = static_cast<int>(test_helpers_.size());
    }
  }
  std::vector<Solver*> walkers{this};
  for (const auto& h : test_helpers_) walkers.push_back(h.get());
  std::atomic<int> next{0};
  std::exception_ptr error;
  std::mutex error_lock;
  std::vector<std::atomic<bool>> done(static_cast<std::size_t>(threads_));
  for (Solver* w : walkers) w->walker_alone_ = true;
#pragma omp parallel num_threads(threads_)
  {
    const int t = omp_get_thread_num();
    Solver& solver = *walkers[static_cast<std::size_t>(t)];
    try {
      for (int i; (i = next.fetch_add(1)) < n;) attains[i] = solver.sowing_attains(b, pits[i], target);
    } catch (...) {  // (Interrupted: the cancel stops the others too)
      const std::lock_guard guard(error_lock);
      if (!error) error = std::current_exception();
      next.store(n);
    }
    done[static_cast<std::size_t>(t)].store(true, std::memory_order_release);
    // Thread t helps walker `owner` as its searcher (t - owner) mod the team's size, which no
    // other thread uses there (the team: the threads OpenMP gave, at most T; a walker without
    // a thread is never waited for).
    const int team = omp_get_num_threads();
    for (int u = 1; u < team; ++u) {
      const int owner = (t + u) % team;
      walkers[static_cast<std::size_t>(owner)]
          ->searchers_[static_cast<std::size_t>((t - owner + team) % team)]
          ->help_until(done[static_cast<std::size_t>(owner)]);
    }
  }
  for (Solver* w : walkers) w->walker_alone_ = false;
  if (error) std::rethrow_exception(error);
}

int Solver::value(const Board& b) {
  forget_first_guess();
  const int m = ctx_.pits;
  int remainder = 0;
  if (is_terminal(b, m, ctx_.rules.end, remainder)) return remainder;
  const int k = seeds_checked(b);
  if (ctx_.probe.covers(b, k)) return ctx_.probe.value(b, k);
  auto [lo, hi] = known_bounds(b, k);
  // Cancelled already: what the table knows, without the estimate (which does not poll).
  if (lo < hi && ctx_.cancelled()) throw Interrupted(lo, hi);
  // MTD(f) from a first guess (rounded to the parity of the value) inside the known bounds:
  // on a board with many seeds above the database, where the passes below the value are
  // costly, a quick estimate; else 0. Not before an iterative deepening (with a database),
  // whose shallow passes give the exact passes their guess: there the estimate's guess only
  // started the first iteration, to no effect (Kalah(5,6): the same 25.04 M nodes), and took
  // 3.25 M nodes on one thread while the others waited.
  const auto t0 = std::chrono::steady_clock::now();
  const bool deepens = ctx_.probe.max_seeds >= 0 && options_.deepening_step > 0;
  Estimate first;
  if (options_.estimate_nodes > 0 && lo < hi && is_tall(k) && !deepens)
    first = estimate_value(b, m, k, ctx_.rules, *ctx_.sowing, ctx_.probe, options_.estimate_nodes);
  int guess = std::clamp(base::round_down(first.value, k), lo, hi);
  if (lo < hi) first_guess_ = first;
  // Iterative deepening only with a database: without one (small boards, the bench's games)
  // the shallow passes cost more than their move ordering saves (relay(5,3): 0.64 M nodes
  // without them, 4.65 M with them).
  if (lo < hi && ctx_.probe.max_seeds >= 0) {
    const int estimate = deepen(b, k, guess, lo, hi, true);
    const auto [lo_now, hi_now] = known_bounds(b, k);  // the shallow passes may prove bounds
    lo = std::max(lo, lo_now);
    hi = std::min(hi, hi_now);
    guess = std::clamp(base::round_down(estimate, k), lo, hi);
    first_guess_->value = guess;
  }
  const std::uint64_t nodes0 = own_nodes();
  while (lo < hi) {
    const int gamma = guess == lo ? guess + 1 : guess;  // test value >= gamma
    const int r = pass(b, k, gamma - 1, gamma, lo, hi, Searcher::kFullDepth, expected_at(gamma, guess),
                       PassRecord::Purpose::value);
    if (r < gamma)
      hi = r;
    else
      lo = r;
    guess = r;
    if (options_.progress) {
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (s >= options_.progress_after)
        options_.progress("pass " + std::to_string(passes_) + ": value in [" + std::to_string(lo) + ", " +
                          std::to_string(hi) + "], " + std::to_string(own_nodes() - nodes0) + " nodes, " +
                          std::to_string(s) + " s");
    }
  }
  return lo;
}

}  // namespace kalah::search

#include "solver/search/alphabeta.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <chrono>
#include <climits>
#include <mutex>

#include "solver/base/value_bounds.hpp"
#include "solver/search/children.hpp"
#include "solver/search/spin_lock.hpp"

namespace kalah::search {

namespace {
const TableEntry kNothingKnown{};
constexpr std::uint64_t kNoEntry = ~std::uint64_t(0);  // a child without a database entry
// Split points only at nodes searched deeper than this (shallow passes): a subtree of a few
// sowings costs less than a split.
constexpr int kMinSplitDepth = 3;

// A child covered by the endgame probe (`seeds` seeds, board `bits`), first pass: its
// database slot, the entry prefetched; kNoEntry for a probe that is not an in-memory
// database (db = probe.database, held by the caller: null), warmed through the probe instead.
template <int M, class Kernel>
[[gnu::always_inline]] inline std::uint64_t locate_child(const EndgameDatabase* db, const EndgameProbe& probe,
                                                         const Kernel& kernel, int seeds, base::u128 bits) {
  if (db) {
    const std::uint64_t slot = db->template slot_of<M>(seeds, bits, [&] { return kernel.index(bits); });
    __builtin_prefetch(db->slot_address(seeds, slot));
    return slot;
  }
  probe.warm(base::from_bits(bits), seeds);
  return kNoEntry;
}
// A child on a level of bounds whose bit is still to be read (search_near's first pass; its
// hi holds its sublevel's threshold until then).
constexpr int kBoundUnread = INT_MIN + 1;

// Second pass: its value, from the slot locate_child gave.
template <int M>
[[gnu::always_inline]] inline int read_child(const EndgameDatabase* db, const EndgameProbe& probe, std::uint64_t slot,
                                             int seeds, base::u128 bits) {
  return slot != kNoEntry ? db->template value_in_slot<M>(seeds, slot, bits)
                          : probe.value(base::from_bits(bits), seeds);
}

// A child of a board below the table (search_near): as Child without the key and the score.
struct NearChild {
  base::u128 board;
  int seeds, stored, lo, hi, pit;
  bool extra, capture;
  int through(int v) const { return value_through(stored, extra, v); }
};

// The open children open[0..n_open) of a board below the table, with their order scores,
// as the children of split point sp: `shared` filled in the order search_near would pick
// them (descending score), and sp's list.
void share_near_children(const NearChild* children, const int* open, const int* score, int n_open, Child* shared,
                         SplitPoint& sp) {
  int order[kMaxPits];
  for (int j = 0; j < n_open; ++j) order[j] = j;
  std::sort(order, order + n_open, [&](int p, int q) { return score[p] > score[q]; });  // (scores are distinct)
  for (int j = 0; j < n_open; ++j) {
    const NearChild& near = children[open[order[j]]];
    Child& c = shared[j];
    c.board = base::from_bits(near.board);
    c.pit = near.pit;
    c.stored = near.stored;
    c.seeds = near.seeds;
    c.lo = near.lo;
    c.hi = near.hi;
    c.extra = near.extra;
    c.capture = near.capture;
    sp.list[sp.count++] = j;
  }
}

// Marks a board busy for the other searchers while this one is in it (parallel search).
class BusyMark {
 public:
  BusyMark(BusyTable& table, bool active, const BoardKey::Split& key, int thread)
      : table_(active ? &table : nullptr), hash_(active ? BusyTable::hash(key.index, key.tag) : 0), thread_(thread) {
    if (table_) table_->enter(hash_, thread_);
  }
  ~BusyMark() {
    if (table_) table_->leave(hash_, thread_);
  }
  BusyMark(const BusyMark&) = delete;
  BusyMark& operator=(const BusyMark&) = delete;

 private:
  BusyTable* table_;
  std::uint64_t hash_;
  int thread_;
};

std::uint64_t elapsed_ns(std::chrono::steady_clock::time_point since) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - since).count());
}

// A searcher without work gives its core away after this many pauses.
constexpr int kSpinsBeforeYield = 256;

}  // namespace

std::atomic<bool> Searcher::kNoHint{false};

bool Searcher::cut_seen() {
  // Cleared before the chain is read: a cut marked after the read sets the hint again.
  cut_hint_->store(false, std::memory_order_seq_cst);
  if (!SplitPoint::cut_above(chain_, chain_at_)) return false;
  cut_hint_->store(true, std::memory_order_relaxed);  // to be seen again up to the cut split point
  return true;
}

template <class Until>
void Searcher::look_for_work(const SplitPoint* within, const Until& until) {
  SplitPool& pool = *ctx_->split;
  pool.idle.fetch_add(1);
  auto idle_since = std::chrono::steady_clock::now();
  for (int spins = 0; !until();) {
    SplitPoint* sp = pool.join(within);
    if (!sp) {
      // Spin (a split point is most often open within microseconds); now and then give the
      // core away, for machines with more searchers than cores.
      spin_step(spins, kSpinsBeforeYield);
      continue;
    }
    pool.idle.fetch_sub(1);
    idle_ns_ += elapsed_ns(idle_since);
    sp->work(*this, *sp);
    SplitPool::leave(sp);
    idle_since = std::chrono::steady_clock::now();
    pool.idle.fetch_add(1);
  }
  idle_ns_ += elapsed_ns(idle_since);
  pool.idle.fetch_sub(1);
}

void Searcher::help() { help_until(ctx_->split->done); }

void Searcher::help_until(const std::atomic<bool>& done) {
  look_for_work(nullptr, [&] { return done.load(std::memory_order_acquire); });
}

void Searcher::wait_for_helpers(SplitPoint& sp) {
  if (sp.helpers.load(std::memory_order_acquire) == 0) return;
  look_for_work(&sp, [&] { return sp.helpers.load(std::memory_order_acquire) == 0; });
}

template <int M, Sowing S, Capture C, EndRule E>
void Searcher::work_at(Searcher& self, SplitPoint& sp) {
  const SplitPoint* const outer = self.chain_;
  const int outer_at = self.chain_at_;
  std::vector<HeldStore>* const outer_held = self.held_;
  self.chain_ = &sp;
  const SearchContext& ctx = *self.ctx_;
  for (;;) {
    if (self.unwinding_at(sp.parent, sp.parent_at)) break;
    int i, a, at;
    {
      const std::lock_guard guard(sp.lock);
      at = sp.next.load(std::memory_order_relaxed);
      if (at >= sp.count || sp.best >= sp.b0) break;
      sp.next.store(at + 1, std::memory_order_relaxed);
      i = sp.list[at];
      a = sp.a;
    }
    self.chain_at_ = at;
    if (sp.ordered) self.held_ = &sp.held[at];
    const Child& c = sp.children[i];
    // A child's nodes are all discarded if its result is (the nested split points' discards
    // inside it are then part of them, not added twice).
    const std::uint64_t nodes_before = self.nodes_, discarded_before = self.discarded_;
    const auto discard_child = [&] { self.discarded_ = discarded_before + (self.nodes_ - nodes_before); };
    const std::uint64_t horizon_before = self.horizon_;
    int r;
    bool unwound = false;
    if (c.hi <= a) {  // cannot raise the value: its upper bound is all we need
      r = c.hi;
    } else if (sp.depth <= 1) {  // the horizon of a shallow search
      r = std::clamp(c.through(0), c.lo, c.hi);
      ++self.horizon_;
    } else {
      const Window w = window_through(c.stored, c.extra, a, sp.b0);
      r = c.through(c.seeds < ctx.table_min_seeds
                        ? self.search_near<M, S, C, E>(base::to_bits(c.board), c.seeds, w.alpha, w.beta, sp.depth - 1)
                        : self.search_t<M, S, C, E>(c.board, c.seeds, c.key, nullptr, w.alpha, w.beta, sp.depth - 1,
                                                    child_kind(sp.kind, c.extra)));
      unwound = self.unwinding();
    }
    const bool estimate = self.horizon_ != horizon_before;
    // Ordered: the node is an estimate only through the children one searcher would have
    // searched (the owner's horizon_ must not count one after the cut): sp.estimate_at.
    if (sp.ordered) self.horizon_ = horizon_before;
    if (unwound) {
      // A cut's speculation; not a stopped pass (the table's growth, a cancel), whose work
      // one searcher loses as well (Kalah(6,5): 39% of the nodes counted so).
      if (!ctx.unwinding()) discard_child();
      break;
    }
    const std::lock_guard guard(sp.lock);
    if (sp.ordered) {
      // One searcher would have searched this child only if no earlier one cut; the earliest
      // cut decides the node, as it would have there.
      if (at > sp.cut_at.load(std::memory_order_relaxed)) {
        discard_child();
        continue;
      }
      sp.result_at[at] = r;
      sp.searched_at[at] = c.hi > a;
      sp.estimate_at[at] = estimate;
      sp.done_at[at] = true;
      sp.nodes_at[at] = self.nodes_ - nodes_before;
      if (r >= sp.b0) {
        sp.best = r;  // (for the loops above; the node's own are folded when the split point ends)
        sp.cut_at.store(at, std::memory_order_seq_cst);
        self.ctx_->split->hint_all();
        continue;
      }
    }
    if (sp.best >= sp.b0 && !sp.ordered)  // a brother cut first
      discard_child();
    if (estimate && !sp.ordered) sp.estimate = true;
    // Of equal results the earliest in the order, as one searcher would keep (the sowing stored
    // for an all-node orders the next pass: by the finishing order it was another each run).
    if (r > sp.best || (r == sp.best && c.hi > a && at < sp.best_at)) {
      sp.best = r;
      if (c.hi > a) {
        sp.best_move = c.pit;
        sp.best_at = at;
      }
    }
    if (sp.best > sp.a) sp.a = sp.best;
    if (sp.best >= sp.b0 && sp.cut_at.load(std::memory_order_relaxed) == SplitPoint::kNotCut) {
      sp.cut_at.store(-1, std::memory_order_seq_cst);
      self.ctx_->split->hint_all();
    }
  }
  self.chain_ = outer;
  self.chain_at_ = outer_at;
  self.held_ = outer_held;
}

template <int M, Sowing S, Capture C, EndRule E>
void Searcher::split(SplitPoint& sp) {
  SplitPool& pool = *ctx_->split;
  sp.parent = chain_;
  sp.parent_at = chain_at_;
  sp.ordered = ctx_->ordered;
  const int best_before = sp.best, best_move_before = sp.best_move, a_before = sp.a;
  sp.work = &Searcher::work_at<M, S, C, E>;
  pool.publish(&sp);
  ++split_points_;
  if (sp.kind == NodeKind::cut) ++cut_split_points_;
  work_at<M, S, C, E>(*this, sp);
  pool.withdraw(&sp);
  wait_for_helpers(sp);
  if (sp.ordered) {
    // The children one searcher would have searched, folded in its order (search_t's loop):
    // results, horizons and stores. (Unless the pass stops or a cut above drops this node,
    // every one of them has finished.)
    assert(held_ != nullptr);
    const int last = std::min(sp.cut_at.load(std::memory_order_relaxed), sp.count - 1);
    int best = best_before, best_move = best_move_before;
    for (int at = 0; at <= last; ++at) {
      if (!sp.searched_at[at]) {
        best = std::max(best, sp.result_at[at]);
      } else if (sp.result_at[at] > best) {
        best = sp.result_at[at];
        best_move = sp.children[sp.list[at]].pit;
      }
      if (sp.estimate_at[at]) sp.estimate = true;
      held_->insert(held_->end(), sp.held[at].begin(), sp.held[at].end());
    }
    // A child after the cut that had finished before it: searched for nothing, as a child
    // unwound by the cut is (so the deepening's budget counts one thread's nodes).
    for (int at = last + 1; at < sp.count; ++at)
      if (sp.done_at[at]) discarded_ += sp.nodes_at[at];
    sp.best = best;
    sp.best_move = best_move;
    sp.a = std::max(a_before, best);
  }
}

void Searcher::flush_fills() {
  ctx_->share->add_fills(fills_);
  fills_ = 0;
}

int Searcher::search(const Board& b, int k, const BoardKey::Split& key, int alpha, int beta, int depth, NodeKind root) {
  assert(depth >= 1);
  assert(!ctx_->ordered || beta == alpha + 1);  // (an ordered pass's children share one window)
  if (ctx_->ordered) {
    root_held_.clear();
    held_ = &root_held_;
  }
  const int r = base::dispatch(ctx_->pits, ctx_->rules, [&]<int M, Sowing S, Capture C, EndRule E>() {
    if (k < ctx_->table_min_seeds) return search_near<M, S, C, E>(base::to_bits(b), k, alpha, beta, depth);
    return search_t<M, S, C, E>(b, k, key, nullptr, alpha, beta, depth, root);
  });
  if (held_) {
    // The ordered pass's stores, in one searcher's order (none of a stopped pass).
    held_ = nullptr;
    if (!ctx_->unwinding()) {
      // The buckets are scattered over the table: each is loaded a few stores ahead, or the
      // stores would wait for memory one by one while the other searchers wait for them
      // (Kalah(5,5)'s value on two threads: 1.5 ms of its 0.1 s, 0.53 ms with 16 ahead).
      constexpr std::size_t kAhead = 16;
      const std::size_t n = root_held_.size();
      for (std::size_t i = 0; i < std::min(n, kAhead); ++i) ctx_->table->prefetch(root_held_[i].index);
      for (std::size_t i = 0; i < n; ++i) {
        if (i + kAhead < n) ctx_->table->prefetch(root_held_[i + kAhead].index);
        const HeldStore& h = root_held_[i];
        store({h.index, h.tag}, h.lower, h.upper, h.move, h.work);
      }
    }
    root_held_.clear();
  }
  return r;
}

template <int M, Sowing S, Capture C, EndRule E>
int Searcher::search_near(base::u128 x, int k, int alpha, int beta, int depth) {
  using Kernel = base::Kernel<M, S, C, E>;
  assert(alpha < beta);
  assert(k < ctx_->table_min_seeds);
  assert(!ctx_->probe.covers<M>(k, x));
  assert([&] {
    int remainder = 0;
    return !Kernel::terminal(x, k, &remainder);
  }());
  constexpr Rules kRules{S, C, E, false, false};
  const SearchContext& ctx = *ctx_;
  ++nodes_;
  const std::uint64_t horizon_before = horizon_;
  // What the seeds in play allow, narrowed by what the near table holds.
  int lo = base::min_value(k, kRules);
  int hi = base::max_value(k);
  near_.probe(x, &lo, &hi);
  if (lo >= beta) return lo;
  if (hi <= alpha) return hi;
  if (lo == hi) return lo;
  const int a0 = std::max(alpha, lo);
  const int b0 = std::min(beta, hi);
  int a = a0;

  // Every child with its bounds (database reads prefetched in the first pass, made in the
  // second), in pit order as in search_t, so the same child decides a cut-off.
  union Children {  // uninitialised, as in search_t
    NearChild c[kMaxPits];
    Children() {}
  } storage;
  NearChild* const children = storage.c;
  std::uint64_t entry[kMaxPits];
  int n = 0;
  const EndgameDatabase* const db = ctx.probe.database;
  const Kernel kernel{*ctx.sowing};
  for (int pit = 0; pit < M; ++pit) {
    if (base::own_byte_of(x, pit) == 0) continue;
    NearChild& c = children[n];
    base::Successor s;
    kernel.sow(x, k, pit, &s);
    c.board = s.board;
    c.seeds = s.level;
    c.stored = s.stored;
    c.pit = pit;
    c.extra = s.again;
    c.capture = s.capture;
    entry[n] = kNoEntry;
    int remainder = 0;
    if (Kernel::terminal(s.board, s.level, &remainder)) {
      c.lo = c.hi = c.through(remainder);
    } else if (ctx.probe.covers<M>(c.seeds, s.board)) {
      entry[n] = locate_child<M>(db, ctx.probe, kernel, c.seeds, s.board);
      c.lo = c.hi = INT_MIN;  // read below
    } else if (ctx.probe.bounds<M>(c.seeds, s.board)) {
      const BoundLevel& level = db->bound_level(c.seeds);
      const BoundLevel::Place place = level.template place<M>(s.board);
      entry[n] = place.slot;
      __builtin_prefetch(level.address_at(entry[n]));
      c.lo = kBoundUnread;  // read below
      c.hi = place.threshold;
    } else {
      const int clo = base::min_value(c.seeds, kRules);
      const int chi = base::max_value(c.seeds);
      c.lo = c.through(c.extra ? clo : chi);
      c.hi = c.through(c.extra ? chi : clo);
    }
    ++n;
  }
  int best = INT_MIN;
  int open[kMaxPits];  // children still to search, and their order scores
  int score[kMaxPits];
  int n_open = 0;
  for (int i = 0; i < n; ++i) {
    NearChild& c = children[i];
    if (c.lo == INT_MIN) {
      c.lo = c.hi = c.through(read_child<M>(db, ctx.probe, entry[i], c.seeds, c.board));
    } else if (c.lo == kBoundUnread) {  // a level of bounds: the child's value is above c.hi or not
      const bool above = db->bound_level(c.seeds).above_at(entry[i]);
      const int clo = std::max(BoundLevel::lower(c.seeds, c.hi, above), base::min_value(c.seeds, kRules));
      const int chi = std::min(BoundLevel::upper(c.seeds, c.hi, above), base::max_value(c.seeds));
      c.lo = c.through(c.extra ? clo : chi);
      c.hi = c.through(c.extra ? chi : clo);
    }
    if (c.lo >= b0) return base::round_up(c.lo, k);  // cut-off without recursing (not stored: as cheap again)
    if (c.lo == c.hi) {
      best = std::max(best, c.lo);
      if (best > a) a = best;
    } else {
      open[n_open] = i;
      score[n_open++] = move_score(c.pit, c.lo, c.hi, c.extra, c.capture, kNothingKnown.move);
    }
  }

  // The open children by descending score, each picked when its turn comes (most nodes stop
  // after the first): the order of search_t's sort.
  const bool may_split = ctx.split && k >= ctx.split_min_seeds && depth > kMinSplitDepth;
  int searched = 0;
  while (n_open > 0 && best < b0) {
    // As in search_t: after the first child, the rest shared if a searcher is idle (without a
    // kind: a board below the table has no expectation). Else the searchers who wait for this
    // subtree, an owner for its helper's last child most often, would have nothing to join
    // (docs/search.md, "Split points below the table").
    if (may_split && searched > 0 && n_open >= 2 && ctx.split->idle.load(std::memory_order_relaxed) > 0) {
      Child shared[kMaxPits];
      SplitPoint sp;
      share_near_children(children, open, score, n_open, shared, sp);
      sp.set_node(shared, b0, k, depth, NodeKind::unknown, a, best, -1);  // (no sowing kept below the table)
      ++near_split_points_;
      split<M, S, C, E>(sp);
      if (unwinding_at(chain_, chain_at_)) return 0;
      const std::lock_guard guard(sp.lock);  // (the helpers have left)
      best = sp.best;
      a = sp.a;
      if (sp.estimate) ++horizon_;
      break;
    }
    int top = 0;
    for (int j = 1; j < n_open; ++j)
      if (score[j] > score[top]) top = j;
    const NearChild& c = children[open[top]];
    --n_open;
    open[top] = open[n_open];
    score[top] = score[n_open];
    if (c.hi <= a) {  // cannot raise the value: its upper bound is all we need
      best = std::max(best, c.hi);
      continue;
    }
    int r;
    if (depth <= 1) {  // the horizon of a shallow search
      r = std::clamp(c.through(0), c.lo, c.hi);
      ++horizon_;
    } else {
      const Window w = window_through(c.stored, c.extra, a, b0);
      r = c.through(search_near<M, S, C, E>(c.board, c.seeds, w.alpha, w.beta, depth - 1));
      if (unwinding()) return 0;
    }
    ++searched;
    if (r > best) best = r;
    if (best > a) a = best;
  }
  if (horizon_ != horizon_before) return best;  // an estimate
  if (best >= b0) {
    best = base::round_up(best, k);
    near_.store(x, best, NearTable::kNoUpper);
  } else if (best <= a0) {
    best = base::round_down(best, k);
    near_.store(x, NearTable::kNoLower, best);
  } else {
    near_.store(x, best, best);
  }
  return best;
}

template <int M, Sowing S, Capture C, EndRule E>
int Searcher::search_t(const Board& b, int k, const BoardKey::Split& key, const TableEntry* known_in, int alpha,
                       int beta, int depth, NodeKind kind) {
  static_assert(M >= 1 && M <= kMaxPits);
  using Kernel = base::Kernel<M, S, C, E>;
  assert(alpha < beta);
  assert(!ctx_->probe.covers(b, k));
  assert([&] {
    int remainder = 0;
    return !Kernel::terminal(base::to_bits(b), k, &remainder);
  }());
  assert(k >= ctx_->table_min_seeds);  // below the table: search_near
  constexpr Rules kRules{S, C, E, false, false};
  SearchContext& ctx = *ctx_;
  TranspositionTable& table = *ctx.table;
  const int index_bits = table.index_bits();
  const std::uint64_t nodes_before = nodes_++;
  const std::uint64_t horizon_before = horizon_;

  // What is known before looking at the children.
  const TableEntry known = known_in ? *known_in : table.probe(key.index, key.tag);
  const int lo = std::max(base::min_value(k, kRules), known.lower);
  const int hi = std::min(base::max_value(k), known.upper);
  if (lo >= beta) return lo;
  if (hi <= alpha) return hi;
  if (lo == hi) return lo;
  // Narrow the window to the known bounds: a fail low at lo or a fail high at hi is exact.
  const int a0 = std::max(alpha, lo);
  const int b0 = std::min(beta, hi);
  int a = a0;
  const bool parallel = ctx.parallel && k >= ctx.busy_min_seeds;
  const BusyMark mark(ctx.share->busy(), parallel, key, thread_);

  // Every child, with what is known of it without recursing. First pass: sow, detect
  // terminal boards and database hits, compute keys and prefetch the table buckets and
  // database entries; second pass: read them (their loads overlap).
  // Uninitialised storage (every field used is written below): default-initialising eight
  // Children at every node cost more than a tenth of the node's instructions.
  union Children {
    Child c[kMaxPits];
    Children() {}
  } storage;
  Child* const children = storage.c;
  int n = 0;
  bool open[kMaxPits] = {};
  std::uint64_t entry[kMaxPits];  // where a child is in the database (EndgameDatabase::slot), or kNoEntry
  const EndgameDatabase* const db = ctx.probe.database;
  const Kernel kernel{*ctx.sowing};
  const base::u128 x = base::to_bits(b);
  for (int pit = 0; pit < M; ++pit) {
    if (b.cells[pit] == 0) continue;
    Child& c = children[n];
    base::Successor s;
    kernel.sow(x, k, pit, &s);
    c.board = base::from_bits(s.board);
    c.pit = pit;
    c.extra = s.again;
    c.capture = s.capture;
    c.stored = s.stored;
    c.seeds = s.level;
    int remainder = 0;
    open[n] = false;
    entry[n] = kNoEntry;
    if (Kernel::terminal(s.board, s.level, &remainder)) {
      c.lo = c.hi = c.through(remainder);
    } else if (ctx.probe.covers<M>(c.seeds, s.board)) {
      entry[n] = locate_child<M>(db, ctx.probe, kernel, c.seeds, s.board);
      c.lo = c.hi = INT_MIN;  // read below
    } else {
      if (c.seeds >= ctx.table_min_seeds) {
        c.key = ctx.key.split_m<M>(c.board, index_bits);
        table.prefetch(c.key.index);
      } else {
        c.key = {0, 0};  // below the table: no key, nothing known but the seeds in play
      }
      open[n] = true;
    }
    ++n;
  }
  union Entries {  // uninitialised, as the children
    TableEntry e[kMaxPits];
    Entries() {}
  } entries;
  TableEntry* const child_entry = entries.e;
  int best = INT_MIN;
  int best_move = -1;
  for (int i = 0; i < n; ++i) {
    Child& c = children[i];
    if (open[i]) {
      const TableEntry e = c.seeds >= ctx.table_min_seeds ? table.probe(c.key.index, c.key.tag) : kNothingKnown;
      child_entry[i] = e;
      const int clo = std::max(base::min_value(c.seeds, kRules), e.lower);
      const int chi = std::min(base::max_value(c.seeds), e.upper);
      c.lo = c.through(c.extra ? clo : chi);
      c.hi = c.through(c.extra ? chi : clo);
    } else if (c.lo == INT_MIN) {
      c.lo = c.hi = c.through(read_child<M>(db, ctx.probe, entry[i], c.seeds, base::to_bits(c.board)));
    }
    if (c.lo >= b0) {  // cut-off without recursing: terminal, database, table or futility
      const int r = base::round_up(c.lo, k);
      store(key, r, 255, c.pit, 0);
      return r;
    }
    if (c.exact()) {
      if (c.lo > best) {
        best = c.lo;
        best_move = c.pit;
      }
      if (best > a) a = best;
    }
  }

  // Search the open children in order. In a parallel search a child another searcher is in
  // is put off until the others are done (unless it is the first one searched here).
  int order[kMaxPits];
  for (int i = 0; i < n; ++i) children[i].score = move_score(children[i], known.move);
  order_children(children, order, n);
  int deferred[kMaxPits];
  int n_deferred = 0;
  int searched = 0;
  const bool may_split = ctx.split && k >= ctx.split_min_seeds && depth > kMinSplitDepth;
  for (int pass = 0; pass < 2; ++pass) {
    const int count = pass == 0 ? n : n_deferred;
    for (int j = 0; j < count && best < b0; ++j) {
      const int i = pass == 0 ? order[j] : deferred[j];
      const Child& c = children[i];
      if (c.exact()) continue;
      if (c.hi <= a) {  // cannot raise the value: its upper bound is all we need
        best = std::max(best, c.hi);
        continue;
      }
      // Enough children searched without a cut-off (one; two or three at an expected cut node,
      // whose next child may still cut): share the rest if a searcher is idle.
      if (pass == 0 && may_split && searched >= searched_before_split(kind, ctx.ordered) &&
          ctx.split->idle.load(std::memory_order_relaxed) > 0) {
        SplitPoint sp;
        for (int q = j; q < n; ++q)
          if (!children[order[q]].exact()) sp.list[sp.count++] = order[q];
        if (sp.count >= 2) {
          sp.set_node(children, b0, k, depth, kind, a, best, best_move);
          split<M, S, C, E>(sp);
          if (unwinding_at(chain_, chain_at_)) return 0;
          const std::lock_guard guard(sp.lock);  // (the helpers have left)
          best = sp.best;
          best_move = sp.best_move;
          a = sp.a;
          // A helper's child that depended on the horizon makes this node's result an
          // estimate, for this node and for its ancestors (which compare horizon_).
          if (sp.estimate) ++horizon_;
          break;
        }
      }
      if (pass == 0 && parallel && searched > 0 && c.seeds >= ctx.busy_min_seeds &&
          ctx.share->busy().busy_elsewhere(BusyTable::hash(c.key.index, c.key.tag), thread_)) {
        deferred[n_deferred++] = i;
        continue;
      }
      // The entry read above (possibly out of date after the earlier children's searches:
      // its bounds still hold); a put-off child reads the table again (one below the table
      // reads nothing either way).
      int r;
      if (depth <= 1) {  // the horizon of a shallow search: 0 within the child's known bounds
        r = std::clamp(c.through(0), c.lo, c.hi);
        ++horizon_;
      } else {
        const TableEntry* e = pass == 0 ? &child_entry[i] : nullptr;
        const Window w = window_through(c.stored, c.extra, a, b0);
        r = c.through(c.seeds < ctx.table_min_seeds
                          ? search_near<M, S, C, E>(base::to_bits(c.board), c.seeds, w.alpha, w.beta, depth - 1)
                          : search_t<M, S, C, E>(c.board, c.seeds, c.key, e, w.alpha, w.beta, depth - 1,
                                                 child_kind(kind, c.extra)));
        if (unwinding()) return 0;
      }
      ++searched;
      if (r > best) {
        best = r;
        best_move = c.pit;
      }
      if (best > a) a = best;
    }
  }

  if (depth < kFullDepth && best >= b0 && best_move >= 0) {  // a shallow cut: did the static order foresee it?
    ++shallow_cuts_.cuts;
    if (best_move != static_first_pit(children, n)) ++shallow_cuts_.reordered;
  }
  if (horizon_ != horizon_before) {  // an estimate: keep only the sowing for move ordering
    if (best_move >= 0) store(key, -255, 255, best_move, 0);
    return best;
  }
  const int work = static_cast<int>(std::bit_width(nodes_ - nodes_before));
  if (best >= b0) {
    best = base::round_up(best, k);
    store(key, best, 255, best_move, work);
  } else if (best <= a0) {
    best = base::round_down(best, k);
    store(key, -255, best, best_move, work);
  } else {
    store(key, best, best, best_move, work);
  }
  return best;
}

}  // namespace kalah::search

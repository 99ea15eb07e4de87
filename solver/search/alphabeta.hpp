// solver/search/alphabeta.hpp — the negamax alpha-beta search on the remainder value.
//
// SearchContext is what all searchers of one solve share: the rules, the key scheme, the
// lock-free transposition table and its share (table_share.hpp: busy marks, growth), the
// endgame probe, the move generator's tables, the split points of its searchers
// (split_point.hpp) and the stop flag of a parallel pass. A Searcher is one thread's search
// with its own node counter. The search is compiled once per pit count and
// rule set (solver/base/sowing_kernel.hpp's move generator, shared with the database builder). Values are remainder
// values (engine/board.hpp): the mover's future store gain minus the opponent's, store-independent, so the table stores
// them without the stores and any two paths to the same pits transpose.
#pragma once

#include <atomic>
#include <climits>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/board.hpp"
#include "engine/rules.hpp"
#include "solver/base/sowing_kernel.hpp"
#include "solver/search/board_key.hpp"
#include "solver/search/busy_table.hpp"
#include "solver/search/endgame_probe.hpp"
#include "solver/search/near_table.hpp"
#include "solver/search/split_point.hpp"
#include "solver/search/table_share.hpp"
#include "solver/search/transposition_table.hpp"

namespace kalah::search {

struct SearchContext {
  int pits = 0;
  Rules rules;
  BoardKey key;
  TranspositionTable* table = nullptr;  // share->table()
  TableShare* share = nullptr;
  EndgameProbe probe;
  std::unique_ptr<base::SowTables> sowing;  // for pits of up to key.max_seeds() seeds
  // Parallel search (more than one searcher, of this context or of others sharing the table,
  // table_share.hpp): boards with at least busy_min_seeds seeds in the pits are marked in the
  // share's busy table while searched, and a searcher puts off a child another searcher is
  // in (after the first child of a node: young brothers wait).
  bool parallel = false;
  int busy_min_seeds = 0;
  // Split points (split_point.hpp) among this context's searchers: nodes with at least
  // split_min_seeds seeds in the pits, boards below the table too, share their children after
  // the first (the first two or three at an expected cut node: NodeKind, split_point.hpp) with
  // idle searchers. nullptr: none (one searcher, or the shared search of busy marks alone).
  SplitPool* split = nullptr;
  int split_min_seeds = 0;
  // Set for a pass whose table must not depend on the threads' timing (split_point.hpp, an
  // ordered pass): its table stores are held back until it ends and written in the order one
  // searcher would make them, and a cut at a split point stops only the later children.
  bool ordered = false;
  // Boards with fewer seeds in the pits than this bypass the table: they are neither looked
  // up (as a node or as a child) nor stored. Just above the endgame database a node's
  // children are mostly database hits and its subtree is small: searching it again costs
  // less than the table's cache and TLB misses (Kalah(6,5): 1.8x the nodes, 2.9x the rate).
  int table_min_seeds = 0;
  // Each searcher's own table for the boards below the shared one (near_table.hpp): log2 of
  // its entries, 0 for none.
  int near_table_bits = 0;
  // Set when a parallel pass is decided, or by the share when the table is to grow:
  // searchers unwind.
  std::atomic<bool> stop{false};
  const std::atomic<bool>* cancel = nullptr;  // set from outside: every searcher unwinds

  bool cancelled() const { return cancel && cancel->load(std::memory_order_relaxed); }
  bool unwinding() const { return stop.load(std::memory_order_relaxed) || cancelled(); }
};

class Searcher {
 public:
  // A searcher of the context whose busy marks carry `mark` (busy_table.hpp: unique among the
  // searchers of the table's share, TableShare::join).
  // `index` is its place among the context's searchers (its cut hint in ctx.split).
  Searcher(SearchContext& context, int mark, int index = 0)
      : ctx_(&context),
        thread_(mark),
        cut_hint_(context.split ? &context.split->hint(index) : &kNoHint),
        near_(context.near_table_bits) {}

  // Fail-soft alpha-beta on board b (k seeds in the pits, mover to move), which must not be
  // terminal nor covered by the endgame probe; key = ctx.key.split(b, table index bits);
  // alpha < beta. Returns r with:
  //   r <= alpha  =>  value(b) <= r            (fail low, an upper bound)
  //   r >= beta   =>  value(b) >= r            (fail high, a lower bound)
  //   otherwise       value(b) == r            (exact)
  // The bounds proven are stored in the table. If ctx.stop or ctx.cancel becomes set the
  // search unwinds with a meaningless result and stores nothing more for the nodes it
  // abandons.
  //
  // With depth < kFullDepth the search looks only `depth` sowings ahead (a shallow pass of
  // iterative deepening): an open board at the horizon counts as worth 0 within its known
  // bounds. Results that depended on such a board are estimates, not bounds: the table then
  // gets only the best sowing found (for move ordering), never bounds.
  //
  // `root` is what the caller expects of the result (a pass of MTD(f) testing its guess
  // expects a fail high, one testing above it a fail low): it only chooses where split points
  // open (NodeKind, split_point.hpp), never a result.
  static constexpr int kFullDepth = 1 << 20;
  int search(const Board& b, int k, const BoardKey::Split& key, int alpha, int beta, int depth = kFullDepth,
             NodeKind root = NodeKind::unknown);

  // A helper of a pass with split points: searches the children of the split points it joins
  // until ctx.split->done.
  void help();
  // The same until `done` (a full solve's root tests side by side: another walker's last tests).
  void help_until(const std::atomic<bool>& done);

  std::uint64_t nodes() const { return nodes_; }
  // Split points this searcher opened so far, and the time it spent waiting for work at them
  // (in help, or as an owner whose helpers were still busy with nothing to join).
  std::uint64_t split_points() const { return split_points_; }
  std::uint64_t cut_split_points() const { return cut_split_points_; }    // at expected cut nodes
  std::uint64_t near_split_points() const { return near_split_points_; }  // at boards below the table
  double idle_seconds() const { return static_cast<double>(idle_ns_) * 1e-9; }
  // Nodes searched under split points whose results a cut threw away (a child's search that
  // unwound, or that returned after a brother had cut): the speculative work of split points.
  std::uint64_t discarded_nodes() const { return discarded_; }
  // Boards met at the horizon of shallow searches so far (0 after full-depth searches only).
  std::uint64_t horizon_boards() const { return horizon_; }
  // The fail-high nodes of shallow searches in the table so far whose cut came from a searched
  // child, and those among them where that child was not the static order's first open one
  // (move_score without a table move): how much the shallow passes still reorder.
  struct ShallowCuts {
    std::uint64_t cuts = 0, reordered = 0;
  };
  const ShallowCuts& shallow_cuts() const { return shallow_cuts_; }
  void reset_nodes() { nodes_ = 0; }

 private:
  // search() for a compile-time pit count M == ctx.pits and rule set (S, C, E) ==
  // ctx.rules, on a board in the table (k >= ctx.table_min_seeds; below, search_near);
  // `known` is what the table held for b (possibly stale: its bounds are still true), nullptr
  // to read it here.
  // `kind` is the node's kind in the pass's minimal tree (NodeKind, child_kind: split_point.hpp).
  template <int M, Sowing S, Capture C, EndRule E>
  int search_t(const Board& b, int k, const BoardKey::Split& key, const TableEntry* known, int alpha, int beta,
               int depth, NodeKind kind);

  // search_t for a board below the table (k < ctx.table_min_seeds), as bits (board_bits.hpp):
  // the same search without what only tabled boards need (keys, shared-table probes and
  // stores, busy marks, put-off children), so a node just above the database, most of the
  // nodes, costs fewer instructions. Its bounds go to the searcher's near table instead
  // (near_table.hpp), which catches the transpositions close to each other. Every child of
  // such a board is below the table too. Like search_t it shares its children at a split point
  // when a searcher is idle (from ctx.split_min_seeds, without a kind).
  template <int M, Sowing S, Capture C, EndRule E>
  int search_near(base::u128 x, int k, int alpha, int beta, int depth);

  // Store bounds for a board in the table, counting entries that take an empty slot; in an
  // ordered pass, hold them back instead (held_).
  void store(const BoardKey::Split& key, int lower, int upper, int move, int work) {
    if (held_) {
      held_->push_back({key.index, key.tag, static_cast<std::int16_t>(lower), static_cast<std::int16_t>(upper),
                        static_cast<std::int8_t>(move), static_cast<std::int8_t>(work)});
      return;
    }
    if (ctx_->table->store(key.index, key.tag, lower, upper, move, work) && ++fills_ >= ctx_->share->fill_batch())
      flush_fills();
  }
  void flush_fills();

  // Should the search unwind? The pass is stopped, or a split point this searcher works
  // under (chain_ and its ancestors) is cut: checked when the pool's hint says a cut happened.
  bool unwinding() {
    if (ctx_->unwinding()) return true;
    return cut_hint_->load(std::memory_order_relaxed) && cut_seen();
  }
  bool cut_seen();
  // The same without the hint, for the child at position `at` of sp.
  bool unwinding_at(const SplitPoint* sp, int at) const { return ctx_->unwinding() || SplitPoint::cut_above(sp, at); }

  // At a node whose first children are searched (searched_before_split), sp filled in by the
  // caller (the children to share, b0, k, depth, kind, and the node's a, best and best_move
  // so far): publish it, search its children with the searchers that join, and return when
  // all are done, cut or unwinding, every helper gone, with sp's a, best, best_move and
  // estimate final.
  template <int M, Sowing S, Capture C, EndRule E>
  void split(SplitPoint& sp);
  // A searcher's loop at a split point: the next child, until none is left or it is cut.
  template <int M, Sowing S, Capture C, EndRule E>
  static void work_at(Searcher& searcher, SplitPoint& sp);
  // The owner of sp, its children all handed out: helps below sp until its helpers have left.
  void wait_for_helpers(SplitPoint& sp);
  // Join and work at split points (below `within` if given) until until(); the time without
  // one is idle time.
  template <class Until>
  void look_for_work(const SplitPoint* within, const Until& until);

  static std::atomic<bool> kNoHint;  // never set: the hint of searchers without split points

  SearchContext* ctx_;
  int thread_;                         // the busy-mark id
  std::atomic<bool>* cut_hint_;        // set by the pool when a split point is cut
  const SplitPoint* chain_ = nullptr;  // the innermost split point this searcher works at
  int chain_at_ = 0;                   // the position in chain_'s list of the child it searches
  // In an ordered pass, where this searcher's table stores go (the split point's list for the
  // child it searches, or the walker's own for the pass: root_held_); nullptr: the table.
  std::vector<HeldStore>* held_ = nullptr;
  std::vector<HeldStore> root_held_;
  std::uint64_t fills_ = 0;  // not yet added to the share's count (TableShare::add_fills)
  std::uint64_t nodes_ = 0;
  std::uint64_t horizon_ = 0;
  std::uint64_t split_points_ = 0;
  std::uint64_t cut_split_points_ = 0;
  std::uint64_t near_split_points_ = 0;
  std::uint64_t idle_ns_ = 0;
  std::uint64_t discarded_ = 0;
  ShallowCuts shallow_cuts_;
  NearTable near_;  // bounds for boards below the shared table, this searcher's own
};

}  // namespace kalah::search

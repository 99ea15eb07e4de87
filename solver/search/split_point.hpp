// solver/search/split_point.hpp — split points: the children of one node shared by the
// searchers of one Solver (young brothers wait, YBWC).
//
// One searcher walks the tree; the others wait in Searcher::help. At a node whose first child
// has been searched without a cut-off (its brothers are then most likely all needed; the
// first two at a test's node, which expects nothing, two or three at a node the pass expects to
// fail high: NodeKind below), of the table or
// below it (search_near, from the database's seeds + 4: SearchContext::split_min_seeds), the
// walker, if a searcher is idle, publishes the node's remaining children as a SplitPoint and
// searches them itself with whoever joins, each taking the next child under the split point's
// lock and folding its result into the node's best. The owner leaves only when every helper
// has left: until then it helps at the split points below its own (a "helpful master"). No
// subtree is searched twice, unlike ABDADA's searchers (busy_table.hpp), which all start at
// the root and follow each other down the first children.
//
// A child's result of at least beta is a cut-off: the split point is marked cut, and every
// searcher working below it unwinds (Searcher::unwinding walks its chain of split points, when
// the pool's hint says a cut happened somewhere). The result of an unwound search is
// meaningless and nothing of it is stored, as for a pass that is stopped.
//
// In an ordered pass (SearchContext::ordered: a shallow pass whose table must not depend on the
// threads' timing) a cut stops only the children after the cutting one in the split point's
// order; the earlier ones finish, and the earliest cut wins, as one searcher would have cut
// there. Each child's result and table stores are held in the split point by the child's
// position, and the owner folds them in that order when the split point ends, up to the
// cutting child, as its own loop would have; the walker writes the pass's stores to the table
// when the pass ends (Searcher::search).
#pragma once

#include <atomic>
#include <climits>
#include <cstdint>
#include <mutex>
#include <vector>

#include "solver/search/children.hpp"
#include "solver/search/spin_lock.hpp"

namespace kalah::search {

class Searcher;

// A node's kind in the minimal tree of a null-window pass, as far as the pass's root tells
// (Searcher::search's `root`): where split points open.
enum class NodeKind : std::uint8_t {
  unknown,  // no expectation (a test): split after two children, wherever
  cut,      // expected to fail high (one child refutes): split only after three children
  all,      // expected to fail low (every child is searched): split after the first child
};
// The kind of a child of a node of kind `kind`: the opposite, but the same after an extra
// turn (the same side moves again, against the same window).
constexpr NodeKind child_kind(NodeKind kind, bool extra) {
  if (kind == NodeKind::unknown || extra) return kind;
  return kind == NodeKind::cut ? NodeKind::all : NodeKind::cut;
}
// Children searched at a node of this kind before the rest may be shared: one at an expected
// all node (young brothers wait), three at an expected cut node, whose next child may still
// cut and throw the shared work away (docs/search.md, "Split points by the node's kind"), two
// at a node of a pass without an expectation (a test: either, and after two children without
// a cut more likely an all node; docs/search.md, "A test's nodes share after two children").
// In an ordered pass (below) two at a cut node: there a cut by the owner's child stops only the
// later, shared ones, and a helper's cut leaves the owner to finish its own child as one
// searcher would, so sharing sooner costs the owner nothing and gives an idle helper work
// (docs/search.md, "An ordered pass's cut nodes").
constexpr int searched_before_split(NodeKind kind, bool ordered = false) {
  if (kind == NodeKind::all) return 1;
  if (kind == NodeKind::unknown) return 2;
  return ordered ? 2 : 3;
}

// A table store held back in an ordered pass (above): the entry's key and what
// TranspositionTable::store is given.
struct HeldStore {
  std::uint64_t index, tag;
  std::int16_t lower, upper;
  std::int8_t move, work;
};

struct SplitPoint {
  static constexpr int kNotCut = INT_MAX;

  // Set by the owner before the split point is published; read-only after.
  const SplitPoint* parent = nullptr;  // the split point the owner was working under
  int parent_at = 0;                   // the position in parent's list of the child it was searching
  bool ordered = false;                // in an ordered pass (above)
  const Child* children = nullptr;     // the owner's, on its stack
  int list[kMaxPits] = {};             // the children to share, in order
  int count = 0;
  int b0 = 0;                         // the node's beta (within its known bounds)
  int k = 0;                          // seeds in the node's pits: the split point with the most is joined first
  int depth = 0;                      // the node's remaining depth
  NodeKind kind = NodeKind::unknown;  // the node's, for its children's
  void (*work)(Searcher&, SplitPoint&) = nullptr;  // the searcher's loop, for this pit count and rule set

  // Shared: a, best, best_move and estimate under lock; next written under it (read without
  // it as a hint); helpers counted under the pool's lock as searchers join, down as they leave.
  SpinLock lock;
  std::atomic<int> next{0};     // the next position in list to hand out (written under lock)
  int a = 0;                    // the node's alpha so far
  int best = 0;                 // the node's best result so far
  int best_move = -1;           // its sowing
  int best_at = -1;             // best_move's position in list (-1: searched before the split)
  bool estimate = false;        // a result depended on the horizon of a shallow search
  std::atomic<int> helpers{0};  // searchers other than the owner working in it
  // Written under lock: the position in list of the child that cut (ordered: the earliest so
  // far), -1 when every child is to stop (unordered), kNotCut before any cut. The children at
  // positions after it are not needed.
  std::atomic<int> cut_at{kNotCut};
  // Ordered only, by position in list: the child's result, whether it was searched (else its
  // upper bound was all it could give: Child::hi <= a), whether it depended on the horizon,
  // and its table stores (above). The owner folds them in order when the split point ends, so
  // the node's best, sowing and estimate are one searcher's, whatever order they came in.
  int result_at[kMaxPits] = {};
  bool searched_at[kMaxPits] = {};
  bool estimate_at[kMaxPits] = {};
  bool done_at[kMaxPits] = {};            // a result came back (and may be dropped by an earlier cut)
  std::uint64_t nodes_at[kMaxPits] = {};  // the nodes its searcher searched for it
  std::vector<HeldStore> held[kMaxPits];

  // The node's side, set before the split point is published: its children (list and count
  // filled in apart), beta, seeds, remaining depth and kind, and its a, best and sowing so far.
  void set_node(const Child* node_children, int node_b0, int node_k, int node_depth, NodeKind node_kind, int node_a,
                int node_best, int node_best_move) {
    children = node_children;
    b0 = node_b0;
    k = node_k;
    depth = node_depth;
    kind = node_kind;
    a = node_a;
    best = node_best;
    best_move = node_best_move;
  }

  bool has_work() const {
    return next.load(std::memory_order_relaxed) < count && cut_at.load(std::memory_order_relaxed) == kNotCut;
  }
  // Is the child at position `at` of p, or the child of an ancestor that p descends from,
  // after a cut (its search no longer needed)?
  static bool cut_above(const SplitPoint* p, int at) {
    for (; p; at = p->parent_at, p = p->parent)
      if (p->cut_at.load(std::memory_order_acquire) < at) return true;
    return false;
  }
  bool descends_from(const SplitPoint* ancestor) const {
    for (const SplitPoint* p = this; p; p = p->parent)
      if (p == ancestor) return true;
    return false;
  }
};

// The split points open to helpers, the searchers without work, and the cut hints.
class SplitPool {
 public:
  explicit SplitPool(int searchers) : hints_(static_cast<std::size_t>(searchers)) {}

  // Publish / withdraw a split point (the owner's). After withdraw no searcher joins it.
  void publish(SplitPoint* sp) {
    const std::lock_guard guard(lock_);
    open_.push_back(sp);
    open_count_.store(open_.size(), std::memory_order_relaxed);
  }
  void withdraw(SplitPoint* sp) {
    const std::lock_guard guard(lock_);
    for (std::size_t i = 0; i < open_.size(); ++i)
      if (open_[i] == sp) {
        open_[i] = open_.back();
        open_.pop_back();
        break;
      }
    open_count_.store(open_.size(), std::memory_order_relaxed);
  }
  // Join the open split point with work and the most seeds (among the descendants of
  // `within` when given), counted as its helper; nullptr if none.
  SplitPoint* join(const SplitPoint* within) {
    if (open_count_.load(std::memory_order_relaxed) == 0) return nullptr;  // no lock while nothing is open
    const std::lock_guard guard(lock_);
    SplitPoint* pick = nullptr;
    for (SplitPoint* sp : open_)
      if (sp->has_work() && (!within || sp->descends_from(within)) && (!pick || sp->k > pick->k)) pick = sp;
    if (pick) pick->helpers.fetch_add(1, std::memory_order_relaxed);  // seen by the owner after withdraw
    return pick;
  }
  static void leave(SplitPoint* sp) { sp->helpers.fetch_sub(1, std::memory_order_release); }

  // Searchers looking for work (in help, or an owner waiting for its helpers).
  std::atomic<int> idle{0};
  // Set when the walker's search of the pass has returned: the helpers return.
  std::atomic<bool> done{false};

  // A cut happened somewhere: every searcher's hint is set (Searcher::unwinding).
  void hint_all() {
    for (auto& h : hints_) h.store(true, std::memory_order_seq_cst);
  }
  std::atomic<bool>& hint(int searcher) { return hints_[static_cast<std::size_t>(searcher)]; }

 private:
  SpinLock lock_;
  std::vector<SplitPoint*> open_;
  std::atomic<std::size_t> open_count_{0};  // open_.size(), read without the lock by searchers spinning
  std::vector<std::atomic<bool>> hints_;
};

}  // namespace kalah::search

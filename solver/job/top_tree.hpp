// solver/job/top_tree.hpp — the top of the game tree a proof job works on: boards, the
// bounds proven on their values, and which leaf question advances a proof most.
//
// Nodes are boards (mover-relative, engine/board.hpp) with proven bounds lower <= v <= upper
// on their remainder value v. A transposition is one node (the graph is a DAG: no sowing
// sequence returns to a board). A node is a leaf until expanded; an expanded node has one edge
// a non-empty pit, each with the seeds the sowing banked and whether it earned an extra turn,
// and its bounds are kept within what its children's bounds give
//     lower >= max over edges of value_through(stored, extra, child bound),
// (an extra turn adds the child's bound, else subtracts the child's other bound), the same for
// upper. Bounds only narrow; two proofs that disagree (an empty interval) are a bug and throw.
// Every bound has the parity of the seeds in the pits (v = k mod 2, solver/base/value_bounds.hpp).
//
// A test "v(n) >= g" is decided when lower >= g (true) or upper < g (false). Over the nodes
// below an undecided test, proof numbers (Allis 1994) count the leaf questions still needed:
// a node is an OR of its edges, an edge with an extra turn asks its child the same kind of
// question (v(c) >= g - stored), one without asks the negation (v(c) >= stored - g + 1 false),
// so the edge's proof and disproof numbers are the child's, swapped. select() walks from the
// target to a most-proving leaf that has no unit in flight. A leaf's numbers start as
// LeafNumbers says: Allis' 1 and 1, or 1 to prove and its number of moves to disprove (every
// move must fail), the side an estimate of its value calls unlikely weighted by kUnlikely.
// Where the numbers tie, an estimate of the children's values picks the edge most likely to
// prove: what a player would try first. select_committed walks the line the estimate expects
// instead (Selection::kCommit): one edge where the test should hold, every edge where it
// should fail.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/board.hpp"
#include "engine/rules.hpp"

namespace kalah::job {

struct TopEdge {
  int child = -1;
  int pit = 0;  // 0-based pit of the mover
  int stored = 0;
  bool extra_turn = false;
};

struct TopNode {
  Board board;
  int seeds = 0;  // in the pits
  int lower = 0, upper = 0;
  bool expanded = false;
  bool terminal = false;
  std::optional<int> guess;    // an estimate of the value from a worker (not a bound)
  std::vector<TopEdge> edges;  // by pit, once expanded
  std::vector<int> parents;    // nodes with an edge to this one
  int in_flight = 0;           // units under way on this node
  bool exact() const { return lower == upper; }
};

// A question for a worker: decide "v(node) >= gamma".
struct Question {
  int node = -1;
  int gamma = 0;
};

// How an unexpanded leaf's proof and disproof numbers start, for "v(leaf) >= gamma".
enum class LeafNumbers {
  // 1 and 1 (Allis 1994). Expanding a sowing then raises its proof number from 1 to the sum
  // over the opponent's replies, so the walk leaves the sowing it just split for untried ones.
  kOne,
  // 1 to prove (one good move), the leaf's number of moves to disprove (all must fail): a
  // leaf counts what its expansion will when its replies end the turn (a reply with an extra
  // turn counts that board's moves), so splitting a sowing hardly pushes the walk away.
  kMoves,
  // kMoves, and the side the leaf's estimate calls unlikely (proof when the estimate is below
  // gamma, else disproof) multiplied by kUnlikely; a leaf with no estimate as kMoves.
  kEstimate,
};

// How select picks the next leaf question of a test.
enum class Selection {
  // The most-proving free leaf by proof numbers (select). Proof numbers count leaves, not
  // work: splitting a leaf raises its numbers, so the walk leaves every leaf it splits
  // (results/kalah66.md, runs 3 to 5).
  kProofNumbers,
  // The expected line (select_committed): where the test is expected to hold, the edge the
  // estimate ranks first until it is decided false; where it is expected to fail, every
  // edge, the most dangerous first. What an alpha-beta search with good move order does.
  kCommit,
};

class TopTree {
 public:
  // `rules`: the value rules the job solves under (natural end, no pie).
  TopTree(int pits, const Rules& rules);

  int pits() const { return pits_; }
  const Rules& rules() const { return rules_; }
  int size() const { return static_cast<int>(nodes_.size()); }
  const TopNode& node(int id) const { return nodes_[static_cast<std::size_t>(id)]; }
  std::optional<int> find(const Board& b) const;

  // The node of board b: an existing one, or a new leaf with the bounds its seeds allow (exact
  // when the board is terminal). *created tells which.
  int add(const Board& b, bool* created = nullptr);
  // Expands leaf `id` (not terminal): an edge a non-empty pit, children added where new.
  // Returns the nodes created. The node's bounds are tightened by its children's.
  std::vector<int> expand(int id, std::vector<int>* changed = nullptr);
  // Restores an expansion read back from a store: the edges as given (checked against the
  // sowings). Throws std::runtime_error when they do not match.
  void restore_edges(int id, const std::vector<TopEdge>& edges);
  // Intersects node id's bounds with [lower, upper] (rounded inwards to the parity of its
  // seeds) and propagates up to its ancestors. Appends each node whose bounds changed to
  // *changed. Throws std::logic_error when the bounds cross (a wrong proof somewhere).
  void tighten(int id, int lower, int upper, std::vector<int>* changed = nullptr);
  // The same boards and expansions with no bounds but what the seeds allow (a terminal board
  // its value), its expanded nodes' bounds from their children: the tree before any unit
  // (kalah job verify and history replay the units on it).
  TopTree skeleton() const;
  // Recomputes every expanded node's bounds from its children (after a load: stored bounds
  // are checked against each other, not trusted). Throws std::logic_error where they cross.
  void recheck();
  void set_guess(int id, int guess) { nodes_[static_cast<std::size_t>(id)].guess = guess; }
  void add_in_flight(int id, int delta) { nodes_[static_cast<std::size_t>(id)].in_flight += delta; }

  // Bounds on a node's value through its edge e: the seeds the sowing banked and the child's
  // bounds (added with an extra turn, else the child's other bound subtracted).
  std::pair<int, int> bounds_through(const TopEdge& e) const;
  // The question an edge asks its child for "v(parent) >= gamma": the child's gamma, and
  // whether its answer is negated (no extra turn: the child's mover is the opponent).
  static Question edge_question(const TopEdge& e, int gamma, bool* negated);
  // The mover's sowings from node id (its non-empty pits): the edges its expansion makes.
  int moves(int id) const;
  // A shortest line of edges from node 0 (the position) to node id, in order (found from the
  // node up through its parents): empty for the root, an id out of range, and a node node 0
  // does not reach. For people reading a log: which board a node is.
  std::vector<TopEdge> line_to(int id) const;

  // Decided tests: +1 true, -1 false, 0 undecided.
  int decided(int id, int gamma) const;

  struct Numbers {
    std::uint64_t proof = 0, disproof = 0;
    bool available = false;  // a leaf without a unit in flight lies below
  };
  static constexpr std::uint64_t kInfinite = ~std::uint64_t(0) >> 2;
  // LeafNumbers::kEstimate's weight on the outcome a leaf's estimate calls unlikely.
  static constexpr std::uint64_t kUnlikely = 4;
  // An estimate of a node's value (not a bound), or none: what select breaks ties with and,
  // by LeafNumbers::kEstimate, what weights a leaf's numbers.
  using Expectation = std::function<std::optional<int>(int node)>;
  // A most-proving leaf question for "v(target) >= gamma" whose leaf has no unit in flight;
  // none when the test is decided or every such leaf is busy. Leaves start as `leaves` says
  // (kEstimate asks `expected` of every open leaf below the target). At each node the edge
  // with the least proof number, ties to the greatest value `expected` gives through the edge
  // (an edge whose child has no estimate after one that has), then to the least disproof
  // number, then to the lowest pit. The estimate comes before the disproof number because a
  // split sowing's disproof number is its replies' (about 5 on (6,6)) against 1 for an untried
  // one: the other way the walk would leave a sowing it had just split. Which leaf is chosen
  // never changes a value, only the work.
  std::optional<Question> select(int target, int gamma, const Expectation& expected = {},
                                 LeafNumbers leaves = LeafNumbers::kOne) const;
  // A leaf question for "v(target) >= gamma" on the expected line, whose leaf has no unit in
  // flight; none when the test is decided or the line's leaves are all busy (then a busy one
  // is best split, not a speculative edge started). `expect_true` is the outcome expected at
  // the target; it holds down an edge with an extra turn and flips down one without. At a
  // node expected to hold, only its first undecided edge is walked (one good move proves it);
  // at one expected to fail, its first undecided edge with a free leaf (every move must be
  // refuted). Edges go in the order of the value `expected` gives through them, the greatest
  // first (an edge whose child has no estimate after one that has), then by lowest pit. A
  // wrong expectation costs work, never a value: an edge decided false is passed over.
  // `expected` must answer the same for a node throughout the call. With `busy_leaves` a leaf
  // with a unit in flight counts as free: the line's first leaf, busy when the walk without
  // finds none (the leaf to split for an idle worker).
  std::optional<Question> select_committed(int target, int gamma, bool expect_true, const Expectation& expected = {},
                                           bool busy_leaves = false) const;
  // The proof and disproof numbers of "v(id) >= gamma" (what select walks by).
  Numbers numbers(int id, int gamma, const Expectation& expected = {}, LeafNumbers leaves = LeafNumbers::kOne) const;

  // Leaves (not expanded, not exact) below the nodes `tops` that are not exact (a top that is
  // such a leaf counts), each counted once.
  std::uint64_t open_leaves_below(const std::vector<int>& tops) const;

 private:
  using Memo = std::unordered_map<std::uint64_t, Numbers>;
  struct Walk {  // one select's or numbers' walk: how leaves start, and the memo
    const Expectation& expected;
    LeafNumbers leaves;
    Memo memo;
  };
  Numbers numbers(int id, int gamma, Walk& walk, int depth) const;
  struct Step {  // an undecided edge of the committed walk: the question it asks its child
    Question question;
    bool negated = false;
  };
  // Node q's undecided edges in select_committed's order.
  std::vector<Step> committed_order(const Question& q, const Expectation& expected) const;
  // Whether select_committed finds a free leaf below q (memoized by node, gamma and the
  // expectation).
  bool committed_free(const Question& q, bool expect_true, const Expectation& expected, bool busy_leaves,
                      std::unordered_map<std::uint64_t, bool>& memo, int depth) const;
  Numbers leaf_numbers(int id, int gamma, const Walk& walk) const;
  std::pair<int, int> bounds_from_children(const TopNode& n) const;
  void propagate(int id, std::vector<int>* changed);

  int pits_;
  Rules rules_;
  std::vector<TopNode> nodes_;
  std::unordered_map<Board, int, BoardHash> index_;
};

// " (1-3 2)": line_to(id) for a log line, 1-based pits, '-' after a sowing that earned an extra
// turn, a space between turns, "-.." where the line stops inside a turn (not at an ended game);
// "" for the root.
std::string line_text(const TopTree& tree, int id);

}  // namespace kalah::job

#include "solver/job/top_tree.hpp"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "solver/base/value_bounds.hpp"

namespace kalah::job {

namespace {

int seeds_of(const Board& b, int m) { return side_seeds(b, m, 0) + side_seeds(b, m, 1); }

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  return std::min(TopTree::kInfinite, a + b);  // both <= kInfinite: no overflow
}

constexpr int kMaxDepth = 4096;  // far beyond any game's length: a guard against a cycle

}  // namespace

TopTree::TopTree(int pits, const Rules& rules) : pits_(pits), rules_(rules.value_rules()) {}

std::optional<int> TopTree::find(const Board& b) const {
  const auto it = index_.find(b);
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

int TopTree::add(const Board& b, bool* created) {
  if (const auto it = index_.find(b); it != index_.end()) {
    if (created) *created = false;
    return it->second;
  }
  TopNode n;
  n.board = b;
  n.seeds = seeds_of(b, pits_);
  int remainder = 0;
  if (is_terminal(b, pits_, rules_.end, remainder)) {
    n.terminal = true;
    n.lower = n.upper = remainder;
  } else {
    n.lower = base::min_value(n.seeds, rules_);
    n.upper = base::max_value(n.seeds);
  }
  const int id = size();
  nodes_.push_back(std::move(n));
  index_.emplace(b, id);
  if (created) *created = true;
  return id;
}

std::vector<int> TopTree::expand(int id, std::vector<int>* changed) {
  assert(id >= 0 && id < size());
  std::vector<int> created;
  std::vector<TopEdge> edges;
  const Board b = node(id).board;
  if (node(id).expanded || node(id).terminal)
    throw std::logic_error("TopTree::expand: node " + std::to_string(id) + " is not an open leaf");
  for (int pit = 0; pit < pits_; ++pit) {
    if (b.cells[static_cast<std::size_t>(pit)] == 0) continue;
    Board child = b;
    const SowOutcome out = sow(child, pits_, pit, rules_);
    if (!out.extra_turn) child = flipped(child, pits_);
    bool is_new = false;
    const int c = add(child, &is_new);  // may reallocate nodes_
    if (is_new) created.push_back(c);
    edges.push_back(TopEdge{c, pit, out.stored, out.extra_turn});
  }
  TopNode& n = nodes_[static_cast<std::size_t>(id)];
  n.edges = std::move(edges);
  n.expanded = true;
  for (const TopEdge& e : n.edges) nodes_[static_cast<std::size_t>(e.child)].parents.push_back(id);
  propagate(id, changed);
  return created;
}

void TopTree::restore_edges(int id, const std::vector<TopEdge>& edges) {
  // Re-derive the expansion and compare: a store's edges are checked, not trusted.
  TopNode probe = node(id);
  std::size_t i = 0;
  for (int pit = 0; pit < pits_; ++pit) {
    if (probe.board.cells[static_cast<std::size_t>(pit)] == 0) continue;
    Board child = probe.board;
    const SowOutcome out = sow(child, pits_, pit, rules_);
    if (!out.extra_turn) child = flipped(child, pits_);
    const auto c = find(child);
    if (i >= edges.size() || !c || edges[i].child != *c || edges[i].pit != pit || edges[i].stored != out.stored ||
        edges[i].extra_turn != out.extra_turn)
      throw std::runtime_error("the stored children of node " + std::to_string(id) + " are not its sowings");
    ++i;
  }
  if (i != edges.size() || probe.terminal || probe.expanded)
    throw std::runtime_error("the stored children of node " + std::to_string(id) + " are not its sowings");
  TopNode& n = nodes_[static_cast<std::size_t>(id)];
  n.edges = edges;
  n.expanded = true;
  for (const TopEdge& e : n.edges) nodes_[static_cast<std::size_t>(e.child)].parents.push_back(id);
}

std::pair<int, int> TopTree::bounds_through(const TopEdge& e) const {
  const TopNode& c = node(e.child);
  return e.extra_turn ? std::pair{value_through(e.stored, true, c.lower), value_through(e.stored, true, c.upper)}
                      : std::pair{value_through(e.stored, false, c.upper), value_through(e.stored, false, c.lower)};
}

std::pair<int, int> TopTree::bounds_from_children(const TopNode& n) const {
  int lo = -kMaxSeeds - 1, hi = -kMaxSeeds - 1;  // below any value; an expanded node has an edge
  for (const TopEdge& e : n.edges) {
    const auto [elo, ehi] = bounds_through(e);
    lo = std::max(lo, elo);
    hi = std::max(hi, ehi);
  }
  return {lo, hi};
}

void TopTree::tighten(int id, int lower, int upper, std::vector<int>* changed) {
  assert(id >= 0 && id < size());
  TopNode& n = nodes_[static_cast<std::size_t>(id)];
  const int lo = std::max(n.lower, base::round_up(lower, n.seeds));
  const int hi = std::min(n.upper, base::round_down(upper, n.seeds));
  if (lo > hi)
    throw std::logic_error("proof job: the bounds proven on node " + std::to_string(id) + " disagree: [" +
                           std::to_string(n.lower) + ", " + std::to_string(n.upper) + "] and [" +
                           std::to_string(lower) + ", " + std::to_string(upper) + "]");
  if (lo == n.lower && hi == n.upper) return;
  n.lower = lo;
  n.upper = hi;
  if (changed) changed->push_back(id);
  for (const int p : std::vector<int>(n.parents)) propagate(p, changed);
}

void TopTree::propagate(int id, std::vector<int>* changed) {
  const auto [lo, hi] = bounds_from_children(node(id));
  tighten(id, lo, hi, changed);
}

TopTree TopTree::skeleton() const {
  TopTree t(pits_, rules_);
  for (const TopNode& n : nodes_) t.add(n.board);
  for (int id = 0; id < size(); ++id)
    if (node(id).expanded) t.restore_edges(id, node(id).edges);
  t.recheck();
  return t;
}

void TopTree::recheck() {
  for (int id = size() - 1; id >= 0; --id)
    if (node(id).expanded) propagate(id, nullptr);
}

int TopTree::decided(int id, int gamma) const {
  const TopNode& n = node(id);
  if (n.lower >= gamma) return 1;
  if (n.upper < gamma) return -1;
  return 0;
}

Question TopTree::edge_question(const TopEdge& e, int gamma, bool* negated) {
  // value_through(stored, extra, v) >= gamma  <=>  v >= gamma - stored (extra turn), else
  // stored - v >= gamma <=> v <= stored - gamma <=> not (v >= stored - gamma + 1).
  *negated = !e.extra_turn;
  return Question{e.child, e.extra_turn ? gamma - e.stored : e.stored - gamma + 1};
}

int TopTree::moves(int id) const {
  const Board& b = node(id).board;
  int count = 0;
  for (int pit = 0; pit < pits_; ++pit) count += b.cells[static_cast<std::size_t>(pit)] != 0;
  return count;
}

std::vector<TopEdge> TopTree::line_to(int id) const {
  if (id <= 0 || id >= size()) return {};
  // Breadth first from the node up through its parents (a small part of the tree), each node
  // reached remembering the child it was reached from, until the root.
  std::unordered_map<int, int> toward{{id, id}};
  std::vector<int> queue{id};
  for (std::size_t at = 0; at < queue.size() && !toward.count(0); ++at)
    for (const int parent : node(queue[at]).parents)
      if (toward.emplace(parent, queue[at]).second) queue.push_back(parent);
  std::vector<TopEdge> line;
  if (!toward.count(0)) return line;
  for (int n = 0; n != id;) {
    const int next = toward.at(n);
    const auto e = std::find_if(node(n).edges.begin(), node(n).edges.end(),
                                [&](const TopEdge& edge) { return edge.child == next; });
    assert(e != node(n).edges.end());
    line.push_back(*e);
    n = next;
  }
  return line;
}

std::string line_text(const TopTree& tree, int id) {
  const std::vector<TopEdge> line = tree.line_to(id);
  if (line.empty()) return "";
  std::string text;
  for (const TopEdge& e : line) text += std::to_string(e.pit + 1) + (e.extra_turn ? "-" : " ");
  if (text.back() == ' ' || tree.node(line.back().child).terminal)
    text.pop_back();  // the turn ended (an extra turn onto an ended game ends it too)
  else
    text += "..";
  return " (" + text + ")";
}

TopTree::Numbers TopTree::leaf_numbers(int id, int gamma, const Walk& walk) const {
  Numbers r{1, 1, node(id).in_flight == 0};
  if (walk.leaves == LeafNumbers::kOne) return r;
  r.disproof = static_cast<std::uint64_t>(std::max(moves(id), 1));
  if (walk.leaves == LeafNumbers::kEstimate && walk.expected) {
    if (const std::optional<int> e = walk.expected(id)) {
      if (*e >= gamma)
        r.disproof *= kUnlikely;
      else
        r.proof *= kUnlikely;
    }
  }
  return r;
}

TopTree::Numbers TopTree::numbers(int id, int gamma, Walk& walk, int depth) const {
  if (depth > kMaxDepth) throw std::logic_error("proof job: the top tree is deeper than any game (a cycle?)");
  switch (decided(id, gamma)) {
    case 1: return {0, kInfinite, false};
    case -1: return {kInfinite, 0, false};
    default: break;
  }
  const TopNode& n = node(id);
  if (!n.expanded) return leaf_numbers(id, gamma, walk);
  const std::uint64_t key = (static_cast<std::uint64_t>(id) << 12) | static_cast<std::uint64_t>(gamma + 2048);
  if (const auto it = walk.memo.find(key); it != walk.memo.end()) return it->second;
  Numbers r{kInfinite, 0, false};
  for (const TopEdge& e : n.edges) {
    bool negated = false;
    const Question q = edge_question(e, gamma, &negated);
    Numbers c = numbers(q.node, q.gamma, walk, depth + 1);
    if (negated) std::swap(c.proof, c.disproof);
    r.proof = std::min(r.proof, c.proof);
    r.disproof = saturating_add(r.disproof, c.disproof);
    // Only an undecided edge can help: a decided one has no open leaf.
    r.available = r.available || c.available;
  }
  walk.memo.emplace(key, r);
  return r;
}

TopTree::Numbers TopTree::numbers(int id, int gamma, const Expectation& expected, LeafNumbers leaves) const {
  Walk walk{expected, leaves, {}};
  return numbers(id, gamma, walk, 0);
}

std::optional<Question> TopTree::select(int target, int gamma, const Expectation& expected, LeafNumbers leaves) const {
  Walk walk{expected, leaves, {}};
  Question q{target, gamma};
  // The value through edge e by the estimate of its child; none without one.
  auto through = [&](const TopEdge& e) -> std::optional<int> {
    if (!expected) return std::nullopt;
    const std::optional<int> v = expected(e.child);
    if (!v) return std::nullopt;
    return value_through(e.stored, e.extra_turn, *v);
  };
  for (int depth = 0;; ++depth) {
    const Numbers here = numbers(q.node, q.gamma, walk, depth);
    if (!here.available || here.proof == 0 || here.disproof == 0) return std::nullopt;
    const TopNode& n = node(q.node);
    if (!n.expanded) return q;
    // The edge that proves this node most cheaply among those with a free leaf (see the
    // declaration for the ties). The estimate is asked of the open leaves for their numbers
    // (kEstimate) and of the children again where the numbers tie.
    const TopEdge* best = nullptr;
    Question best_question;
    std::uint64_t best_proof = kInfinite + 1, best_disproof = 0;
    for (const TopEdge& e : n.edges) {
      bool negated = false;
      const Question eq = edge_question(e, q.gamma, &negated);
      Numbers c = numbers(eq.node, eq.gamma, walk, depth + 1);
      if (!c.available || c.proof == 0 || c.disproof == 0) continue;
      if (negated) std::swap(c.proof, c.disproof);
      bool better = !best || c.proof < best_proof;
      if (best && c.proof == best_proof) {
        // The front end memoizes its estimates: asking again at each tie costs a lookup.
        const std::optional<int> mine = through(e), incumbent = through(*best);
        if (mine != incumbent)
          better = mine && (!incumbent || *mine > *incumbent);
        else
          better = c.disproof < best_disproof;
      }
      if (better) {
        best = &e;
        best_question = eq;
        best_proof = c.proof;
        best_disproof = c.disproof;
      }
    }
    if (!best) return std::nullopt;
    q = best_question;
  }
}

std::vector<TopTree::Step> TopTree::committed_order(const Question& q, const Expectation& expected) const {
  struct Ranked {
    Step step;
    std::optional<int> through;
    int pit;
  };
  std::vector<Ranked> ranked;
  for (const TopEdge& e : node(q.node).edges) {
    Ranked r{};
    r.step.question = edge_question(e, q.gamma, &r.step.negated);
    if (decided(r.step.question.node, r.step.question.gamma) != 0) continue;
    if (expected)
      if (const std::optional<int> v = expected(e.child)) r.through = value_through(e.stored, e.extra_turn, *v);
    r.pit = e.pit;
    ranked.push_back(r);
  }
  std::sort(ranked.begin(), ranked.end(), [](const Ranked& a, const Ranked& b) {
    if (a.through != b.through) return a.through && (!b.through || *a.through > *b.through);
    return a.pit < b.pit;
  });
  std::vector<Step> steps;
  steps.reserve(ranked.size());
  for (const Ranked& r : ranked) steps.push_back(r.step);
  return steps;
}

bool TopTree::committed_free(const Question& q, bool expect_true, const Expectation& expected, bool busy_leaves,
                             std::unordered_map<std::uint64_t, bool>& memo, int depth) const {
  if (depth > kMaxDepth) throw std::logic_error("proof job: the top tree is deeper than any game (a cycle?)");
  if (decided(q.node, q.gamma) != 0) return false;
  const TopNode& n = node(q.node);
  if (!n.expanded) return busy_leaves || n.in_flight == 0;
  const std::uint64_t key = (static_cast<std::uint64_t>(q.node) << 13) |
                            (static_cast<std::uint64_t>(q.gamma + 2048) << 1) | (expect_true ? 1 : 0);
  if (const auto it = memo.find(key); it != memo.end()) return it->second;
  bool free = false;
  for (const Step& s : committed_order(q, expected)) {
    free = committed_free(s.question, expect_true != s.negated, expected, busy_leaves, memo, depth + 1);
    if (free || expect_true) break;  // expected to hold: the first edge only
  }
  memo.emplace(key, free);
  return free;
}

std::optional<Question> TopTree::select_committed(int target, int gamma, bool expect_true, const Expectation& expected,
                                                  bool busy_leaves) const {
  assert(target >= 0 && target < size());
  std::unordered_map<std::uint64_t, bool> memo;
  Question q{target, gamma};
  if (!committed_free(q, expect_true, expected, busy_leaves, memo, 0)) return std::nullopt;
  for (int depth = 0;; ++depth) {
    if (!node(q.node).expanded) return q;
    // committed_free(q) holds: the first edge it accepted leads on.
    bool found = false;
    for (const Step& s : committed_order(q, expected)) {
      const bool child_expect = expect_true != s.negated;
      if (committed_free(s.question, child_expect, expected, busy_leaves, memo, depth + 1)) {
        q = s.question;
        expect_true = child_expect;
        found = true;
        break;
      }
      if (expect_true) break;
    }
    if (!found) throw std::logic_error("proof job: the committed walk lost its free leaf");
  }
}

std::uint64_t TopTree::open_leaves_below(const std::vector<int>& tops) const {
  std::vector<char> seen(nodes_.size(), 0);
  std::vector<int> stack(tops);
  std::uint64_t leaves = 0;
  while (!stack.empty()) {
    const int v = stack.back();
    stack.pop_back();
    if (seen[static_cast<std::size_t>(v)]) continue;
    seen[static_cast<std::size_t>(v)] = 1;
    const TopNode& n = node(v);
    if (n.exact()) continue;
    if (!n.expanded) {
      ++leaves;
      continue;
    }
    for (const TopEdge& e : n.edges) stack.push_back(e.child);
  }
  return leaves;
}

}  // namespace kalah::job

#include "solver/job/proof.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

#include "solver/base/value_bounds.hpp"

namespace kalah::job {

namespace {

constexpr int kMaxDepth = 4096;  // far beyond any game's length: a guard against a cycle

class ProofWalk {
 public:
  ProofWalk(const TopTree& tree, const std::vector<UnitRecord>& units) : tree_(tree) {
    for (const UnitRecord& u : units) by_node_[u.node].push_back(&u);
    proof_.pits = tree.pits();
  }

  // Walks "v(line.node) >= line.gamma" is line.holds; line carries the edge it came by.
  void walk(ProofLine line) {
    const TopNode& n = tree_.node(line.node);
    const Rules& rules = tree_.rules();
    line.gamma = base::round_up(line.gamma, n.seeds);
    line.board = n.board;
    if (line.depth == 0) proof_.paths.emplace(line.node, tree_.line_to(line.node));
    if (line.depth > kMaxDepth || (line.holds ? n.lower < line.gamma : n.upper >= line.gamma))
      throw std::logic_error("the proof walk met a test the tree does not decide (node " + std::to_string(line.node) +
                             ")");
    if (!seen_.emplace(line.node, line.gamma, line.holds).second) {
      line.by = ProofLine::By::again;
      proof_.lines.push_back(line);
      return;
    }
    if (n.terminal ||
        (line.holds ? base::min_value(n.seeds, rules) >= line.gamma : base::max_value(n.seeds) < line.gamma)) {
      line.by = n.terminal ? ProofLine::By::end : ProofLine::By::seeds;
      proof_.lines.push_back(line);
      return;
    }
    const UnitRecord* quickest = nullptr;
    for (const UnitRecord* u : by_node_[line.node]) {
      const bool decides = line.holds ? base::round_up(u->lower, n.seeds) >= line.gamma
                                      : base::round_down(u->upper, n.seeds) < line.gamma;
      if (decides && (!quickest || u->seconds < quickest->seconds)) quickest = u;
    }
    if (quickest) {
      line.by = ProofLine::By::unit;
      line.unit = *quickest;
      units_.emplace(quickest->id, *quickest);
      proof_.lines.push_back(line);
      return;
    }
    if (!n.expanded)
      throw std::logic_error("the proof walk met a leaf no unit decided (node " + std::to_string(line.node) + ")");
    line.by = ProofLine::By::children;
    proof_.lines.push_back(line);
    bool proven = false;
    for (const TopEdge& e : n.edges) {
      bool negated = false;
      const Question q = TopTree::edge_question(e, line.gamma, &negated);
      ProofLine child;
      child.depth = line.depth + 1;
      child.node = q.node;
      child.pit = e.pit;
      child.stored = e.stored;
      child.extra_turn = e.extra_turn;
      child.gamma = q.gamma;
      child.holds = line.holds != negated;
      if (line.holds) {  // one edge that proves it
        const TopNode& c = tree_.node(q.node);
        const int g = base::round_up(q.gamma, c.seeds);
        if (child.holds ? c.lower < g : c.upper >= g) continue;
        walk(child);
        proven = true;
        break;
      }
      walk(child);  // every edge fails
    }
    if (line.holds && !proven)
      throw std::logic_error("no edge proves a bound node " + std::to_string(line.node) + " has");
  }

  Proof take() {
    for (auto& [id, u] : units_) proof_.units.push_back(u);
    return std::move(proof_);
  }

 private:
  const TopTree& tree_;
  std::unordered_map<int, std::vector<const UnitRecord*>> by_node_;
  std::set<std::tuple<int, int, bool>> seen_;
  std::map<std::int64_t, UnitRecord> units_;
  Proof proof_;
};

}  // namespace

Proof proof_of(const TopTree& tree, const std::vector<int>& goals, const std::vector<UnitRecord>& units) {
  ProofWalk walk(tree, units);
  const TopTree bare = tree.skeleton();  // what the seeds and the expansions give alone
  for (const int id : goals) {
    const TopNode& n = tree.node(id);
    ProofLine line;
    line.node = id;
    if (n.lower > bare.node(id).lower) {
      line.gamma = n.lower;
      line.holds = true;
      walk.walk(line);
    }
    if (n.upper < bare.node(id).upper) {
      line.gamma = n.upper + 2;
      line.holds = false;
      walk.walk(line);
    }
  }
  return walk.take();
}

Proof job_proof(const std::filesystem::path& dir) {
  JobStore store(dir, false);
  const bool openings = store.spec().openings;
  store.begin_snapshot();
  const TopTree tree = store.load_tree();
  const std::vector<UnitRecord> units = store.units(tree.size());
  store.end_snapshot();
  return proof_of(tree, reported_nodes(tree, openings), units);
}

double Proof::unit_seconds() const {
  double seconds = 0;
  for (const UnitRecord& u : units) seconds += u.seconds;
  return seconds;
}

const char* by_name(ProofLine::By by) {
  switch (by) {
    case ProofLine::By::unit: return "unit";
    case ProofLine::By::seeds: return "seeds";
    case ProofLine::By::end: return "end";
    case ProofLine::By::children: return "children";
    case ProofLine::By::again: return "again";
  }
  return "?";
}

api::Json to_json(const Proof& proof) {
  using api::Json;
  Json units = Json::array(), lines = Json::array();
  for (const UnitRecord& u : proof.units) units.push_back(u.id);
  for (const ProofLine& l : proof.lines) {
    const bool reported = l.depth == 0;
    Json board = Json::array(), path = nullptr;
    for (int i = 0; i < 2 * proof.pits; ++i) board.push_back(int(l.board.cells[i]));
    if (reported) {
      path = Json::array();
      for (const TopEdge& e : proof.paths.at(l.node)) path.push_back(e.pit + 1);
    }
    lines.push_back({{"depth", l.depth},
                     {"node", l.node},
                     {"pit", reported ? Json(nullptr) : Json(l.pit + 1)},
                     {"stored", reported ? Json(nullptr) : Json(l.stored)},
                     {"extra_turn", l.extra_turn},
                     {"board", board},
                     {"path", path},
                     {"gamma", l.gamma},
                     {"holds", l.holds},
                     {"by", by_name(l.by)},
                     {"unit", l.unit ? Json(l.unit->id) : Json(nullptr)}});
  }
  return Json{{"units", units}, {"unit_seconds", proof.unit_seconds()}, {"lines", lines}};
}

std::vector<int> reported_nodes(const TopTree& tree, bool openings) {
  std::vector<int> nodes{0};
  if (!openings) return nodes;
  std::vector<int> first_player{0};  // boards where the first player is still on the first turn
  while (!first_player.empty()) {
    const int id = first_player.back();
    first_player.pop_back();
    for (const TopEdge& e : tree.node(id).edges) {
      nodes.push_back(e.child);
      if (e.extra_turn) first_player.push_back(e.child);
    }
  }
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  return nodes;
}

}  // namespace kalah::job

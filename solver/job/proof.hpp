// solver/job/proof.hpp — the proof of a job's reported bounds: the tests down the top tree
// and the units they rest on (kalah job verify --proof solves those units again; kalah job
// status --proof prints the tree).
//
// From each reported node's proven bounds (the position's, and an openings job's first
// sowings' and turns', reported_nodes) beyond what the seeds and the expansions give alone
// (TopTree::skeleton), a bound is a test "v(node) >= g": the lower bound
// holds at g = lower, the upper bound fails at g = upper + 2 (values have the parity of the
// seeds in the pits; every g here is rounded up to it). A test ends the walk where one of the
// node's own units decided it (the quickest such unit), where the seeds alone do (the least
// or greatest value they allow), or at a finished game. Otherwise the node is expanded and
// its children carry it: a test that holds by one edge that proves it (the first by pit), one
// that fails by every edge. An edge with an extra turn asks its child the same kind of test;
// one without asks the negation (TopTree::edge_question). A test met twice (a transposition)
// is walked once; later meetings are lines marked `again`.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <vector>

#include "engine/board.hpp"
#include "solver/api/report_json.hpp"
#include "solver/job/job_store.hpp"
#include "solver/job/top_tree.hpp"

namespace kalah::job {

// One test of the proof, in the walk's order (depth first, edges by pit).
struct ProofLine {
  int depth = 0;  // edges from the reported node
  int node = -1;
  int pit = -1;    // of the edge from the line above, 0-based (-1: a reported node)
  int stored = 0;  // seeds that edge's sowing banked (0 at a reported node)
  bool extra_turn = false;
  Board board;    // the node's, seen from its mover (engine/board.hpp)
  int gamma = 0;  // "v(node) >= gamma", remainder value for the mover, at the parity of the seeds
  bool holds = false;
  enum class By { unit, seeds, end, children, again };
  By by = By::children;
  std::optional<UnitRecord> unit;  // (By::unit) the unit that decided it
};

struct Proof {
  int pits = 0;
  std::vector<ProofLine> lines;
  // For each reported node the lines start from (depth 0), a shortest line of sowings to it
  // from the position (TopTree::line_to): what an outside checker replays to find its board.
  std::map<int, std::vector<TopEdge>> paths;
  std::vector<UnitRecord> units;  // the units the lines name, each once, by id
  double unit_seconds() const;    // their time in the runs
};

// The proof of the bounds of `goals` in `tree` from `units` (the store's). Throws
// std::logic_error where the tree's bounds are not what its units and children give (a tree
// from TopTree::skeleton with the units applied, or a store that kalah job verify passes,
// always is).
Proof proof_of(const TopTree& tree, const std::vector<int>& goals, const std::vector<UnitRecord>& units);

// The proof of the reported bounds of the job in `dir`, from its store as of one commit (a
// run may go on meanwhile). Throws as proof_of, and as JobStore when the store is unreadable.
Proof job_proof(const std::filesystem::path& dir);

// {"units": [ids], "unit_seconds": S, "lines": [{"depth", "node", "pit" (1-based or null),
// "stored" (null at depth 0), "extra_turn", "board" (2m counts, the mover's pits then the
// opponent's), "path" (depth 0: the 1-based pits from the position; null below), "gamma",
// "holds", "by": "unit"|"seeds"|"end"|"children"|"again", "unit"}]}: enough for a checker that
// knows only the rules (scripts/check_proof) to replay every sowing and check every step.
api::Json to_json(const Proof& proof);
const char* by_name(ProofLine::By by);

// The nodes whose bounds a job reports: the position (node 0), and for an openings job every
// first sowing and, through extra turns, every first turn the tree holds. Sorted.
std::vector<int> reported_nodes(const TopTree& tree, bool openings);

}  // namespace kalah::job

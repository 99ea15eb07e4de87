// solver/search/alphabeta.hpp — the negamax alpha-beta search on the remainder value.
//
// SearchContext is what all searchers of one solve share: the rules, the key scheme, the
// lock-free transposition table, the endgame probe and the stop flag of a parallel pass.
// A Searcher is one thread's search with its own node counter. Values are remainder values
// (engine/board.hpp): the mover's future store gain minus the opponent's, store-independent,
// so the table stores them without the stores and any two paths to the same pits transpose.
#pragma once

#include <atomic>
#include <cstdint>

#include "engine/board.hpp"
#include "engine/rules.hpp"
#include "solver/search/board_key.hpp"
#include "solver/search/endgame_probe.hpp"
#include "solver/search/transposition_table.hpp"

namespace kalah::search {

struct SearchContext {
  int pits = 0;
  Rules rules;
  BoardKey key;
  TranspositionTable* table = nullptr;
  EndgameProbe probe;
  std::atomic<bool> stop{false};  // set when a parallel pass is decided: searchers unwind
};

class Searcher {
 public:
  // variant 0 searches in the standard order; variant t > 0 (a helper thread of a parallel
  // pass) perturbs the order near the root so helpers fill the table with other subtrees.
  Searcher(SearchContext& context, int variant) : ctx_(&context), variant_(variant) {}

  // Fail-soft alpha-beta on board b (k seeds in the pits, mover to move), which must not be
  // terminal nor covered by the endgame probe; key = ctx.key.split(b, table index bits);
  // alpha < beta. Returns r with:
  //   r <= alpha  =>  value(b) <= r            (fail low, an upper bound)
  //   r >= beta   =>  value(b) >= r            (fail high, a lower bound)
  //   otherwise       value(b) == r            (exact)
  // The bounds proven are stored in the table. If ctx.stop becomes set the search unwinds
  // with a meaningless result and stores nothing more for the nodes it abandons.
  int search(const Board& b, int k, const BoardKey::Split& key, int alpha, int beta, int ply = 0);

  std::uint64_t nodes() const { return nodes_; }
  void reset_nodes() { nodes_ = 0; }

 private:
  // search() for a compile-time pit count M == ctx.pits (loops over the cells unrolled).
  template <int M>
  int search_m(const Board& b, int k, const BoardKey::Split& key, int alpha, int beta, int ply);

  SearchContext* ctx_;
  int variant_;
  std::uint64_t nodes_ = 0;
};

}  // namespace kalah::search

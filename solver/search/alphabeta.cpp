#include "solver/search/alphabeta.hpp"

#include <algorithm>
#include <bit>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "solver/search/children.hpp"
#include "solver/search/value_bounds.hpp"

namespace kalah::search {

namespace {
// is_terminal (engine/board.hpp) for a compile-time pit count: the emptiness tests on the
// whole halves at once, the seed counts only for a terminal board.
template <int M>
inline bool terminal_m(const Board& b, EndRule end, int& remainder) {
  __extension__ typedef unsigned __int128 u128;
  u128 x;
  std::memcpy(&x, b.cells.data(), sizeof x);
  constexpr u128 kOwn = (u128(1) << (8 * M)) - 1;
  const bool own_empty = (x & kOwn) == 0;
  const bool opp_empty = (x >> (8 * M)) == 0;  // cells from 2m on are zero
  if (own_empty || (end == EndRule::Either && opp_empty)) {
    remainder = side_seeds(b, M, 0) - side_seeds(b, M, 1);
    return true;
  }
  return false;
}
}  // namespace

int Searcher::search(const Board& b, int k, const BoardKey::Split& key, int alpha, int beta, int ply) {
  switch (ctx_->pits) {
    case 1: return search_m<1>(b, k, key, alpha, beta, ply);
    case 2: return search_m<2>(b, k, key, alpha, beta, ply);
    case 3: return search_m<3>(b, k, key, alpha, beta, ply);
    case 4: return search_m<4>(b, k, key, alpha, beta, ply);
    case 5: return search_m<5>(b, k, key, alpha, beta, ply);
    case 6: return search_m<6>(b, k, key, alpha, beta, ply);
    case 7: return search_m<7>(b, k, key, alpha, beta, ply);
    default: return search_m<8>(b, k, key, alpha, beta, ply);
  }
}

template <int M>
int Searcher::search_m(const Board& b, int k, const BoardKey::Split& key, int alpha, int beta, int ply) {
  static_assert(M >= 1 && M <= kMaxPits);
  SearchContext& ctx = *ctx_;
  constexpr int m = M;
  const Rules& rules = ctx.rules;
  TranspositionTable& table = *ctx.table;
  const int index_bits = table.index_bits();
  const std::uint64_t nodes_before = nodes_++;

  // What is known before looking at the children.
  const TableEntry known = table.probe(key.index, key.tag);
  const int lo = std::max(min_value(k, rules), known.lower);
  const int hi = std::min(max_value(k), known.upper);
  if (lo >= beta) return lo;
  if (hi <= alpha) return hi;
  if (lo == hi) return lo;
  // Narrow the window to the known bounds: a fail low at lo or a fail high at hi is exact.
  const int a0 = std::max(alpha, lo);
  const int b0 = std::min(beta, hi);
  int a = a0;

  // Every child, with what is known of it without recursing. First pass: sow, detect
  // terminal boards and database hits, compute keys and prefetch the table buckets; second
  // pass: read the table for the children (their loads overlap).
  // Uninitialised storage (every field used is written below): default-initialising eight
  // Children at every node cost more than a tenth of the node's instructions.
  union Children {
    Child c[kMaxPits];
    Children() {}
  } storage;
  Child* const children = storage.c;
  int n = 0;
  bool open[kMaxPits] = {};
  bool database[kMaxPits] = {};
  const std::int8_t* entry[kMaxPits];  // the database entry of a child (direct databases)
  const EndgameDatabase* const db = ctx.probe.database;
  for (int pit = 0; pit < m; ++pit) {
    if (b.cells[pit] == 0) continue;
    Child& c = children[n];
    c.board = b;
    const SowOutcome o = sow(c.board, m, pit, rules);
    c.pit = pit;
    c.extra = o.extra_turn;
    c.capture = o.capture;
    c.stored = o.stored;
    c.seeds = k - o.stored;
    if (!c.extra) c.board = flipped(c.board, m);
    int remainder = 0;
    open[n] = false;
    database[n] = false;
    if (terminal_m<M>(c.board, rules.end, remainder)) {
      c.lo = c.hi = c.through(remainder);
    } else if (ctx.probe.covers(c.seeds)) {
      if (db) {
        std::uint64_t idx = 0;
        int prefix = 0;
        const BoardIndexer& ix = db->indexer();
        for (int i = 0; i < 2 * M - 1; ++i) {
          prefix += c.board.cells[i];
          idx += ix.term(i, prefix);
        }
        entry[n] = db->level(c.seeds).data() + idx;
        __builtin_prefetch(entry[n]);
      } else {
        ctx.probe.warm(c.board, c.seeds);
      }
      database[n] = true;
    } else {
      c.key = ctx.key.split_m<M>(c.board, index_bits);
      table.prefetch(c.key.index);
      open[n] = true;
    }
    ++n;
  }
  int best = INT_MIN;
  int best_move = -1;
  for (int i = 0; i < n; ++i) {
    Child& c = children[i];
    if (open[i]) {
      const TableEntry e = table.probe(c.key.index, c.key.tag);
      const int clo = std::max(min_value(c.seeds, rules), e.lower);
      const int chi = std::min(max_value(c.seeds), e.upper);
      c.lo = c.through(c.extra ? clo : chi);
      c.hi = c.through(c.extra ? chi : clo);
    } else if (database[i]) {
      c.lo = c.hi = c.through(db ? *entry[i] : ctx.probe.value(c.board, c.seeds));
    }
    if (c.lo >= b0) {  // cut-off without recursing: terminal, database, table or futility
      const int r = round_up(c.lo, k);
      table.store(key.index, key.tag, r, 255, c.pit, 0);
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

  // Search the open children in order.
  int order[kMaxPits];
  for (int i = 0; i < n; ++i) {
    Child& c = children[i];
    c.score = move_score(c, known.move);
  }
  order_children(children, order, n);
  if (variant_ > 0 && ply < 3 && n > 2) {
    const int shift = 1 + (variant_ + ply + static_cast<int>(key.index & 3)) % (n - 1);
    std::rotate(order + 1, order + 1 + (shift % (n - 1)), order + n);
  }
  for (int i = 0; i < n && best < b0; ++i) {
    const Child& c = children[order[i]];
    if (c.exact()) continue;
    if (c.hi <= a) {  // cannot raise the value: its upper bound is all we need
      best = std::max(best, c.hi);
      continue;
    }
    int r;
    if (c.extra)
      r = c.stored + search_m<M>(c.board, c.seeds, c.key, a - c.stored, b0 - c.stored, ply + 1);
    else
      r = c.stored - search_m<M>(c.board, c.seeds, c.key, c.stored - b0, c.stored - a, ply + 1);
    if (ctx.stop.load(std::memory_order_relaxed)) return 0;
    if (r > best) {
      best = r;
      best_move = c.pit;
    }
    if (best > a) a = best;
  }

  const int work = static_cast<int>(std::bit_width(nodes_ - nodes_before));
  if (best >= b0) {
    best = round_up(best, k);
    table.store(key.index, key.tag, best, 255, best_move, work);
  } else if (best <= a0) {
    best = round_down(best, k);
    table.store(key.index, key.tag, -255, best, best_move, work);
  } else {
    table.store(key.index, key.tag, best, best, best_move, work);
  }
  return best;
}

}  // namespace kalah::search

#include "solver/search/estimate.hpp"

#include <algorithm>
#include <climits>

#include "solver/base/value_bounds.hpp"
#include "solver/db/database.hpp"

namespace kalah::search {

namespace {

template <int M, Sowing S, Capture C, EndRule E>
class Estimator {
 public:
  using Kernel = base::Kernel<M, S, C, E>;

  Estimator(const base::SowTables& sowing, const EndgameProbe& probe, std::uint64_t node_cap)
      : kernel_{sowing}, probe_(probe), cap_(node_cap) {}

  // Fail-soft negamax to `depth` sowings; sets limited_ when a leaf was cut off by the
  // depth (the result is then an estimate) and aborted_ past the node cap.
  int search(base::u128 x, int k, int depth, int alpha, int beta) {
    if (++nodes_ > cap_) aborted_ = true;
    if (aborted_) return 0;
    base::Successor succ[M];
    int n = 0;
    for (int pit = 0; pit < M; ++pit)
      if (base::own_byte_of(x, pit)) kernel_.sow(x, k, pit, &succ[n++]);
    // Extra turns, then the most seeds banked first (insertion sort: n <= 8).
    auto score = [](const base::Successor& s) { return s.again * 256 + s.stored; };
    for (int i = 1; i < n; ++i)
      for (int j = i; j > 0 && score(succ[j - 1]) < score(succ[j]); --j) std::swap(succ[j - 1], succ[j]);
    int best = INT_MIN;
    for (int i = 0; i < n && best < beta; ++i) {
      const base::Successor& s = succ[i];
      int v = 0;  // the child's value for the player to move there
      int remainder = 0;
      if (Kernel::terminal(s.board, s.level, &remainder)) {
        v = remainder;
      } else if (probe_.covers(s.level, s.board)) {
        const EndgameDatabase* db = probe_.database;
        v = db ? db->value_in_slot(s.level, db->slot_of(s.level, s.board, [&] { return kernel_.index(s.board); }),
                                   s.board)
               : probe_.value(base::from_bits(s.board), s.level);
      } else if (depth <= 1) {
        limited_ = true;
      } else {
        const Window w = window_through(s.stored, s.again, alpha, beta);
        v = search(s.board, s.level, depth - 1, w.alpha, w.beta);
      }
      const int through = value_through(s.stored, s.again, v);
      best = std::max(best, through);
      alpha = std::max(alpha, best);
    }
    return best;
  }

  std::uint64_t nodes_ = 0;
  bool limited_ = false;
  bool aborted_ = false;

 private:
  Kernel kernel_;
  const EndgameProbe& probe_;
  std::uint64_t cap_;
};

}  // namespace

Estimate estimate_value(const Board& b, int m, int k, const Rules& rules, const base::SowTables& sowing,
                        const EndgameProbe& probe, std::uint64_t node_budget) {
  return base::dispatch(m, rules, [&]<int M, Sowing S, Capture C, EndRule E>() {
    Estimate out;
    for (int depth = 1; depth <= 2 * kMaxSeeds; ++depth) {
      // An iteration may overrun the budget a few times over (the next one is larger by
      // about the effective branching factor); past that it is abandoned.
      Estimator<M, S, C, E> e(sowing, probe, 8 * node_budget);
      const int v = e.search(base::to_bits(b), k, depth, -k - 1, k + 1);
      out.nodes += e.nodes_;
      if (e.aborted_) break;
      out.value = base::round_down(std::clamp(v, -k, k), k);
      out.depth = depth;
      if (!e.limited_ || e.nodes_ >= node_budget) break;  // exact, or the budget is spent
    }
    return out;
  });
}

}  // namespace kalah::search

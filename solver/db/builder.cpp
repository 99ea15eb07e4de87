#include "solver/db/builder.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>

namespace kalah {

void check_database_rules(const Rules& rules) {
  if (rules.early_end)
    throw std::invalid_argument(
        "early end is not supported by endgame databases: it makes a board's value depend on the "
        "stores, not only on the pits; build with --no-early-end (natural-end values, which the "
        "solver also uses under early end: the winner is the same)");
}

namespace {

constexpr std::uint64_t kChunk = 1 << 14;

// Evaluates boards of level k from the tables. Lookup(k', board) returns the value of a
// successor board with k' <= k seeds (mover to move).
class Evaluator {
 public:
  Evaluator(const BoardIndexer& ix, const Rules& rules, int k) : ix_(ix), rules_(rules), m_(ix.pits()), k_(k) {}

  template <class Lookup>
  int evaluate(const Board& b, Lookup&& lookup) const {
    int remainder = 0;
    if (is_terminal(b, m_, rules_.end, remainder)) return remainder;
    int best = -1000;
    for (int pit = 0; pit < m_; ++pit) {
      if (b.cells[pit] == 0) continue;
      Board next = b;
      const SowOutcome o = sow(next, m_, pit, rules_);
      const int kk = k_ - o.stored;
      const int v = o.extra_turn ? o.stored + lookup(kk, next) : o.stored - lookup(kk, flipped(next, m_));
      best = std::max(best, v);
    }
    return best;
  }

  const BoardIndexer& ix_;
  const Rules& rules_;
  int m_;
  int k_;
};

class LevelSolver {
 public:
  LevelSolver(const BoardIndexer& ix, const Rules& rules, int k, std::vector<LevelArray>& levels)
      : eval_(ix, rules, k), ix_(ix), k_(k), levels_(levels), cur_(levels[k].data()) {}

  int solve(const Board& b, std::uint64_t idx) {
    const int v = eval_.evaluate(b, [this](int kk, const Board& nb) { return lookup(kk, nb); });
    std::atomic_ref<std::int8_t>(cur_[idx]).store(static_cast<std::int8_t>(v), std::memory_order_relaxed);
    return v;
  }

  int lookup(int kk, const Board& nb) {
    const std::uint64_t idx = ix_.index(nb);
    if (kk < k_) return levels_[kk][idx];
    const int v = std::atomic_ref<std::int8_t>(cur_[idx]).load(std::memory_order_relaxed);
    return v != LevelArray::kUnknown ? v : solve(nb, idx);
  }

  std::int8_t peek(std::uint64_t idx) const {
    return std::atomic_ref<std::int8_t>(cur_[idx]).load(std::memory_order_relaxed);
  }

 private:
  Evaluator eval_;
  const BoardIndexer& ix_;
  int k_;
  std::vector<LevelArray>& levels_;
  std::int8_t* cur_;
};

// Runs body(first, end) over [0, size) in chunks on `threads` threads, reporting progress.
template <class Body>
void parallel_chunks(std::uint64_t size, int threads, int k, const LevelProgressFn& progress, Body&& body) {
  const std::uint64_t chunks = (size + kChunk - 1) / kChunk;
  std::atomic<std::uint64_t> done{0};
  auto last = std::chrono::steady_clock::now();
  if (threads <= 0) threads = omp_get_max_threads();
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (std::uint64_t c = 0; c < chunks; ++c) {
    const std::uint64_t first = c * kChunk;
    const std::uint64_t end = std::min(size, first + kChunk);
    body(first, end);
    const std::uint64_t d = done.fetch_add(end - first, std::memory_order_relaxed) + (end - first);
    if (progress && omp_get_thread_num() == 0) {
      const auto now = std::chrono::steady_clock::now();
      if (now - last > std::chrono::milliseconds(200)) {
        last = now;
        progress(k, d, size);
      }
    }
  }
  if (progress) progress(k, size, size);
}

}  // namespace

void build_level(const BoardIndexer& ix, const Rules& rules, int k, std::vector<LevelArray>& levels, int threads,
                 const LevelProgressFn& progress) {
  check_database_rules(rules);
  LevelArray& cur = levels[k];
  const std::uint64_t size = ix.count(k);
  if (cur.size() != size) throw std::logic_error("build_level: level array has the wrong size");
  std::fill(cur.data(), cur.data() + size, LevelArray::kUnknown);
  parallel_chunks(size, threads, k, progress, [&](std::uint64_t first, std::uint64_t end) {
    LevelSolver solver(ix, rules, k, levels);
    Board b = ix.board(k, first);
    for (std::uint64_t idx = first; idx < end; ++idx, ix.next(b))
      if (solver.peek(idx) == LevelArray::kUnknown) solver.solve(b, idx);
  });
}

std::uint64_t verify_level(const BoardIndexer& ix, const Rules& rules, int k, const std::vector<LevelArray>& levels,
                           int threads, std::uint64_t* first_bad, const LevelProgressFn& progress) {
  const std::uint64_t size = ix.count(k);
  if (levels[k].size() != size) return size;
  std::atomic<std::uint64_t> bad{0};
  std::atomic<std::uint64_t> first{~std::uint64_t(0)};
  parallel_chunks(size, threads, k, progress, [&](std::uint64_t lo, std::uint64_t hi) {
    Evaluator eval(ix, rules, k);
    auto lookup = [&](int kk, const Board& nb) -> int { return levels[kk][ix.index(nb)]; };
    Board b = ix.board(k, lo);
    std::uint64_t local = 0;
    for (std::uint64_t idx = lo; idx < hi; ++idx, ix.next(b)) {
      if (eval.evaluate(b, lookup) != levels[k][idx]) {
        ++local;
        std::uint64_t f = first.load();
        while (idx < f && !first.compare_exchange_weak(f, idx)) {
        }
      }
    }
    bad += local;
  });
  if (first_bad) *first_bad = first.load();
  return bad.load();
}

}  // namespace kalah

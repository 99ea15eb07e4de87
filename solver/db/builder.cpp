#include "solver/db/builder.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>

#include "solver/db/kernel.hpp"

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

// Solves the boards of level k with the compile-time specialised kernel. Successor
// entries are prefetched together before any is read, so their cache misses overlap.
template <int M, Sowing S, Capture C, EndRule E>
class LevelSolver {
 public:
  using K = dbk::Kernel<M, S, C, E>;

  LevelSolver(const dbk::SowTables& tab, int k, std::int8_t* const* levels)
      : kern_{tab}, k_(k), levels_(levels), cur_(levels[k]) {}

  // Value of board x (k seeds, index idx): computed, stored and returned. When `recurse`,
  // unknown same-level successors are solved first; else every successor must be known.
  template <bool Recurse>
  int evaluate(dbk::u128 x) {
    int v = 0;
    if (K::terminal(x, k_, &v)) return v;
    dbk::Successor succ[M];
    std::uint64_t at[M];
    int n = 0;
    for (int pit = 0; pit < M; ++pit) {
      if (dbk::byte_of(x, pit) == 0) continue;
      kern_.sow(x, k_, pit, &succ[n]);
      at[n] = kern_.index(succ[n].board);
      __builtin_prefetch(levels_[succ[n].level] + at[n]);
      ++n;
    }
    int best = -1000;
    for (int j = 0; j < n; ++j) {
      int w;
      if (succ[j].level == k_) {
        w = std::atomic_ref<std::int8_t>(cur_[at[j]]).load(std::memory_order_relaxed);
        if constexpr (Recurse)
          if (w == LevelArray::kUnknown) w = solve(succ[j].board, at[j]);
      } else {
        w = levels_[succ[j].level][at[j]];
      }
      const int val = succ[j].again ? succ[j].stored + w : succ[j].stored - w;
      best = val > best ? val : best;
    }
    return best;
  }

  int solve(dbk::u128 x, std::uint64_t idx) {
    const int v = evaluate<true>(x);
    std::atomic_ref<std::int8_t>(cur_[idx]).store(static_cast<std::int8_t>(v), std::memory_order_relaxed);
    return v;
  }

  std::int8_t peek(std::uint64_t idx) const {
    return std::atomic_ref<std::int8_t>(cur_[idx]).load(std::memory_order_relaxed);
  }

 private:
  K kern_;
  int k_;
  std::int8_t* const* levels_;
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

namespace {

template <int M, Sowing S, Capture C, EndRule E>
void build_level_impl(const BoardIndexer& ix, int k, std::vector<LevelArray>& levels, int threads,
                      const LevelProgressFn& progress) {
  const dbk::SowTables tab(ix, k);
  std::vector<std::int8_t*> base;
  for (int j = 0; j <= k; ++j) base.push_back(levels[j].data());
  const std::uint64_t size = ix.count(k);
  parallel_chunks(size, threads, k, progress, [&](std::uint64_t first, std::uint64_t end) {
    LevelSolver<M, S, C, E> solver(tab, k, base.data());
    Board b = ix.board(k, first);
    for (std::uint64_t idx = first; idx < end; ++idx, ix.next(b))
      if (solver.peek(idx) == LevelArray::kUnknown) solver.solve(dbk::to_bits(b), idx);
  });
}

template <int M, Sowing S, Capture C, EndRule E>
std::uint64_t verify_level_impl(const BoardIndexer& ix, int k, const std::vector<LevelArray>& levels, int threads,
                                std::uint64_t* first_bad, const LevelProgressFn& progress) {
  const dbk::SowTables tab(ix, k);
  std::vector<std::int8_t*> base;
  for (int j = 0; j <= k; ++j) base.push_back(const_cast<std::int8_t*>(levels[j].data()));
  const std::uint64_t size = ix.count(k);
  std::atomic<std::uint64_t> bad{0};
  std::atomic<std::uint64_t> first{~std::uint64_t(0)};
  parallel_chunks(size, threads, k, progress, [&](std::uint64_t lo, std::uint64_t hi) {
    LevelSolver<M, S, C, E> solver(tab, k, base.data());
    Board b = ix.board(k, lo);
    std::uint64_t local = 0;
    for (std::uint64_t idx = lo; idx < hi; ++idx, ix.next(b)) {
      if (solver.template evaluate<false>(dbk::to_bits(b)) != levels[k][idx]) {
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

// Calls f.template operator()<M, S, C, E>() for the runtime pit count and rules.
template <class F>
auto dispatch(int m, const Rules& rules, F&& f) {
  auto by_end = [&]<int M, Sowing S, Capture C>() {
    return rules.end == EndRule::Either ? f.template operator()<M, S, C, EndRule::Either>()
                                        : f.template operator()<M, S, C, EndRule::Mover>();
  };
  auto by_rules = [&]<int M>() {
    if (rules.sowing == Sowing::Relay) return by_end.template operator()<M, Sowing::Relay, Capture::NonEmpty>();
    return rules.capture == Capture::Empty ? by_end.template operator()<M, Sowing::Kalah, Capture::Empty>()
                                           : by_end.template operator()<M, Sowing::Kalah, Capture::NonEmpty>();
  };
  switch (m) {
    case 1: return by_rules.template operator()<1>();
    case 2: return by_rules.template operator()<2>();
    case 3: return by_rules.template operator()<3>();
    case 4: return by_rules.template operator()<4>();
    case 5: return by_rules.template operator()<5>();
    case 6: return by_rules.template operator()<6>();
    case 7: return by_rules.template operator()<7>();
    default: return by_rules.template operator()<8>();
  }
}

}  // namespace

void build_level(const BoardIndexer& ix, const Rules& rules, int k, std::vector<LevelArray>& levels, int threads,
                 const LevelProgressFn& progress) {
  check_database_rules(rules);
  LevelArray& cur = levels[k];
  const std::uint64_t size = ix.count(k);
  if (cur.size() != size || static_cast<int>(levels.size()) <= k || k > ix.max_seeds())
    throw std::logic_error("build_level: level array has the wrong size");
  std::fill(cur.data(), cur.data() + size, LevelArray::kUnknown);
  dispatch(ix.pits(), rules, [&]<int M, Sowing S, Capture C, EndRule E>() {
    build_level_impl<M, S, C, E>(ix, k, levels, threads, progress);
  });
}

std::uint64_t verify_level(const BoardIndexer& ix, const Rules& rules, int k, const std::vector<LevelArray>& levels,
                           int threads, std::uint64_t* first_bad, const LevelProgressFn& progress) {
  if (static_cast<int>(levels.size()) <= k || levels[k].size() != ix.count(k)) return ix.count(k);
  return dispatch(ix.pits(), rules, [&]<int M, Sowing S, Capture C, EndRule E>() {
    return verify_level_impl<M, S, C, E>(ix, k, levels, threads, first_bad, progress);
  });
}

}  // namespace kalah

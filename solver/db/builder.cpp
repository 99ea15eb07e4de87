#include "solver/db/builder.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>

#include "solver/base/sowing_kernel.hpp"

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
  using K = base::Kernel<M, S, C, E>;

  // views[0..k) are the complete lower levels. cur: level k under construction (entries
  // kUnknown until computed); null when verifying, where views[k] is the complete level k.
  // order: when given, cur holds one pair of sublevels of level k, in pair order (a board's
  // same-level successors lie in its own pair), else the whole level in index order.
  // pair: the pair cur holds; *escaped is set if a same-level move ever left it (it cannot under
  // the rules databases support; checked because cur has room for the pair only).
  LevelSolver(const base::SowTables& tab, int k, const LevelView* views, std::int8_t* cur,
              const SublevelIndexer* order = nullptr, int pair = -1, std::atomic<bool>* escaped = nullptr)
      : kern_{tab}, k_(k), views_(views), cur_(cur), order_(order), pair_(pair), escaped_(escaped) {}

  // A board whose successors have been generated and their entries prefetched.
  struct Expanded {
    std::uint64_t idx;
    int n;  // successors; -1: terminal, value in `terminal_value`
    int terminal_value;
    base::Successor succ[M];
    std::uint64_t at[M];
  };

  // Generate the successors of board x (index idx) and prefetch their entries.
  void expand(base::u128 x, std::uint64_t idx, Expanded& e) const {
    e.idx = idx;
    if (K::terminal(x, k_, &e.terminal_value)) {
      e.n = -1;
      return;
    }
    int n = 0;
    for (std::uint64_t pits = K::nonempty_pits(x); pits; pits &= pits - 1) {
      const int pit = __builtin_ctzll(pits) >> 3;
      kern_.sow(x, k_, pit, &e.succ[n]);
      const int level = e.succ[n].level;
      if (level == k_ && cur_) {
        if (order_) {
          int pair = 0;
          e.at[n] = order_->pair_position(e.succ[n].board, k_, &pair);
          if (pair != pair_) [[unlikely]] {
            escaped_->store(true, std::memory_order_relaxed);
            e.at[n] = 0;  // inside the array; the build is then refused
          }
        } else {
          e.at[n] = kern_.index(e.succ[n].board);
        }
        __builtin_prefetch(cur_ + e.at[n]);
      } else {
        // A level packed by pairs ranks the board its own way: the index is not needed.
        const LevelView& view = views_[level];
        e.at[n] = view.slot_of(e.succ[n].board, [&] { return kern_.index(e.succ[n].board); });
        __builtin_prefetch(view.address_at(e.at[n]));
      }
      ++n;
    }
    e.n = n;
  }

  // The value of an expanded board from its successors' entries. When Recurse, unknown
  // same-level successors are solved first; else every successor must be known.
  template <bool Recurse>
  int finish(const Expanded& e) {
    if (e.n < 0) return e.terminal_value;
    int best = -1000;
    for (int j = 0; j < e.n; ++j) {
      const base::Successor& s = e.succ[j];
      int w;
      if (s.level == k_ && cur_) {
        w = std::atomic_ref<std::int8_t>(cur_[e.at[j]]).load(std::memory_order_relaxed);
        if constexpr (Recurse)
          if (w == LevelArray::kUnknown) w = solve(s.board, e.at[j]);
      } else {
        w = views_[s.level].value_at(e.at[j], s.board);
      }
      const int val = value_through(s.stored, s.again, w);
      best = val > best ? val : best;
    }
    return best;
  }

  template <bool Recurse>
  int evaluate(base::u128 x) {
    Expanded e;
    expand(x, 0, e);
    return finish<Recurse>(e);
  }

  void store(std::uint64_t idx, int v) {
    std::atomic_ref<std::int8_t>(cur_[idx]).store(static_cast<std::int8_t>(v), std::memory_order_relaxed);
  }

  int solve(base::u128 x, std::uint64_t idx) {
    const int v = evaluate<true>(x);
    store(idx, v);
    return v;
  }

  std::int8_t peek(std::uint64_t idx) const {
    return std::atomic_ref<std::int8_t>(cur_[idx]).load(std::memory_order_relaxed);
  }

 private:
  K kern_;
  int k_;
  const LevelView* views_;
  std::int8_t* cur_;
  const SublevelIndexer* order_;
  int pair_;
  std::atomic<bool>* escaped_;
};

// Runs body(first, end) over [0, size) in chunks on `threads` threads, reporting progress;
// once *cancel is set the remaining chunks are skipped and BuildInterrupted(k) is thrown.
template <class Body>
void parallel_chunks(std::uint64_t size, int threads, int k, const LevelProgressFn& progress, Body&& body,
                     const std::atomic<bool>* cancel = nullptr) {
  const std::uint64_t chunks = (size + kChunk - 1) / kChunk;
  std::atomic<std::uint64_t> done{0};
  auto last = std::chrono::steady_clock::now();
  if (threads <= 0) threads = omp_get_max_threads();
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (std::uint64_t c = 0; c < chunks; ++c) {
    const std::uint64_t first = c * kChunk;
    const std::uint64_t end = std::min(size, first + kChunk);
    if (cancel && cancel->load(std::memory_order_relaxed)) continue;
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
  if (cancel && cancel->load(std::memory_order_relaxed)) throw BuildInterrupted(k);
  if (progress) progress(k, size, size);
}

}  // namespace

namespace {

// Computes the boards of `range` (a whole level, or a pair of sublevels with `order` its
// sublevel order) into `level`, in the range's order.
template <int M, Sowing S, Capture C, EndRule E>
void build_level_impl(const BoardIndexer& ix, const BoardRange& range, const SublevelIndexer* order,
                      std::span<const LevelView> lower, LevelArray& level, int threads, const LevelProgressFn& progress,
                      const std::atomic<bool>* cancel) {
  const int k = range.level();
  const base::SowTables tab(ix, k);
  const std::uint64_t size = range.size();
  std::atomic<bool> escaped{false};
  parallel_chunks(
      size, threads, k, progress,
      [&](std::uint64_t first, std::uint64_t end) {
        // Software pipeline: boards are expanded (successor entries prefetched) kDepth boards
        // ahead of being finished, so the cache misses of many boards overlap.
        using Solver = LevelSolver<M, S, C, E>;
        constexpr int kDepth = 8;
        Solver solver(tab, k, lower.data(), level.data(), order, range.pair(), &escaped);
        typename Solver::Expanded ring[kDepth];
        int head = 0, pending = 0;
        auto finish_one = [&](int slot) {
          const auto& e = ring[slot];
          if (solver.peek(e.idx) == LevelArray::kUnknown) solver.store(e.idx, solver.template finish<true>(e));
        };
        Board b = range.board(first);
        for (std::uint64_t idx = first; idx < end; ++idx) {
          if (idx > first) range.next(b);
          if (solver.peek(idx) != LevelArray::kUnknown) continue;
          if (pending == kDepth) {
            finish_one(head);
            --pending;
          }
          solver.expand(base::to_bits(b), idx, ring[head]);
          head = (head + 1) % kDepth;
          ++pending;
        }
        for (int i = pending; i > 0; --i) finish_one((head - i + kDepth) % kDepth);
      },
      cancel);
  if (escaped)
    throw std::logic_error("build_level_pair: a move inside level " + std::to_string(k) + " left pair " +
                           std::to_string(range.pair()) + " (the rules break the pairs' closure)");
}

// Mismatches found by several threads, each over chunks in ascending order: how many, and
// the least position (index or sample number) among them.
struct Mismatches {
  std::atomic<std::uint64_t> count{0};
  std::atomic<std::uint64_t> least{~std::uint64_t(0)};
  // A chunk's tally: n mismatches, the first of them at `first` (ignored when n == 0).
  void add(std::uint64_t n, std::uint64_t first) {
    if (n == 0) return;
    count += n;
    std::uint64_t f = least.load();
    while (first < f && !least.compare_exchange_weak(f, first)) {
    }
  }
};

template <int M, Sowing S, Capture C, EndRule E>
std::uint64_t verify_level_impl(const BoardIndexer& ix, int k, std::span<const LevelView> levels, int threads,
                                std::uint64_t* first_bad, const LevelProgressFn& progress) {
  const base::SowTables tab(ix, k);
  const std::uint64_t size = ix.count(k);
  Mismatches bad;
  parallel_chunks(size, threads, k, progress, [&](std::uint64_t lo, std::uint64_t hi) {
    LevelSolver<M, S, C, E> solver(tab, k, levels.data(), nullptr);
    Board b = ix.board(k, lo);
    std::uint64_t local = 0, first = 0;
    for (std::uint64_t idx = lo; idx < hi; ++idx, ix.next(b)) {
      const base::u128 bits = base::to_bits(b);
      if (solver.template evaluate<false>(bits) != levels[k].value(idx, bits) && local++ == 0) first = idx;
    }
    bad.add(local, first);
  });
  if (first_bad) *first_bad = bad.least.load();
  return bad.count.load();
}

// The index of sample i of level k: splitmix64 of (seed, k, i), scaled to [0, size) by a
// multiply (no modulo bias worth the name).
std::uint64_t sample_index(std::uint64_t seed, int k, std::uint64_t i, std::uint64_t size) {
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (i + 1) + (std::uint64_t(k) << 56);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return static_cast<std::uint64_t>((static_cast<base::u128>(z) * size) >> 64);
}

template <int M, Sowing S, Capture C, EndRule E>
std::uint64_t verify_sample_impl(const BoardIndexer& ix, int k, std::span<const LevelView> levels,
                                 std::uint64_t samples, std::uint64_t seed, int threads, std::uint64_t* first_bad) {
  const base::SowTables tab(ix, k);
  const std::uint64_t size = ix.count(k);
  Mismatches bad;  // by sample number
  parallel_chunks(samples, threads, k, {}, [&](std::uint64_t lo, std::uint64_t hi) {
    LevelSolver<M, S, C, E> solver(tab, k, levels.data(), nullptr);
    std::uint64_t local = 0, first = 0;
    for (std::uint64_t i = lo; i < hi; ++i) {
      const std::uint64_t idx = sample_index(seed, k, i, size);
      const base::u128 bits = base::to_bits(ix.board(k, idx));
      if (solver.template evaluate<false>(bits) != levels[k].value(idx, bits) && local++ == 0) first = i;
    }
    bad.add(local, first);
  });
  if (first_bad && bad.count.load()) *first_bad = sample_index(seed, k, bad.least.load(), size);
  return bad.count.load();
}

}  // namespace

void build_level(const BoardIndexer& ix, const Rules& rules, int k, std::span<const LevelView> lower, LevelArray& level,
                 int threads, const LevelProgressFn& progress, const std::atomic<bool>* cancel) {
  check_database_rules(rules);
  const std::uint64_t size = ix.count(k);
  if (k > 127 || static_cast<int>(lower.size()) < k || k > ix.max_seeds() || level.size() != size)
    throw std::logic_error("build_level: level out of range or level array of the wrong size");
  for (int j = 0; j < k; ++j)
    if (lower[j].size() != ix.count(j)) throw std::logic_error("build_level: a lower level of the wrong size");
  std::fill(level.data(), level.data() + size, LevelArray::kUnknown);
  base::dispatch(ix.pits(), rules, [&]<int M, Sowing S, Capture C, EndRule E>() {
    build_level_impl<M, S, C, E>(ix, BoardRange::level(ix, k), nullptr, lower.first(k), level, threads, progress,
                                 cancel);
  });
}

void build_level_pair(const BoardIndexer& ix, const SublevelIndexer& order, const Rules& rules, int k, int p,
                      std::span<const LevelView> lower, LevelArray& pair, int threads, const LevelProgressFn& progress,
                      const std::atomic<bool>* cancel) {
  check_database_rules(rules);
  if (k > 127 || static_cast<int>(lower.size()) < k || k > ix.max_seeds() || k > order.max_seeds() || p < 0 ||
      p >= SublevelIndexer::pairs(k) || order.pits() != ix.pits() || pair.size() != order.pair_size(k, p))
    throw std::logic_error("build_level_pair: level or pair out of range or pair array of the wrong size");
  for (int j = 0; j < k; ++j)
    if (lower[j].size() != ix.count(j)) throw std::logic_error("build_level_pair: a lower level of the wrong size");
  std::fill(pair.data(), pair.data() + pair.size(), LevelArray::kUnknown);
  base::dispatch(ix.pits(), rules, [&]<int M, Sowing S, Capture C, EndRule E>() {
    build_level_impl<M, S, C, E>(ix, BoardRange::pair(order, k, p), &order, lower.first(k), pair, threads, progress,
                                 cancel);
  });
}

PairedLevel build_paired_level(const BoardIndexer& ix, const Rules& rules, int k, std::span<const LevelView> lower,
                               int width, int threads, const LevelProgressFn& progress, const std::atomic<bool>* cancel,
                               const PairCheckpoints* checkpoints) {
  PairedLevel level(ix.pits(), k);
  const SublevelIndexer& order = level.order();
  const std::uint64_t total = ix.count(k);
  std::uint64_t before = 0;
  for (int p = 0; p < SublevelIndexer::pairs(k); ++p) {
    if (checkpoints && checkpoints->load) {
      std::optional<PackedLevel> saved = checkpoints->load(p);
      if (saved) {
        if (saved->size() != order.pair_size(k, p))
          throw std::logic_error("build_paired_level: a saved pair of the wrong size");
        before += saved->size();
        level.add_pair(std::move(*saved));
        if (progress) progress(k, before, total);
        continue;
      }
    }
    if (cancel && cancel->load(std::memory_order_relaxed)) throw BuildInterrupted(k);
    LevelArray pair(order.pair_size(k, p));
    LevelProgressFn within;
    if (progress)
      within = [&](int level_k, std::uint64_t done, std::uint64_t) { progress(level_k, before + done, total); };
    build_level_pair(ix, order, rules, k, p, lower, pair, threads, within, cancel);
    before += pair.size();
    level.add_pair(PackedLevel::pack(level.range(p), std::move(pair), width, threads));  // in place
    if (checkpoints && checkpoints->save) checkpoints->save(p, level.pair(p));
  }
  return level;
}

void build_level(const BoardIndexer& ix, const Rules& rules, int k, std::vector<LevelArray>& levels, int threads,
                 const LevelProgressFn& progress, const std::atomic<bool>* cancel) {
  if (static_cast<int>(levels.size()) <= k)
    throw std::logic_error("build_level: level out of range or level array of the wrong size");
  std::vector<LevelView> lower;
  for (int j = 0; j < k; ++j) lower.emplace_back(levels[j]);
  build_level(ix, rules, k, lower, levels[k], threads, progress, cancel);
}

std::uint64_t verify_level(const BoardIndexer& ix, const Rules& rules, int k, std::span<const LevelView> levels,
                           int threads, std::uint64_t* first_bad, const LevelProgressFn& progress) {
  if (static_cast<int>(levels.size()) <= k || levels[k].size() != ix.count(k)) return ix.count(k);
  for (int j = 0; j < k; ++j)
    if (levels[j].size() != ix.count(j)) throw std::logic_error("verify_level: a lower level of the wrong size");
  return base::dispatch(ix.pits(), rules, [&]<int M, Sowing S, Capture C, EndRule E>() {
    return verify_level_impl<M, S, C, E>(ix, k, levels.first(k + 1), threads, first_bad, progress);
  });
}

std::uint64_t verify_level(const BoardIndexer& ix, const Rules& rules, int k, const std::vector<LevelArray>& levels,
                           int threads, std::uint64_t* first_bad, const LevelProgressFn& progress) {
  if (static_cast<int>(levels.size()) <= k || levels[k].size() != ix.count(k)) return ix.count(k);
  std::vector<LevelView> views;
  for (int j = 0; j <= k; ++j) views.emplace_back(levels[j]);
  return verify_level(ix, rules, k, views, threads, first_bad, progress);
}

std::uint64_t verify_level_sample(const BoardIndexer& ix, const Rules& rules, int k, std::span<const LevelView> levels,
                                  std::uint64_t samples, std::uint64_t seed, int threads, std::uint64_t* first_bad) {
  if (static_cast<int>(levels.size()) <= k || levels[k].size() != ix.count(k))
    throw std::logic_error("verify_level_sample: level out of range or of the wrong size");
  for (int j = 0; j < k; ++j)
    if (levels[j].size() != ix.count(j)) throw std::logic_error("verify_level_sample: a lower level of the wrong size");
  return base::dispatch(ix.pits(), rules, [&]<int M, Sowing S, Capture C, EndRule E>() {
    return verify_sample_impl<M, S, C, E>(ix, k, levels.first(k + 1), samples, seed, threads, first_bad);
  });
}

}  // namespace kalah

#include "solver/db/level_stats.hpp"

#include <omp.h>
#include <zstd.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

#include "solver/base/sowing_kernel.hpp"
#include "solver/base/value_bounds.hpp"

namespace kalah {

namespace {

// Sums of n log2 n over the cells of a joint distribution and over its conditioning groups:
// H(Y | X) = (sum_x n_x log n_x - sum_xy n_xy log n_xy) / N.
class ConditionalEntropy {
 public:
  void add(int x, int y, std::uint64_t n) {
    if (n == 0) return;
    cells_[{x, y}] += n;
    groups_[x] += n;
    total_ += n;
  }
  double bits() const {
    if (total_ == 0) return 0;
    double sum = 0;
    for (const auto& [x, n] : groups_) sum += nlogn(n);
    for (const auto& [xy, n] : cells_) sum -= nlogn(n);
    return std::max(0.0, sum / static_cast<double>(total_));
  }

 private:
  static double nlogn(std::uint64_t n) { return static_cast<double>(n) * std::log2(static_cast<double>(n)); }
  std::map<std::pair<int, int>, std::uint64_t> cells_;
  std::map<int, std::uint64_t> groups_;
  std::uint64_t total_ = 0;
};

// Which boards an entropy is taken over and what is conditioned on: f(s, c, half) returns
// false to leave the cell out, else sets x (the condition) and y (the variable).
template <class F>
double entropy_over(const LevelStats& st, F&& f) {
  ConditionalEntropy h;
  for (int s = 0; s <= st.level; ++s)
    for (int c = 0; c < st.classes(); ++c)
      for (int half = 0; half <= st.level; ++half) {
        int x = 0, y = 0;
        if (f(s, c, half, x, y)) h.add(x, y, st.count(s, c, half));
      }
  return h.bits();
}

[[noreturn]] void impossible_entry(int k, std::uint64_t idx, int v, const char* why) {
  throw DatabaseError("level " + std::to_string(k) + ": entry " + std::to_string(idx) + " holds " + std::to_string(v) +
                      ", " + why + " (a damaged database)");
}

// Compressed size of `n` bytes at `data` (0 for none).
std::uint64_t zstd_size(ZSTD_CCtx* cctx, const void* data, std::size_t n, int compression,
                        std::vector<unsigned char>& scratch) {
  if (n == 0) return 0;
  scratch.resize(ZSTD_compressBound(n));
  const std::size_t got = ZSTD_compressCCtx(cctx, scratch.data(), scratch.size(), data, n, compression);
  if (ZSTD_isError(got)) throw DatabaseError(std::string("zstd compression failed: ") + ZSTD_getErrorName(got));
  return got;
}

struct BlockResult {
  std::vector<std::uint64_t> joint;
  std::uint64_t raw = 0, code = 0, nibble = 0, escape = 0;
};

template <int M, Sowing S, Capture C, EndRule E>
class LevelScanner {
 public:
  using K = base::Kernel<M, S, C, E>;

  LevelScanner(const EndgameDatabase& db, const base::SowTables& tab, int k, const LevelStatsOptions& options)
      : db_(db), kern_{tab}, k_(k), options_(options), lowest_(base::min_value(k, db.rules())) {}

  // Boards [first, end) of the level into `out` (its joint counts already sized and zero).
  void scan(std::uint64_t first, std::uint64_t end, BlockResult& out, ZSTD_CCtx* cctx) const {
    const BoardIndexer& ix = db_.indexer();
    const std::int8_t* level = db_.level(k_).data();
    const std::size_t n = static_cast<std::size_t>(end - first);
    const bool compress = options_.compress;
    std::vector<std::uint8_t> codes(compress ? n : 0);
    std::vector<std::int8_t> escaped;
    const int classes = k_ + 3;
    Board b = ix.board(k_, first);
    for (std::uint64_t idx = first; idx < end; ++idx, ix.next(b)) {
      const base::u128 x = base::to_bits(b);
      const int v = level[idx];
      if (v < -k_ || v > k_ || ((v + k_) & 1)) impossible_entry(k_, idx, v, "outside [-k, k] or of the wrong parity");
      int s = 0;
      for (int i = 0; i < M; ++i) s += b.cells[i];
      int cls, code;
      int terminal_value;
      if (K::terminal(x, k_, &terminal_value)) {
        if (terminal_value != v) impossible_entry(k_, idx, v, "not the value of its finished game");
        cls = k_ + 2;
        code = 0;
      } else {
        const int p = best_leaving(x);
        if (p == kNone) {
          cls = k_ + 1;
          if (v < lowest_) impossible_entry(k_, idx, v, "below the lowest value of its seeds");
          code = LevelStats::no_leaving_code(k_, v);
        } else {
          if (v < p) impossible_entry(k_, idx, v, "below the value of a sowing into a lower level");
          cls = (p + k_) / 2;
          code = (v - p) / 2;
        }
      }
      ++out.joint[(static_cast<std::size_t>(s) * classes + cls) * (k_ + 1) + (v + k_) / 2];
      if (compress) codes[idx - first] = static_cast<std::uint8_t>(code);
    }
    if (!compress) return;
    std::vector<unsigned char> scratch;
    const int z = options_.compression;
    out.raw += zstd_size(cctx, level + first, n, z, scratch);
    out.code += zstd_size(cctx, codes.data(), n, z, scratch);
    std::vector<std::uint8_t> nibbles((n + 1) / 2, 0);
    for (std::size_t i = 0; i < n; ++i) {
      int c = codes[i];
      if (c >= LevelStats::kEscape) {
        c = LevelStats::kEscape;
        escaped.push_back(level[first + i]);
      }
      nibbles[i / 2] = static_cast<std::uint8_t>(nibbles[i / 2] | (c << (4 * (i & 1))));
    }
    out.nibble += zstd_size(cctx, nibbles.data(), nibbles.size(), z, scratch);
    out.escape += zstd_size(cctx, escaped.data(), escaped.size(), z, scratch);
  }

 private:
  static constexpr int kNone = -1000;

  // The best value for the mover through a sowing into a lower level, or kNone.
  int best_leaving(base::u128 x) const {
    int best = kNone;
    for (std::uint64_t pits = K::nonempty_pits(x); pits; pits &= pits - 1) {
      const int pit = __builtin_ctzll(pits) >> 3;
      base::Successor succ;
      kern_.sow(x, k_, pit, &succ);
      if (succ.level == k_) continue;
      const int w = db_.level(succ.level)[kern_.index(succ.board)];
      best = std::max(best, value_through(succ.stored, succ.again, w));
    }
    return best;
  }

  const EndgameDatabase& db_;
  K kern_;
  int k_;
  const LevelStatsOptions& options_;
  int lowest_;
};

}  // namespace

std::uint64_t LevelStats::terminal() const {
  std::uint64_t n = 0;
  for (int s = 0; s <= level; ++s)
    for (int h = 0; h <= level; ++h) n += count(s, terminal_class(), h);
  return n;
}

std::uint64_t LevelStats::no_leaving() const {
  std::uint64_t n = 0;
  for (int s = 0; s <= level; ++s)
    for (int h = 0; h <= level; ++h) n += count(s, no_leaving_class(), h);
  return n;
}

std::uint64_t LevelStats::with_leaving() const { return boards - terminal() - no_leaving(); }

std::uint64_t LevelStats::value_equals_p() const {
  std::uint64_t n = 0;
  for (int s = 0; s <= level; ++s)
    for (int c = 0; c <= level; ++c) n += count(s, c, c);
  return n;
}

std::vector<std::uint64_t> LevelStats::value_counts() const {
  std::vector<std::uint64_t> out(static_cast<std::size_t>(2 * level + 1), 0);
  for (int s = 0; s <= level; ++s)
    for (int c = 0; c < classes(); ++c)
      for (int h = 0; h <= level; ++h) out[static_cast<std::size_t>(2 * h)] += count(s, c, h);
  return out;
}

std::vector<std::uint64_t> LevelStats::no_leaving_value_counts() const {
  std::vector<std::uint64_t> out(static_cast<std::size_t>(2 * level + 1), 0);
  for (int s = 0; s <= level; ++s)
    for (int h = 0; h <= level; ++h) out[static_cast<std::size_t>(2 * h)] += count(s, no_leaving_class(), h);
  return out;
}

std::vector<std::uint64_t> LevelStats::excess_counts() const {
  std::vector<std::uint64_t> out(static_cast<std::size_t>(2 * level + 1), 0);
  for (int s = 0; s <= level; ++s)
    for (int c = 0; c <= level; ++c)
      for (int h = c; h <= level; ++h) out[static_cast<std::size_t>(2 * (h - c))] += count(s, c, h);
  return out;
}

std::vector<std::uint64_t> LevelStats::code_counts() const {
  std::vector<std::uint64_t> out(static_cast<std::size_t>(level + 1), 0);
  for (int s = 0; s <= level; ++s)
    for (int h = 0; h <= level; ++h) {
      for (int c = 0; c <= h; ++c) out[static_cast<std::size_t>(h - c)] += count(s, c, h);
      out[static_cast<std::size_t>(no_leaving_code(level, 2 * h - level))] += count(s, no_leaving_class(), h);
      out[0] += count(s, terminal_class(), h);
    }
  return out;
}

std::uint64_t LevelStats::escapes(int bits) const {
  const auto codes = code_counts();
  std::uint64_t n = 0;
  for (std::size_t c = (std::size_t(1) << bits) - 1; c < codes.size(); ++c) n += codes[c];
  return n;
}

std::uint64_t LevelStats::window_escapes(int bits, bool per_side) const {
  const int width = (1 << bits) - 1;
  // counts[s][half]: boards not terminal by value, s folded into one row unless per_side.
  const int rows = per_side ? level + 1 : 1;
  std::vector<std::uint64_t> counts(static_cast<std::size_t>(rows) * (level + 1), 0);
  for (int s = 0; s <= level; ++s)
    for (int c = 0; c < terminal_class(); ++c)
      for (int h = 0; h <= level; ++h)
        counts[static_cast<std::size_t>(per_side ? s : 0) * (level + 1) + h] += count(s, c, h);
  std::uint64_t escaped = 0;
  for (int row = 0; row < rows; ++row) {
    const std::uint64_t* r = counts.data() + static_cast<std::size_t>(row) * (level + 1);
    std::uint64_t all = 0, best = 0;
    for (int h = 0; h <= level; ++h) all += r[h];
    for (int lo = 0; lo <= level; ++lo) {
      std::uint64_t inside = 0;
      for (int h = lo; h < std::min(level + 1, lo + width); ++h) inside += r[h];
      best = std::max(best, inside);
    }
    escaped += all - best;
  }
  return escaped;
}

double LevelStats::h_value() const {
  return entropy_over(*this, [](int, int, int h, int& x, int& y) {
    x = 0;
    y = h;
    return true;
  });
}

double LevelStats::h_value_given_side() const {
  return entropy_over(*this, [](int s, int, int h, int& x, int& y) {
    x = s;
    y = h;
    return true;
  });
}

double LevelStats::h_excess() const {
  return entropy_over(*this, [&](int, int c, int h, int& x, int& y) {
    x = 0;
    y = h - c;
    return c <= level;
  });
}

double LevelStats::h_excess_given_side() const {
  return entropy_over(*this, [&](int s, int c, int h, int& x, int& y) {
    x = s;
    y = h - c;
    return c <= level;
  });
}

double LevelStats::h_value_given_p() const {
  return entropy_over(*this, [&](int, int c, int h, int& x, int& y) {
    x = c;
    y = h;
    return c <= level;
  });
}

double LevelStats::h_value_given_p_side() const {
  return entropy_over(*this, [&](int s, int c, int h, int& x, int& y) {
    x = s * classes() + c;
    y = h;
    return c <= level;
  });
}

double LevelStats::h_value_no_leaving() const {
  return entropy_over(*this, [&](int, int c, int h, int& x, int& y) {
    x = 0;
    y = h;
    return c == no_leaving_class();
  });
}

double LevelStats::h_value_no_leaving_given_side() const {
  return entropy_over(*this, [&](int s, int c, int h, int& x, int& y) {
    x = s;
    y = h;
    return c == no_leaving_class();
  });
}

double LevelStats::h_value_given_class() const {
  return entropy_over(*this, [](int, int c, int h, int& x, int& y) {
    x = c;
    y = h;
    return true;
  });
}

double LevelStats::h_value_given_class_side() const {
  return entropy_over(*this, [&](int s, int c, int h, int& x, int& y) {
    x = s * classes() + c;
    y = h;
    return true;
  });
}

LevelStats level_stats(const EndgameDatabase& db, int k, const LevelStatsOptions& options) {
  if (k < 0 || k > db.max_seeds())
    throw std::invalid_argument("level_stats: level " + std::to_string(k) + " is not in the database");
  if (options.block_entries == 0) throw std::invalid_argument("level_stats: blocks of 0 entries");
  const BoardIndexer& ix = db.indexer();
  LevelStats st;
  st.level = k;
  st.boards = ix.count(k);
  const std::size_t joint_size = static_cast<std::size_t>(k + 1) * (k + 3) * (k + 1);
  st.joint.assign(joint_size, 0);
  const std::uint64_t blocks = (st.boards + options.block_entries - 1) / options.block_entries;
  const int threads = options.threads > 0 ? options.threads : omp_get_max_threads();
  const base::SowTables tab(ix, k);
  std::mutex merge;
  std::exception_ptr error;
  base::dispatch(db.pits(), db.rules(), [&]<int M, Sowing S, Capture C, EndRule E>() {
    const LevelScanner<M, S, C, E> scanner(db, tab, k, options);
#pragma omp parallel num_threads(threads)
    {
      BlockResult local;
      local.joint.assign(joint_size, 0);
      ZSTD_CCtx* cctx = ZSTD_createCCtx();
#pragma omp for schedule(dynamic, 1)
      for (std::uint64_t j = 0; j < blocks; ++j) {
        const std::uint64_t first = j * options.block_entries;
        try {
          scanner.scan(first, std::min(st.boards, first + options.block_entries), local, cctx);
        } catch (...) {
          const std::lock_guard lock(merge);
          if (!error) error = std::current_exception();
        }
      }
      ZSTD_freeCCtx(cctx);
      const std::lock_guard lock(merge);
      for (std::size_t i = 0; i < joint_size; ++i) st.joint[i] += local.joint[i];
      st.raw_bytes += local.raw;
      st.code_bytes += local.code;
      st.nibble_bytes += local.nibble;
      st.escape_bytes += local.escape;
    }
  });
  if (error) std::rethrow_exception(error);
  return st;
}

}  // namespace kalah

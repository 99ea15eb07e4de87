#include "solver/db/packed_level.hpp"

#include <omp.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "solver/db/range_loop.hpp"

namespace kalah {

namespace {

// f(position, bits) for every board of `range`, on `threads` threads.
template <class F>
void for_each_board(const BoardRange& range, int threads, F&& f) {
  for_each_in_range(range, threads, [&](std::uint64_t i, const Board&, base::u128 bits) { f(i, bits); });
}

// Bits of x where a run of W one bits starts (only the bits a mask selects matter). W is a
// constant so that the loops unroll: check_image counts the escapes of every line of every
// level a database loads, and a probe of an escaped board those before it.
template <int W>
std::uint64_t all_ones_runs(std::uint64_t x) {
  std::uint64_t t = x;
  for (int b = 1; b < W; ++b) t &= x >> b;
  return t;
}

// The escapes (all-ones fields) of one line of width-W fields.
template <int W>
std::uint64_t line_escapes(const std::uint64_t* words, const std::uint64_t* masks) {
  // Written as a loop over whole words that a compiler vectorises (a line is one 512-bit
  // register, with a vector popcount where the processor has one): check_image runs it on
  // every line a load maps.
  std::uint64_t n = 0;
#pragma omp simd reduction(+ : n)
  for (int j = 0; j < PackedLevel::kLineWords; ++j)
    n += static_cast<std::uint64_t>(__builtin_popcountll(all_ones_runs<W>(words[j]) & masks[j]));
  return n;
}

// The escapes of a line of width-W fields before the field at (word, shift).
template <int W>
std::uint64_t escapes_before(const std::uint64_t* words, const std::uint64_t* masks, int word, int shift) {
  std::uint64_t before = 0;
  for (int j = 0; j < word; ++j) before += __builtin_popcountll(all_ones_runs<W>(words[j]) & masks[j]);
  const std::uint64_t below = (std::uint64_t(1) << shift) - 1;
  return before + __builtin_popcountll(all_ones_runs<W>(words[word]) & masks[word] & below);
}

// Additive least-squares fit of u = (v + k) / 2 on the mover's pits, by backfitting on a sample of
// the level; the weights in 1/16ths. The predictor only sizes the codes: any weights give
// exact values.
std::vector<std::int16_t> fit_weights(const BoardRange& range, const LevelArray& values) {
  const int cells = range.pits(), k = range.level();
  const std::uint64_t size = range.size();
  const std::uint64_t samples = std::min<std::uint64_t>(size, std::uint64_t(1) << 18);
  std::vector<std::uint8_t> cell(samples * cells);
  std::vector<double> u(samples);
  for (std::uint64_t s = 0; s < samples; ++s) {
    const std::uint64_t idx = static_cast<std::uint64_t>((static_cast<base::u128>(s) * size) / samples);
    const Board b = range.board(idx);
    for (int i = 0; i < cells; ++i) cell[s * cells + i] = b.cells[i];
    u[s] = (values[idx] + k) / 2;
  }
  std::vector<double> w(static_cast<std::size_t>(cells) * (k + 1), 0.0);
  double mean = 0;
  for (double x : u) mean += x;
  mean /= double(samples);
  for (int c = 0; c <= k; ++c) w[c] = mean;  // pit 0 carries the intercept
  std::vector<double> guess(samples, mean);
  std::vector<double> sum(k + 1), count(k + 1);
  for (int sweep = 0; sweep < 3; ++sweep) {
    for (int i = 0; i < cells; ++i) {
      std::fill(sum.begin(), sum.end(), 0.0);
      std::fill(count.begin(), count.end(), 0.0);
      double* wi = &w[static_cast<std::size_t>(i) * (k + 1)];
      for (std::uint64_t s = 0; s < samples; ++s) {
        const int c = cell[s * cells + i];
        sum[c] += u[s] - (guess[s] - wi[c]);
        count[c] += 1;
      }
      for (std::uint64_t s = 0; s < samples; ++s) {
        const int c = cell[s * cells + i];
        if (count[c] > 0) guess[s] += sum[c] / count[c] - wi[c];
      }
      for (int c = 0; c <= k; ++c)
        if (count[c] > 0) wi[c] = sum[c] / count[c];
    }
  }
  std::vector<std::int16_t> fixed(w.size());
  for (std::size_t j = 0; j < w.size(); ++j) {
    const double x = std::round(w[j] * (1 << PackedLevel::kWeightShift));
    fixed[j] = static_cast<std::int16_t>(std::clamp(x, -4096.0, 4096.0));
  }
  return fixed;
}

}  // namespace

const PackedLevel::LineLayout& PackedLevel::line_layout(int width) {
  // One table a width, shared by every level (a probe reads one entry).
  static const auto layouts = [] {
    std::array<LineLayout, 5> all{};
    for (int w = 2; w <= 4; ++w) {
      const int first = (64 - kHeaderBits) / w, per_word = 64 / w;
      for (int s = 0; s < slots_for(w); ++s) {
        const int word = s < first ? 0 : 1 + (s - first) / per_word;
        const int shift = s < first ? kHeaderBits + s * w : ((s - first) % per_word) * w;
        all[w].fields[s] = {static_cast<std::uint8_t>(word), static_cast<std::uint8_t>(shift)};
        all[w].masks[word] |= std::uint64_t(1) << shift;
      }
    }
    return all;
  }();
  return layouts[width];
}

void PackedLevel::set_width(int width) {
  width_ = width;
  escape_ = (std::uint64_t(1) << width) - 1;
  slots_ = slots_for(width);
  fields_ = line_layout(width).fields;
  masks_ = line_layout(width).masks;
  // ceil(2^64 / slots): line_of() is then exact for every index below 2^64 / slots.
  line_magic_ = static_cast<std::uint64_t>(((base::u128(1) << 64) + slots_ - 1) / slots_);
}

int PackedLevel::exception(std::uint64_t line, int slot, const std::uint64_t* words) const {
  const Field f = fields_[slot];
  std::uint64_t before = 0;
  switch (width_) {
    case 2: before = escapes_before<2>(words, masks_, f.word, f.shift); break;
    case 3: before = escapes_before<3>(words, masks_, f.word, f.shift); break;
    default: before = escapes_before<4>(words, masks_, f.word, f.shift); break;  // 2..4: pack and adopt refuse others
  }
  const std::uint64_t at = group_first_[line / kGroupLines] + ((words[0] >> 8) & 0xffff) + before;
  assert(at < exceptions_.size());
  return exceptions_[at];
}

std::uint64_t PackedLevel::bytes() const {
  return lines_ * kLineBytes + group_first_.size() * sizeof(std::uint64_t) + exceptions_.size() +
         weights_.size() * sizeof(std::int16_t);
}

namespace {

// Throws unless width is 0, 2, 3 or 4 and `values` holds level k's remainder values.
void check_pack_arguments(const BoardRange& range, const LevelArray& values, int width, int threads) {
  const int k = range.level();
  if (width != 0 && (width < 2 || width > 4))
    throw std::invalid_argument("packed level width must be 2, 3 or 4 bits (or 0: the smallest), not " +
                                std::to_string(width));
  if (k < 0 || k > 127 || values.size() != range.size())
    throw std::invalid_argument("PackedLevel::pack: level out of range or value array of the wrong size");
  const std::uint64_t size = values.size();
  std::uint64_t first_bad = size;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(min : first_bad)
  for (std::uint64_t i = 0; i < size; ++i) {
    const int v = values[i];
    if ((v < -k || v > k || ((v + k) & 1)) && i < first_bad) first_bad = i;
  }
  if (first_bad < size)
    throw std::invalid_argument("level " + std::to_string(k) + " entry " + std::to_string(first_bad) + " holds " +
                                std::to_string(values[first_bad]) + ", not a remainder value of the level");
}

}  // namespace

PackedLevel PackedLevel::pack(const BoardRange& range, const LevelArray& values, int width, int threads) {
  if (threads <= 0) threads = omp_get_max_threads();
  check_pack_arguments(range, values, width, threads);
  return pack(range, values.copy(), width, threads);
}

PackedLevel PackedLevel::pack(const BoardRange& range, LevelArray&& values, int width, int threads) {
  if (values.mapped()) return pack(range, static_cast<const LevelArray&>(values), width, threads);  // read-only
  if (threads <= 0) threads = omp_get_max_threads();
  check_pack_arguments(range, values, width, threads);
  const int k = range.level();
  PackedLevel p;
  p.pits_ = range.pits();
  p.k_ = k;
  p.size_ = range.size();
  p.weights_ = fit_weights(range, values);

  // Every board's residual u - q in [-k, k], in place of its value (the plans and the encoding
  // read only it).
  LevelArray& residual = values;
  for_each_board(range, threads, [&](std::uint64_t idx, base::u128 bits) {
    residual[idx] = static_cast<std::int8_t>((residual[idx] + k) / 2 - p.guess(bits));
  });
  p.encode(residual, width, threads);
  return p;
}

void PackedLevel::encode(const LevelArray& residual, int width, int threads) {
  const int k = k_;
  const std::uint64_t size = size_;
  // For one width: the base and escape count of every line (window of 2^w - 1 residuals
  // u - q holding the most boards of the line).
  struct Plan {
    int width = 0;
    std::uint64_t lines = 0, escapes = 0, bytes = 0;
    std::vector<std::int8_t> base;
    std::vector<std::uint16_t> escapes_in;  // [line]
  };
  auto plan_width = [&](int w) {
    Plan plan;
    plan.width = w;
    const int slots = slots_for(w);
    plan.lines = (size + slots - 1) / slots;
    plan.base.assign(plan.lines, 0);
    plan.escapes_in.assign(plan.lines, 0);
    const int window = (1 << w) - 1;
    const std::uint64_t groups = (plan.lines + kGroupLines - 1) / kGroupLines;
    std::uint64_t escapes = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) reduction(+ : escapes)
    for (std::uint64_t g = 0; g < groups; ++g) {
      int below[2 * 127 + 2];  // below[j]: residuals < j - k in the line (k <= 127; no allocation in the region)
      const std::uint64_t line_end = std::min(plan.lines, (g + 1) * kGroupLines);
      std::uint64_t idx = g * kGroupLines * slots;
      for (std::uint64_t line = g * kGroupLines; line < line_end; ++line) {
        const int n = static_cast<int>(std::min<std::uint64_t>(slots, size - line * slots));
        std::fill(below, below + 2 * k + 2, 0);
        for (int s = 0; s < n; ++s, ++idx) ++below[residual[idx] + k + 1];
        for (int j = 1; j <= 2 * k + 1; ++j) below[j] += below[j - 1];
        // The window [lo, lo + window) holding the most residuals.
        int best = -1, best_lo = 0;
        for (int lo = -k; lo <= k; ++lo) {
          const int in = below[std::min(lo + window, k + 1) + k] - below[lo + k];
          if (in > best) {
            best = in;
            best_lo = lo;
          }
        }
        plan.base[line] = static_cast<std::int8_t>(best_lo);
        plan.escapes_in[line] = static_cast<std::uint16_t>(n - best);
        escapes += static_cast<std::uint64_t>(n - best);
      }
    }
    plan.escapes = escapes;
    plan.bytes = plan.lines * kLineBytes + groups * sizeof(std::uint64_t) + escapes;
    return plan;
  };

  Plan chosen;
  for (int w = 2; w <= 4; ++w) {
    if (width != 0 && w != width) continue;
    Plan plan = plan_width(w);
    if (chosen.width == 0 || plan.bytes < chosen.bytes) chosen = std::move(plan);
  }

  PackedLevel& p = *this;
  p.set_width(chosen.width);
  p.lines_ = chosen.lines;
  const std::uint64_t groups = (p.lines_ + kGroupLines - 1) / kGroupLines;
  p.group_first_.assign(groups, 0);
  std::uint64_t total = 0;
  for (std::uint64_t g = 0; g < groups; ++g) {
    p.group_first_[g] = total;
    const std::uint64_t end = std::min(p.lines_, (g + 1) * kGroupLines);
    for (std::uint64_t line = g * kGroupLines; line < end; ++line) total += chosen.escapes_in[line];
  }
  p.exceptions_ = LevelArray(total);
  p.lines_mem_ = LevelArray(p.lines_ * kLineBytes);
  std::uint64_t* words_all = reinterpret_cast<std::uint64_t*>(p.lines_mem_.data());
  const int slots = p.slots_;
  const int window = static_cast<int>(p.escape_);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (std::uint64_t g = 0; g < groups; ++g) {
    const std::uint64_t line_end = std::min(p.lines_, (g + 1) * kGroupLines);
    std::uint64_t idx = g * kGroupLines * slots;
    std::uint64_t next_exception = p.group_first_[g];
    for (std::uint64_t line = g * kGroupLines; line < line_end; ++line) {
      std::uint64_t* words = words_all + line * kLineWords;
      std::fill(words, words + kLineWords, 0);
      const int base = chosen.base[line];
      const std::uint64_t first = next_exception - p.group_first_[g];
      assert(first <= 0xffff);  // a group holds at most 256 x 244 boards
      words[0] = static_cast<std::uint8_t>(base) | (first << 8);
      const int n = static_cast<int>(std::min<std::uint64_t>(slots, size - line * slots));
      for (int s = 0; s < n; ++s, ++idx) {
        const int code = residual[idx] - base;
        std::uint64_t field;
        if (code >= 0 && code < window) {
          field = static_cast<std::uint64_t>(code);
        } else {
          field = p.escape_;
          p.exceptions_[next_exception++] = residual[idx];
        }
        words[p.fields_[s].word] |= field << p.fields_[s].shift;
      }
    }
  }
}

LevelArray PackedLevel::unpack(const BoardRange& range, int threads) const {
  if (threads <= 0) threads = omp_get_max_threads();
  if (range.size() != size_ || range.level() != k_ || range.pits() != pits_)
    throw std::invalid_argument("PackedLevel::unpack: a range of another level");
  LevelArray out(size_);
  for_each_board(range, threads,
                 [&](std::uint64_t idx, base::u128 bits) { out[idx] = static_cast<std::int8_t>(value(idx, bits)); });
  return out;
}

std::vector<std::span<const unsigned char>> PackedLevel::image() const {
  static_assert(std::endian::native == std::endian::little, "the packed image is little-endian");
  auto bytes = [](const auto* p, std::size_t n) {
    return std::span<const unsigned char>(reinterpret_cast<const unsigned char*>(p), n);
  };
  return {bytes(weights_.data(), weights_.size() * sizeof(std::int16_t)),
          bytes(group_first_.data(), group_first_.size() * sizeof(std::uint64_t)),
          bytes(lines_mem_.data(), lines_ * kLineBytes), bytes(exceptions_.data(), exceptions_.size())};
}

std::vector<std::span<unsigned char>> PackedLevel::image_for_filling() {
  std::vector<std::span<unsigned char>> out;
  for (const std::span<const unsigned char> part : image())
    out.emplace_back(const_cast<unsigned char*>(part.data()), part.size());
  return out;
}

PackedLevel PackedLevel::shaped(const BoardRange& range, const Shape& shape) {
  const int k = range.level();
  if (k < 0 || k > 127) throw std::invalid_argument("packed level out of range");
  if (shape.width < 2 || shape.width > 4)
    throw std::invalid_argument("packed width " + std::to_string(shape.width) + " (2, 3 or 4 expected)");
  PackedLevel p;
  p.pits_ = range.pits();
  p.k_ = k;
  p.size_ = range.size();
  p.set_width(shape.width);
  p.lines_ = (p.size_ + p.slots_ - 1) / p.slots_;
  const std::uint64_t groups = (p.lines_ + kGroupLines - 1) / kGroupLines;
  const std::uint64_t weights = static_cast<std::uint64_t>(p.pits_) * (k + 1);
  if (shape.lines != p.lines_ || shape.groups != groups || shape.weights != weights || shape.exceptions > p.size_)
    throw std::invalid_argument("packed shape (" + std::to_string(shape.lines) + " lines, " +
                                std::to_string(shape.groups) + " groups, " + std::to_string(shape.weights) +
                                " weights, " + std::to_string(shape.exceptions) + " exceptions) is not level " +
                                std::to_string(k) + "'s at " + std::to_string(shape.width) + " bits");
  return p;
}

PackedLevel PackedLevel::with_shape(const BoardRange& range, const Shape& shape) {
  PackedLevel p = shaped(range, shape);
  p.lines_mem_ = LevelArray(p.lines_ * kLineBytes);  // uninitialised: the reader fills every line
  p.group_first_.assign(shape.groups, 0);
  p.exceptions_ = LevelArray(shape.exceptions);
  p.weights_.assign(shape.weights, 0);
  return p;
}

PackedLevel PackedLevel::adopt(const BoardRange& range, const Shape& shape, LevelArray lines, LevelArray exceptions,
                               std::vector<std::int16_t> weights, std::vector<std::uint64_t> group_first) {
  const int k = range.level();
  PackedLevel p = shaped(range, shape);
  if (lines.size() != p.lines_ * kLineBytes || exceptions.size() != shape.exceptions ||
      weights.size() != shape.weights || group_first.size() != shape.groups)
    throw std::invalid_argument("packed arrays do not have level " + std::to_string(k) + "'s shape");
  p.lines_mem_ = std::move(lines);
  p.exceptions_ = std::move(exceptions);
  p.weights_ = std::move(weights);
  p.group_first_ = std::move(group_first);
  return p;
}

void PackedLevel::check_image(int threads) const {
  if (threads <= 0) threads = omp_get_max_threads();
  for (std::int16_t w : weights_)
    if (w < -4096 || w > 4096) throw std::invalid_argument("packed weight " + std::to_string(w) + " out of range");
  // Groups in parallel; each line's escapes by a popcount of its all-ones fields (fields past
  // the level's last board are zero in a sound image, so they count too: stricter). The
  // exceptions' range is checked in the same loop, an equal share an iteration (a serial pass
  // kept the other core waiting, its OpenMP worker spinning, on every level loaded).
  const std::uint64_t groups = group_first_.size();
  const std::uint64_t exceptions = exceptions_.size();
  std::uint64_t bad_line = ~std::uint64_t(0), bad_group = ~std::uint64_t(0), bad_exception = ~std::uint64_t(0);
  if (groups == 0) {
    for (std::uint64_t i = 0; i < exceptions; ++i)
      if (exceptions_[i] < -k_ || exceptions_[i] > k_) bad_exception = std::min(bad_exception, i);
  }
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads) reduction(min : bad_line, bad_group, bad_exception)
  for (std::uint64_t g = 0; g < groups; ++g) {
    const std::uint64_t share_end = g + 1 == groups ? exceptions : exceptions / groups * (g + 1);
    for (std::uint64_t i = exceptions / groups * g; i < share_end; ++i)
      if (exceptions_[i] < -k_ || exceptions_[i] > k_) {
        bad_exception = std::min(bad_exception, i);
        break;
      }
    std::uint64_t in_group = 0;
    const std::uint64_t line_end = std::min(lines_, (g + 1) * kGroupLines);
    for (std::uint64_t line = g * kGroupLines; line < line_end; ++line) {
      const std::uint64_t* words = line_data(line);
      if (((words[0] >> 8) & 0xffff) != in_group) {
        bad_line = std::min(bad_line, line);
        break;
      }
      switch (width_) {
        case 2: in_group += line_escapes<2>(words, masks_); break;
        case 3: in_group += line_escapes<3>(words, masks_); break;
        default: in_group += line_escapes<4>(words, masks_); break;  // 2..4: pack and adopt refuse others
      }
    }
    const std::uint64_t next = g + 1 < groups ? group_first_[g + 1] : exceptions_.size();
    if (group_first_[g] > next || next - group_first_[g] != in_group) bad_group = std::min(bad_group, g);
  }
  if (bad_exception != ~std::uint64_t(0))
    throw std::invalid_argument("packed exception " + std::to_string(exceptions_[bad_exception]) + " out of range");
  if (bad_line != ~std::uint64_t(0))
    throw std::invalid_argument("packed line " + std::to_string(bad_line) + ": wrong first exception");
  if (bad_group != ~std::uint64_t(0))
    throw std::invalid_argument("packed group " + std::to_string(bad_group) + ": exception offsets do not add up");
  if (groups && group_first_[0] != 0) throw std::invalid_argument("packed group 0 does not start at exception 0");
}

}  // namespace kalah

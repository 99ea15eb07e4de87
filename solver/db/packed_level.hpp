// solver/db/packed_level.hpp — one database level packed to 2, 3 or 4 bits a board, exact,
// with one memory read (one 64-byte line) for nearly every probe.
//
// Encoding. Let u = (v + k) / 2 in [0, k] for a board of level k with remainder value v (v and
// k have the same parity, so u is a whole number). A per-level additive predictor gives an
// integer guess q of u from the mover's m pits alone (no memory read beyond a table of
// m x (k+1) 16-bit weights in 1/16ths, which stays in the L1 cache):
//     q = clamp((sum over pits i < m of weight[i][cells[i]] + 8) >> 4, 0, k).
// Only the mover's pits: they vary fastest in either order, so the line's base already follows
// the opponent's (measured: the opponent's pits would save 0.1-0.2% of escapes, and cost
// six more table reads a probe).
// Boards are cut, in the order of the range packed (solver/base/board_range.hpp: a level in
// index order, or a pair of sublevels in pair order; "index" below is the position in it), into lines of `slots`
// consecutive boards, one 64-byte line each (8 little-endian 64-bit words):
//     word 0, bits 0..7    base: the line's window start, a signed byte, relative to q
//     word 0, bits 8..23   the line's first exception, counted from its group's first (below)
//     word 0, bits 24..63  the first fields, w bits each, from bit 24 up (40 / w of them)
//     words 1..7           64 / w fields each, from bit 0 up (no field crosses a word)
// Field `code` of a board: u = q + base + code when code < 2^w - 1. The escape code
// 2^w - 1 sends the probe to the exceptions: one signed byte u - q per escaped board, in index order;
// the board's entry is exceptions[group_first[line / 256] + line's first exception + the
// escapes before it in its line]. w = 2: 244 boards a line; w = 3: 160; w = 4: 122.
// pack() picks the width and the bases that make the level smallest (bits_per_board()).
//
// The layout is the in-memory image of a packed level; docs/db-format.md describes it.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "solver/base/board_bits.hpp"
#include "solver/base/board_index.hpp"
#include "solver/base/board_range.hpp"
#include "solver/db/level.hpp"

namespace kalah {

class PackedLevel {
 public:
  static constexpr int kLineBytes = 64;
  static constexpr int kLineWords = kLineBytes / 8;
  static constexpr int kHeaderBits = 24;
  static constexpr int kGroupLines = 256;  // lines sharing one 64-bit exception offset
  static constexpr int kWeightShift = 4;   // predictor weights are in 1/16ths

  PackedLevel() = default;

  // Boards a line of w-bit fields holds: 40 / w in word 0 after the header, 64 / w in each
  // of the other 7 words (244, 160, 122 for w = 2, 3, 4).
  static constexpr int slots_for(int width) { return (64 - kHeaderBits) / width + (kLineWords - 1) * (64 / width); }

  // Pack `values`, the 1-byte entries of the boards of `range` (solver/base/board_range.hpp:
  // a whole level in index order or a pair of sublevels), in the range's order. width 0: the
  // smallest of 2, 3 and 4 bits; else that width. Throws std::invalid_argument for a width
  // outside 0, 2..4 or an entry that is not a remainder value of the range's level. Packing
  // works in a second array of a byte a board.
  static PackedLevel pack(const BoardRange& range, const LevelArray& values, int width = 0, int threads = 0);
  // The same without the second array: `values` becomes the working array (its content is
  // lost, also when pack throws after checking the entries); a read-only mapped array is copied.
  static PackedLevel pack(const BoardRange& range, LevelArray&& values, int width = 0, int threads = 0);
  // Level k in index order.
  static PackedLevel pack(const BoardIndexer& indexer, int k, const LevelArray& values, int width = 0,
                          int threads = 0) {
    return pack(BoardRange::level(indexer, k), values, width, threads);
  }
  static PackedLevel pack(const BoardIndexer& indexer, int k, LevelArray&& values, int width = 0, int threads = 0) {
    return pack(BoardRange::level(indexer, k), std::move(values), width, threads);
  }

  int level() const { return k_; }
  int pits() const { return pits_; }
  int width() const { return width_; }
  int slots() const { return slots_; }          // boards a line
  std::uint64_t size() const { return size_; }  // boards
  std::uint64_t lines() const { return lines_; }
  std::uint64_t exceptions() const { return exceptions_.size(); }
  std::uint64_t bytes() const;                         // memory held: lines, offsets, exceptions, weights
  bool mapped() const { return lines_mem_.mapped(); }  // lines and exceptions map a packed raw cache
  // Mapped lines and exceptions become copies in anonymous memory (LevelArray::make_private).
  void make_private() {
    lines_mem_.make_private();
    exceptions_.make_private();
  }
  double bits_per_board() const { return size_ ? 8.0 * double(bytes()) / double(size_) : 0.0; }

  // The predictor's guess q for the board `bits` (cells as bytes, board_bits.hpp). M: the pit
  // count when the caller knows it at compile time (the search), 0 when it does not.
  template <int M = 0>
  int guess(base::u128 bits) const {
    assert(M == 0 || M == pits_);
    const int pits = M ? M : pits_;
    alignas(16) std::uint8_t c[16];
    std::memcpy(c, &bits, sizeof c);
    int sum = 0;
    const std::int16_t* w = weights_.data();
    for (int i = 0; i < pits; ++i, w += k_ + 1) sum += w[c[i]];
    return std::clamp((sum + (1 << (kWeightShift - 1))) >> kWeightShift, 0, k_);
  }

  // The line holding board `index`, for a prefetch before value().
  const void* address(std::uint64_t index) const { return line_data(line_of(index)); }

  // Remainder value of the board `bits` with index `index` in this level (M as for guess).
  template <int M = 0>
  int value(std::uint64_t index, base::u128 bits) const {
    assert(index < size_);
    const std::uint64_t line = line_of(index);
    const int slot = static_cast<int>(index - line * static_cast<std::uint64_t>(slots_));
    const std::uint64_t* words = line_data(line);
    const Field f = fields_[slot];
    const int code = static_cast<int>((words[f.word] >> f.shift) & escape_);
    const int q = guess<M>(bits);
    if (code != static_cast<int>(escape_)) [[likely]]
      return 2 * (q + static_cast<std::int8_t>(words[0] & 0xff) + code) - k_;
    return 2 * (q + exception(line, slot, words)) - k_;
  }

  // The same for a Board.
  int value(std::uint64_t index, const Board& b) const { return value(index, base::to_bits(b)); }

  // Every entry, one byte a board, in the order of `range` (the one pack() was given).
  LevelArray unpack(const BoardRange& range, int threads = 0) const;
  LevelArray unpack(const BoardIndexer& indexer, int threads = 0) const {
    return unpack(BoardRange::level(indexer, k_), threads);
  }

  // The image's sizes, which a file records (solver/db/format.hpp, version 2).
  struct Shape {
    int width = 0;
    std::uint64_t lines = 0, groups = 0, exceptions = 0, weights = 0;
    bool operator==(const Shape&) const = default;
    // The image's bytes: weights (16-bit), group offsets (64-bit), lines, exception bytes.
    std::uint64_t image_bytes() const { return weights * 2 + groups * 8 + lines * kLineBytes + exceptions; }
  };
  Shape shape() const { return {width_, lines_, group_first_.size(), exceptions_.size(), weights_.size()}; }
  // The image as four byte ranges, in file order: weights (16-bit), group offsets (64-bit),
  // lines, exceptions; little-endian words (the only byte order this program builds for).
  std::vector<std::span<const unsigned char>> image() const;
  // A level of level k's size and the given shape whose lines are uninitialised, for a reader to fill
  // through image_for_filling() and then check with check_image(). Throws std::invalid_argument
  // when the shape cannot be level k's (width, line and group counts, weights).
  static PackedLevel with_shape(const BoardRange& range, const Shape& shape);
  // Throws std::invalid_argument as with_shape() does when `shape` cannot be that of `range`.
  static void check_shape(const BoardRange& range, const Shape& shape) { (void)shaped(range, shape); }
  static PackedLevel with_shape(const BoardIndexer& indexer, int k, const Shape& shape) {
    return with_shape(BoardRange::level(indexer, k), shape);
  }
  std::vector<std::span<unsigned char>> image_for_filling();
  // A level of level k's size and the given shape over memory the caller provides (a raw
  // cache's mapping, solver/db/raw_cache.hpp): `lines` and `exceptions` are taken over, the
  // weights and group offsets copied. Throws std::invalid_argument as with_shape() does, or
  // when the arrays are not of the shape's sizes; check_image() is the caller's to call.
  static PackedLevel adopt(const BoardRange& range, const Shape& shape, LevelArray lines, LevelArray exceptions,
                           std::vector<std::int16_t> weights, std::vector<std::uint64_t> group_first);
  static PackedLevel adopt(const BoardIndexer& indexer, int k, const Shape& shape, LevelArray lines,
                           LevelArray exceptions, std::vector<std::int16_t> weights,
                           std::vector<std::uint64_t> group_first) {
    return adopt(BoardRange::level(indexer, k), shape, std::move(lines), std::move(exceptions), std::move(weights),
                 std::move(group_first));
  }
  // Throws std::invalid_argument unless the image is consistent: every line's first exception
  // follows from the escapes of the lines before it in its group, the groups' offsets add up to
  // the exception count, and every exception and weight is in range. (Checksums guard the
  // rest; this keeps a probe inside the arrays whatever the bytes.)
  void check_image(int threads = 0) const;

  // The stored image (for files and tests): the lines, the group offsets, the exceptions, the
  // weights [pit][seeds].
  const std::uint64_t* line_words() const { return reinterpret_cast<const std::uint64_t*>(lines_mem_.data()); }
  const std::vector<std::uint64_t>& group_first() const { return group_first_; }
  const LevelArray& exception_values() const { return exceptions_; }
  const std::vector<std::int16_t>& weights() const { return weights_; }

 private:
  struct Field {
    std::uint8_t word, shift;
  };
  // Where each slot's field lies in a line of w-bit fields, for w = 2..4.
  struct LineLayout {
    Field fields[(64 - kHeaderBits) / 2 + (kLineWords - 1) * 32];  // slots_for(2): the most
    std::uint64_t masks[kLineWords];
  };
  static const LineLayout& line_layout(int width);

  std::uint64_t line_of(std::uint64_t index) const {
    // index / slots_ by a multiply: exact for index < 2^64 / slots_ (sizes are far below).
    return static_cast<std::uint64_t>((static_cast<base::u128>(index) * line_magic_) >> 64);
  }
  const std::uint64_t* line_data(std::uint64_t line) const { return line_words() + line * kLineWords; }
  int exception(std::uint64_t line, int slot, const std::uint64_t* words) const;
  // pack() once `residual` holds u - q of every board (q from this level's weights).
  void encode(const LevelArray& residual, int width, int threads);
  void set_width(int width);
  // A level of level k's size and `shape` (checked against the level), without its arrays.
  static PackedLevel shaped(const BoardRange& range, const Shape& shape);

  int pits_ = 0, k_ = 0, width_ = 0, slots_ = 0;
  std::uint64_t escape_ = 0;
  std::uint64_t size_ = 0, lines_ = 0, line_magic_ = 0;
  const Field* fields_ = nullptr;           // [slot]: word and bit of its field (line_layout)
  const std::uint64_t* masks_ = nullptr;    // [word]: the first bit of every field in the word
  LevelArray lines_mem_;                    // lines_ x 64 bytes
  std::vector<std::uint64_t> group_first_;  // [line / 256]: exceptions before the group
  LevelArray exceptions_;                   // u - q of escaped boards, in the range's order
  std::vector<std::int16_t> weights_;       // [mover's pit][seeds 0..k]

  friend struct PackedLevelAccess;  // tests
};

}  // namespace kalah

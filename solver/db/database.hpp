// solver/db/database.hpp — endgame databases: the exact remainder value of every board with
// at most S seeds in the pits, for one pit count m and one rule set.
//
// CONTRACT between the database (solver/db/) and its users (search, CLI). The remainder
// value is the one of engine/board.hpp: the mover's future store gain minus the
// opponent's, perfect play, natural end. Levels k = 0..S hold the boards with exactly k
// seeds in the pits, one signed byte per board at its combinatorial index
// (solver/base/board_index.hpp); see docs/db-format.md for the indexing and the file format.
// Terminal boards are stored too (their value is the remainder the end rule banks), so
// every board with at most S seeds can be probed.
//
// A loaded or built database is immutable: value() and prefetch() may be called from any
// number of threads at once.
//
// Rules: databases hold natural-end values, so a rule set with early end on is refused by
// the builder; when loading, rule sets are compared with Rules::same_values_as (early end
// and the pie rule do not matter). The pie rule is accepted and ignored.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/board.hpp"
#include "engine/rules.hpp"
#include "solver/base/board_index.hpp"
#include "solver/db/bound_level.hpp"
#include "solver/db/level.hpp"
#include "solver/db/level_view.hpp"
#include "solver/db/packed_level.hpp"

namespace kalah {

namespace dbfile {
struct RawCacheState;
}

// A database file or directory that cannot be used: the message names the file and the
// problem (missing, truncated, corrupt block, checksum, wrong rules or pit count, ...).
struct DatabaseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Bytes levels 0..max_seeds take packed at 4 bits (122 boards a 64-byte line), exceptions not
// counted: what a packed load plans for.
std::uint64_t packed_bytes_estimate(const BoardIndexer& indexer, int max_seeds);

// Bytes each level 0..max_seeds of the database in `dir` takes in memory when loaded with
// `pack_width` (as EndgameDatabase::load's): one byte a board (pack_width < 0), a format-2
// file's packed image as filed (width 0 or its own), or packed_bytes_estimate's 4.2 bits a
// board for a level packed at load. Reads the level headers only; throws DatabaseError.
std::vector<std::uint64_t> level_memory_bytes(const std::filesystem::path& dir, int pits, int max_seeds,
                                              int pack_width);

// Bytes each pair of level k of the database in `dir` takes in memory (a format-3 file's pair
// images); empty for a level of another format. Reads the header only; throws DatabaseError.
std::vector<std::uint64_t> pair_memory_bytes(const std::filesystem::path& dir, int k);

// The most of the database in `dir` (levels 0..max_seeds filed) that `bytes` of memory hold
// when loaded with `pack_width` (as level_memory_bytes): complete levels 0..max_seeds, then,
// when level max_seeds + 1 is a format-3 file loaded packed (pack_width 0), its pairs from the
// middle out that fit in what is left (EndgameDatabase::load's top_pairs). max_seeds -1: not
// even level 0 fits.
struct DatabaseSelection {
  int max_seeds = -1;
  std::uint64_t top_pairs = 0;  // a bit a pair of level max_seeds + 1
  std::uint64_t bytes = 0;      // what they take
};
DatabaseSelection select_within(const std::filesystem::path& dir, int pits, int max_seeds, std::uint64_t bytes,
                                int pack_width);

// The most of the database in `dir` (levels 0..max_seeds filed) that `bytes` hold with levels
// of bounds (BoundLevel, a bit a board): the most complete exact levels 0..max_seeds that leave
// room for `bound_levels` levels of bounds above them (the last for one pair at least), then
// levels of bounds upward as long as memory is left, the last with its pairs from the middle
// out that fit (bound_top_pairs; all bits set when whole). Bounds are made of format-3 files
// only. max_seeds -1: not even level 0 fits.
struct BoundedSelection {
  int max_seeds = -1;
  int bound_levels = 0;
  std::uint64_t bound_top_pairs = 0;  // a bit a pair of level max_seeds + bound_levels
  std::uint64_t bytes = 0;
};
BoundedSelection bounds_within(const std::filesystem::path& dir, int pits, int max_seeds, std::uint64_t bytes,
                               int bound_levels);

class EndgameDatabase {
 public:
  EndgameDatabase() = default;
  // Take over complete levels 0..levels.size()-1 (levels[k] has indexer.count(k) entries).
  EndgameDatabase(int pits, const Rules& rules, std::vector<LevelArray> levels);

  // Compute levels 0..max_seeds in memory (no files). Throws std::invalid_argument for rule
  // sets whose values depend on the stores (early end).
  static EndgameDatabase build_in_memory(int pits, const Rules& rules, int max_seeds, int threads = 0);

  // Load levels 0..max_seeds (all levels present when max_seeds < 0) from `dir`, checking
  // headers and checksums and that the files were built for `pits` and rules with the same
  // values as `rules`. memory_limit_bytes = 0: no limit. Throws DatabaseError.
  // raw_cache: map each level from its raw cache file "level-KKK.raw" when that is valid for
  // the level file (its checksums verified), else read the level file and write the cache for
  // the next load (solver/db/raw_cache.hpp); a format-2 or -3 level loaded packed uses its
  // packed cache "level-KKK.praw" so (a format-3 level loads packed by pairs, PairedLevel);
  // false: read the level files only, write nothing.
  // `note` receives one-line notes (a damaged cache, a cache that could not be written).
  // pack_width >= 0: pack each level as it is loaded (PackedLevel, width 0: the smallest),
  // so memory peaks at the packed levels plus one level of one byte a board; the memory limit
  // then counts 4.2 bits a board (a 4-bit level without exceptions).
  // private_copy: each level mapped from a raw cache is copied into anonymous memory on huge
  // pages (LevelArray::make_private) as it loads: probes miss the TLB less, at the cost of
  // the sharing of the page cache between processes.
  // top_pairs != 0: also the pairs of level max_seeds + 1 whose bits are set (a partial level,
  // below), which must be a format-3 file loaded packed (pack_width 0); the level is read
  // whole and the other pairs released, and the memory limit counts the pairs kept.
  // bound_levels > 0 (without top_pairs): also levels max_seeds + 1 .. max_seeds + bound_levels
  // as bounds (below; dbfile::load_bound_level), the last with the pairs of bound_top_pairs.
  static EndgameDatabase load(const std::filesystem::path& dir, int pits, const Rules& rules, int max_seeds = -1,
                              std::size_t memory_limit_bytes = 0, bool raw_cache = true,
                              const std::function<void(const std::string&)>& note = {}, int pack_width = -1,
                              int threads = 0, bool private_copy = false, std::uint64_t top_pairs = 0,
                              int bound_levels = 0, std::uint64_t bound_top_pairs = ~std::uint64_t(0));

  int pits() const { return pits_; }
  int max_seeds() const { return max_seeds_; }  // complete levels 0..max_seeds; -1 when empty

  // A partial level: level max_seeds + 1 for some of its sublevel pairs only (a pair p holds
  // the boards with p or k - p seeds on the mover's side, solver/db/paired_level.hpp; the
  // pairs are closed under the moves that stay in the level, so any set of them is exact on
  // its own). It fills memory that cannot hold a whole level more: the pairs nearest the
  // middle are the largest and the most probed (docs/db-format.md, "Partial levels").
  // partial_level(): its seed count, or -1 when there is none; partial_pairs(): a bit a pair.
  int partial_level() const { return partial_ ? max_seeds_ + 1 : -1; }
  std::uint64_t partial_pairs() const { return partial_ ? partial_->held_pairs() : 0; }
  // Take over level max_seeds + 1, packed by pairs, keeping only the pairs in `mask` (nonzero).
  // Throws std::invalid_argument for another level, pit count or an incomplete level.
  void add_partial_level(PairedLevel level, std::uint64_t mask);
  // Whether the board `bits` with k seeds in the pits has its value here.
  bool holds(int k, base::u128 bits) const {
    return k <= max_seeds_ ||
           (k == max_seeds_ + 1 && partial_ && partial_->holds_pair(SublevelIndexer::pair_of(pits_, k, bits)));
  }
  const Rules& rules() const { return rules_; }
  bool empty() const { return max_seeds_ < 0; }

  // Levels of bounds (solver/db/bound_level.hpp) above the exact ones: levels bound_first() ..
  // bound_last() (none: -1, -2), a bit a board, whether the value is above its sublevel's median; the last may hold
  // some of its pairs only (bound_top_pairs()). The search reads them as bounds it then proves.
  int bound_first() const { return bounds_.empty() ? -1 : bounds_.front().level(); }
  int bound_last() const { return bounds_.empty() ? -2 : bounds_.back().level(); }
  std::uint64_t bound_top_pairs() const { return bounds_.empty() ? 0 : bounds_.back().held_pairs(); }
  // Take over the next level of bounds: level max_seeds + 1 + the bound levels held, and no
  // partial exact level. Throws std::invalid_argument otherwise or once the last holds some pairs only.
  void add_bound_level(BoundLevel level);
  const BoundLevel& bound_level(int k) const {
    assert(bound_first() <= k && k <= bound_last());
    return bounds_[static_cast<std::size_t>(k - bound_first())];
  }

  // Remainder value of `b` (mover to move). Requires holds(seeds in b, b) (throws
  // std::out_of_range otherwise).
  int value(const Board& b) const;
  // The same when the caller already knows the seed count k = seeds in b's pits (checked
  // only by assertions: requires holds(k, b)).
  int value(const Board& b, int k) const {
    assert(holds(k, base::to_bits(b)));
    return k > max_seeds_ ? partial_->value(base::to_bits(b)) : value_at(k, indexer_.index(b), base::to_bits(b));
  }
  // Prefetch the entry of `b` (k seeds) into the cache ahead of a value() call.
  void prefetch(const Board& b, int k) const {
    __builtin_prefetch(k > max_seeds_ ? partial_->address(base::to_bits(b))
                                      : address(k, indexer_.index(b), base::to_bits(b)));
  }

  // The same for a caller that computed the board's index itself (the search: one index for
  // the prefetch and the read). `bits` is the board (solver/base/board_bits.hpp).
  int value_at(int k, std::uint64_t index, base::u128 bits) const {
    assert(0 <= k && k <= max_seeds_);
    return views_[k].value(index, bits);
  }
  const void* address(int k, std::uint64_t index, base::u128 bits) const {
    assert(0 <= k && k <= max_seeds_);
    return views_[k].address(index, bits);
  }
  // The same in two steps for a caller that prefetches and then reads: where the board is
  // stored (LevelView::slot_of: its index, computed by index() only for a layout that reads
  // it, or a paired level's slot), then by that. These three also serve the partial level.
  // M: the pit count when the caller knows it at compile time (the search), 0 when it does not.
  template <int M = 0, class IndexFn>
  std::uint64_t slot_of(int k, base::u128 bits, IndexFn&& index) const {
    assert(0 <= k && k <= max_seeds_ + 1 && holds(k, bits));
    return views_[k].template slot_of<M>(bits, index);
  }
  template <int M = 0>
  int value_in_slot(int k, std::uint64_t slot, base::u128 bits) const {
    assert(0 <= k && k < static_cast<int>(views_.size()));
    return views_[k].template value_at<M>(slot, bits);
  }
  const void* slot_address(int k, std::uint64_t slot) const {
    assert(0 <= k && k < static_cast<int>(views_.size()));
    return views_[k].address_at(slot);
  }
  // Level k whichever way it is held.
  const LevelView& view(int k) const {
    assert(0 <= k && k <= max_seeds_);
    return views_[k];
  }

  // Pack every level to 2-4 bits a board (PackedLevel; width 0: the smallest per level),
  // releasing the 1-byte levels one by one. Values are unchanged.
  void pack(int width = 0, int threads = 0);
  // The same by sublevel pairs (PairedLevel: the layout of version-3 files).
  void pack_by_pairs(int width = 0, int threads = 0);
  bool packed() const { return !packed_.empty() || !paired_.empty(); }
  // Level k packed in index order (requires it to be so held), or by pairs.
  const PackedLevel& packed_level(int k) const {
    assert(0 <= k && k < static_cast<int>(packed_.size()) && packed_[k].size() > 0);
    return packed_[k];
  }
  const PairedLevel& paired_level(int k) const {
    assert(0 <= k && k < static_cast<int>(paired_.size()) && paired_[k].pairs() > 0);
    return paired_[k];
  }
  // Bytes the levels hold in memory (the partial level's pairs included), and bits a board.
  std::uint64_t memory_bytes() const;
  // The part of memory_bytes() that maps raw cache files (shared page cache; a level or pair
  // that maps its cache counts whole, its few small tables included); the rest is the
  // process's own memory (decompressed, built, or copied by load's private_copy).
  std::uint64_t mapped_bytes() const;
  // Of the exact levels (the levels of bounds take a bit a board besides).
  double bits_per_board() const {
    std::uint64_t bounds = 0;
    for (const BoundLevel& b : bounds_) bounds += b.bytes();
    return entries() ? 8.0 * double(memory_bytes() - bounds) / double(entries()) : 0.0;
  }

  const BoardIndexer& indexer() const { return indexer_; }
  // Level k as one byte a board (requires !packed()).
  const LevelArray& level(int k) const {
    assert(!packed() && 0 <= k && k <= max_seeds_);
    return levels_[k];
  }
  std::uint64_t entries() const;  // boards stored, all levels (the partial level's pairs included)

 private:
  int pits_ = 0;
  int max_seeds_ = -1;
  Rules rules_;
  BoardIndexer indexer_;
  std::vector<LevelArray> levels_;  // levels_[k][index(board)]; empty once packed
  // Once packed, level k is in packed_[k] (index order) or paired_[k] (by pairs, a version-3
  // file's layout); the other is empty (paired_ may be shorter).
  std::vector<PackedLevel> packed_;
  std::vector<PairedLevel> paired_;
  // Level max_seeds_ + 1's pairs held (null: no partial level); on the heap, as the levels in
  // the vectors, so that views_ stay valid when the database moves.
  std::unique_ptr<PairedLevel> partial_;
  std::vector<BoundLevel> bounds_;  // levels max_seeds_ + 1 ... (BoundLevel moves keep their bits)
  std::vector<LevelView> views_;    // [k]: levels_[k], packed_[k] or paired_[k]; then partial_

  void make_views();
  void load_bounds(const std::filesystem::path& dir, int bound_levels, std::uint64_t top_pairs,
                   dbfile::RawCacheState& cache, int threads, bool private_copy);
};

}  // namespace kalah

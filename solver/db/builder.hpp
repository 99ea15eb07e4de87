// solver/db/builder.hpp — retrograde construction of database levels, and re-derivation of
// entries for verification.
//
// Level k holds every board with exactly k seeds in the pits (index: solver/base/board_index.hpp;
// values: solver/db/level.hpp). A sowing that banks s > 0 seeds (sown into the store or
// captured) leads to level k - s, which is complete before level k starts. A sowing that
// banks nothing only moves some of the mover's seeds towards its store and passes the turn,
// so it stays in level k but strictly lowers the potential
//     sum over both sides of (seeds in a pit) x (its distance to its owner's store);
// the graph inside a level is therefore acyclic. build_level walks the level in index order
// in parallel (OpenMP, dynamic schedule); an entry whose same-level successor is still
// unknown computes that successor first (memoised recursion along potential-lowering moves).
// Two threads may compute the same entry at once: both write the same byte (relaxed atomic
// stores), so the race is benign.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/rules.hpp"
#include "solver/base/board_index.hpp"
#include "solver/base/sublevel_index.hpp"
#include "solver/db/level.hpp"
#include "solver/db/level_view.hpp"
#include "solver/db/paired_level.hpp"

namespace kalah {

// Called now and then from one thread with the entries of level k finished so far.
using LevelProgressFn = std::function<void(int k, std::uint64_t done, std::uint64_t size)>;

// A level build stopped through its cancel flag: the level is incomplete (and not written).
struct BuildInterrupted : std::runtime_error {
  explicit BuildInterrupted(int k)
      : std::runtime_error("interrupted while building level " + std::to_string(k)), level(k) {}
  int level;
  int pairs_saved = 0;  // a build by pairs: pairs of the level kept on disk (pair files), for its resumption
};

// Throws std::invalid_argument when the rule set's values depend on the stores (early end).
void check_database_rules(const Rules& rules);

// Compute level k into `level` (allocated by the caller with count(k) entries) from the complete
// lower levels lower[0..k), one byte a board or packed (only their values are read). Requires
// k <= indexer.max_seeds(). threads <= 0: OpenMP's default. Once *cancel is set the threads
// stop within a chunk and BuildInterrupted is thrown.
void build_level(const BoardIndexer& indexer, const Rules& rules, int k, std::span<const LevelView> lower,
                 LevelArray& level, int threads, const LevelProgressFn& progress = {},
                 const std::atomic<bool>* cancel = nullptr);
// The same with every level one byte a board: levels[k] receives level k.
void build_level(const BoardIndexer& indexer, const Rules& rules, int k, std::vector<LevelArray>& levels, int threads,
                 const LevelProgressFn& progress = {}, const std::atomic<bool>* cancel = nullptr);

// Compute pair p of level k (solver/base/sublevel_index.hpp: the boards with p or k - p seeds
// on the mover's side, which moves inside the level never leave) into `pair`, allocated by
// the caller with order.pair_size(k, p) entries, in pair order. `order` is an indexer of
// ix.pits() pits covering level k. Otherwise as build_level: the pair needs only the lower
// levels, so a level can be built a pair at a time in the memory of its largest pair.
void build_level_pair(const BoardIndexer& indexer, const SublevelIndexer& order, const Rules& rules, int k, int p,
                      std::span<const LevelView> lower, LevelArray& pair, int threads,
                      const LevelProgressFn& progress = {}, const std::atomic<bool>* cancel = nullptr);
// Checkpoints of a level built a pair at a time (a pair's values depend on the lower levels
// only, so a pair saved by an interrupted build is as good as one computed again).
struct PairCheckpoints {
  // Pair p of the level if a checkpoint holds it (checked), else nullopt: the pair is computed.
  std::function<std::optional<PackedLevel>(int p)> load;
  // Called with each pair computed (not with those loaded), before the next one starts.
  std::function<void(int p, const PackedLevel& pair)> save;
};

// Level k built a pair at a time, each pair packed (PackedLevel::pack, `width`) as soon as it is
// complete: memory peaks at the packed pairs before it plus one pair of a byte a board.
// Progress counts the level's boards. With `checkpoints`, a pair that load() gives is not
// computed, and each pair computed goes to save().
PairedLevel build_paired_level(const BoardIndexer& indexer, const Rules& rules, int k, std::span<const LevelView> lower,
                               int width, int threads, const LevelProgressFn& progress = {},
                               const std::atomic<bool>* cancel = nullptr, const PairCheckpoints* checkpoints = nullptr);

// Re-derive every entry of level k from its successors in levels[0..k] and compare it with
// the stored one. Returns the number of entries that differ (0 for a sound level); the
// first bad index goes to *first_bad when given (all ones when none differs).
std::uint64_t verify_level(const BoardIndexer& indexer, const Rules& rules, int k, std::span<const LevelView> levels,
                           int threads, std::uint64_t* first_bad = nullptr, const LevelProgressFn& progress = {});
std::uint64_t verify_level(const BoardIndexer& indexer, const Rules& rules, int k,
                           const std::vector<LevelArray>& levels, int threads, std::uint64_t* first_bad = nullptr,
                           const LevelProgressFn& progress = {});

// verify_level on `samples` entries of level k drawn at random (uniform over its indices, with
// repetition; the draw depends on `seed`, k and the sample's number only, not on `threads`).
// Cheap enough for a database mapped beside a running search: a quick check, not a proof.
// Returns the number of samples that differ; the first differing sample's index goes to
// *first_bad when given (left alone when none differs).
std::uint64_t verify_level_sample(const BoardIndexer& indexer, const Rules& rules, int k,
                                  std::span<const LevelView> levels, std::uint64_t samples, std::uint64_t seed,
                                  int threads, std::uint64_t* first_bad = nullptr);

}  // namespace kalah

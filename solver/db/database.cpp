#include "solver/db/database.hpp"

#include "solver/db/builder.hpp"
#include "solver/db/format.hpp"
#include "solver/db/manifest.hpp"
#include "solver/db/raw_cache.hpp"
#include "solver/db/store.hpp"

namespace kalah {

std::uint64_t packed_bytes_estimate(const BoardIndexer& ix, int max_seeds) {
  std::uint64_t bytes = 0;
  constexpr int slots = PackedLevel::slots_for(4);
  for (int k = 0; k <= max_seeds; ++k) bytes += (ix.count(k) + slots - 1) / slots * PackedLevel::kLineBytes;
  return bytes;
}

std::vector<std::uint64_t> level_memory_bytes(const std::filesystem::path& dir, int pits, int max_seeds,
                                              int pack_width) {
  const BoardIndexer ix(pits, std::max(0, max_seeds));
  std::vector<std::uint64_t> out;
  for (int k = 0; k <= max_seeds; ++k) {
    if (pack_width < 0) {
      out.push_back(ix.count(k));
      continue;
    }
    const dbfile::Header h = dbfile::read_header(dbfile::level_path(dir, k));
    if ((h.version == dbfile::kPackedVersion && (pack_width == 0 || pack_width == h.packed.width)) ||
        (h.version == dbfile::kPairedVersion && pack_width == 0))
      out.push_back(h.image_bytes);
    else
      out.push_back(packed_bytes_estimate(ix, k) - (k ? packed_bytes_estimate(ix, k - 1) : 0));
  }
  return out;
}

std::vector<std::uint64_t> pair_memory_bytes(const std::filesystem::path& dir, int k) {
  const dbfile::Header h = dbfile::read_header(dbfile::level_path(dir, k));
  std::vector<std::uint64_t> out;
  if (h.version != dbfile::kPairedVersion) return out;
  for (const PackedLevel::Shape& s : h.pairs) out.push_back(s.image_bytes());
  return out;
}

DatabaseSelection select_within(const std::filesystem::path& dir, int pits, int max_seeds, std::uint64_t bytes,
                                int pack_width) {
  DatabaseSelection out;
  const std::vector<std::uint64_t> levels = level_memory_bytes(dir, pits, max_seeds, pack_width);
  while (out.max_seeds < max_seeds && out.bytes + levels[out.max_seeds + 1] <= bytes)
    out.bytes += levels[++out.max_seeds];
  const int k = out.max_seeds + 1;
  if (k > max_seeds || pack_width != 0) return out;
  const std::vector<std::uint64_t> pairs = pair_memory_bytes(dir, k);
  // From the middle out (the largest pairs, and the most probed: docs/db-format.md), each that
  // still fits.
  for (int p = static_cast<int>(pairs.size()) - 1; p >= 0; --p) {
    if (out.bytes + pairs[p] > bytes) continue;
    out.bytes += pairs[p];
    out.top_pairs |= std::uint64_t(1) << p;
  }
  return out;
}

BoundedSelection bounds_within(const std::filesystem::path& dir, int pits, int max_seeds, std::uint64_t bytes,
                               int bound_levels) {
  BoundedSelection out;
  if (max_seeds < 0) return out;
  // The levels that can be made bounds: format-3 files, from the top down.
  int lowest_bound = max_seeds + 1;
  while (lowest_bound > 1 &&
         dbfile::read_header(dbfile::level_path(dir, lowest_bound - 1)).version == dbfile::kPairedVersion)
    --lowest_bound;
  const std::vector<std::uint64_t> levels = level_memory_bytes(dir, pits, max_seeds, 0);
  std::uint64_t exact = 0;  // levels 0..top
  std::vector<std::uint64_t> exact_upto;
  for (const std::uint64_t b : levels) exact_upto.push_back(exact += b);
  // The most exact levels below `bound_levels` levels of bounds (the last of them one pair at
  // least); then bounds upward, whole levels and the next one's pairs from the middle out,
  // until the memory is full.
  for (int top = max_seeds; top >= 0; --top) {
    if (exact_upto[top] > bytes) continue;
    const int n = top + 1 >= lowest_bound ? std::min(bound_levels, max_seeds - top) : 0;
    std::uint64_t need = exact_upto[top];
    for (int k = top + 1; k < top + n; ++k) need += BoundLevel::bytes_for(pits, k);
    if (n > 0 && need + BoundLevel::pair_bytes(pits, top + n, 0) > bytes && top > 0) continue;
    out.max_seeds = top;
    out.bytes = exact_upto[top];
    if (n <= 0) return out;
    for (int k = top + 1; k <= max_seeds; ++k) {
      const std::uint64_t whole = BoundLevel::bytes_for(pits, k);
      if (out.bytes + whole <= bytes) {
        out.bytes += whole;
        ++out.bound_levels;
        out.bound_top_pairs = ~std::uint64_t(0);
        continue;
      }
      std::uint64_t mask = 0;
      for (int p = SublevelIndexer::pairs(k) - 1; p >= 0; --p) {
        if (out.bytes + BoundLevel::pair_bytes(pits, k, p) > bytes) continue;
        out.bytes += BoundLevel::pair_bytes(pits, k, p);
        mask |= std::uint64_t(1) << p;
      }
      if (mask) {
        ++out.bound_levels;
        out.bound_top_pairs = mask;
      }
      break;
    }
    return out;
  }
  return out;
}

void EndgameDatabase::add_bound_level(BoundLevel level) {
  const int k = max_seeds_ + 1 + static_cast<int>(bounds_.size());
  if (level.level() != k || level.pits() != pits_ || partial_ ||
      (!bounds_.empty() && bounds_.back().held_pairs() != BoundLevel::all_pairs(bounds_.back().level())))
    throw std::invalid_argument("a level of bounds must be level " + std::to_string(k) + " of " +
                                std::to_string(pits_) + " pits, above complete levels only");
  bounds_.push_back(std::move(level));
}

EndgameDatabase::EndgameDatabase(int pits, const Rules& rules, std::vector<LevelArray> levels)
    : pits_(pits),
      max_seeds_(static_cast<int>(levels.size()) - 1),
      rules_(rules),
      indexer_(pits, std::max(0, static_cast<int>(levels.size()) - 1)),
      levels_(std::move(levels)) {
  for (int k = 0; k <= max_seeds_; ++k)
    if (levels_[k].size() != indexer_.count(k)) throw std::logic_error("EndgameDatabase: level size mismatch");
  make_views();
}

void EndgameDatabase::make_views() {
  // Packed: each level k is held in packed_[k] or, when that is empty, in paired_[k].
  views_.clear();
  for (const LevelArray& level : levels_) views_.emplace_back(level);
  for (std::size_t k = 0; k < packed_.size(); ++k)
    if (k < paired_.size() && paired_[k].pairs() > 0)
      views_.emplace_back(paired_[k]);
    else
      views_.emplace_back(packed_[k]);
  if (partial_) views_.emplace_back(*partial_);
}

void EndgameDatabase::add_partial_level(PairedLevel level, std::uint64_t mask) {
  if (level.level() != max_seeds_ + 1 || level.pits() != pits_ || !level.complete() || mask == 0)
    throw std::invalid_argument("a partial level must be level " + std::to_string(max_seeds_ + 1) + " of " +
                                std::to_string(pits_) + " pits, complete, with some pair kept");
  level.keep_pairs(mask);
  partial_ = std::make_unique<PairedLevel>(std::move(level));
  make_views();
}

EndgameDatabase EndgameDatabase::build_in_memory(int pits, const Rules& rules, int max_seeds, int threads) {
  check_database_rules(rules);
  if (max_seeds < 0 || max_seeds > 127) throw std::invalid_argument("database seed count must be 0..127");
  const BoardIndexer ix(pits, max_seeds);
  std::vector<LevelArray> levels;
  for (int k = 0; k <= max_seeds; ++k) {
    levels.emplace_back(ix.count(k));
    build_level(ix, rules, k, levels, threads);
  }
  return EndgameDatabase(pits, rules, std::move(levels));
}

int EndgameDatabase::value(const Board& b) const {
  int k = 0;
  for (int i = 0; i < 2 * pits_; ++i) k += b.cells[i];
  if (!holds(k, base::to_bits(b)))
    throw std::out_of_range(
        "board with " + std::to_string(k) + " seeds is beyond the database (" + std::to_string(max_seeds_) + " seeds" +
        (partial_level() >= 0 ? " and some pairs of level " + std::to_string(partial_level()) : "") + ")");
  return value(b, k);
}

void EndgameDatabase::pack(int width, int threads) {
  if (packed()) return;
  std::vector<PackedLevel> out;
  out.reserve(levels_.size());
  for (int k = 0; k <= max_seeds_; ++k) {
    out.push_back(PackedLevel::pack(indexer_, k, std::move(levels_[k]), width, threads));  // in place
    levels_[k] = LevelArray();
  }
  packed_ = std::move(out);
  levels_.clear();
  make_views();
}

void EndgameDatabase::pack_by_pairs(int width, int threads) {
  if (packed()) return;
  std::vector<PairedLevel> out;
  out.reserve(levels_.size());
  for (int k = 0; k <= max_seeds_; ++k) {
    out.push_back(PairedLevel::pack(indexer_, k, levels_[k], width, threads));
    levels_[k] = LevelArray();
  }
  paired_ = std::move(out);
  packed_.clear();
  packed_.resize(paired_.size());
  levels_.clear();
  make_views();
}

std::uint64_t EndgameDatabase::memory_bytes() const {
  std::uint64_t bytes = 0;
  for (const PackedLevel& p : packed_) bytes += p.bytes();
  for (const PairedLevel& p : paired_) bytes += p.bytes();
  if (partial_) bytes += partial_->bytes();
  for (const LevelArray& a : levels_) bytes += a.size();
  for (const BoundLevel& b : bounds_) bytes += b.bytes();
  return bytes;
}

std::uint64_t EndgameDatabase::mapped_bytes() const {
  std::uint64_t bytes = 0;
  for (const PackedLevel& p : packed_) bytes += p.mapped() ? p.bytes() : 0;
  for (const PairedLevel& p : paired_) bytes += p.mapped_bytes();
  if (partial_) bytes += partial_->mapped_bytes();
  for (const LevelArray& a : levels_) bytes += a.mapped() ? a.size() : 0;
  for (const BoundLevel& b : bounds_) bytes += b.mapped() ? b.bytes() : 0;
  return bytes;
}

std::uint64_t EndgameDatabase::entries() const {
  return (max_seeds_ < 0 ? 0 : indexer_.count_upto(max_seeds_)) + (partial_ ? partial_->size() : 0);
}

}  // namespace kalah
namespace kalah {

EndgameDatabase EndgameDatabase::load(const std::filesystem::path& dir, int pits, const Rules& rules, int max_seeds,
                                      std::size_t memory_limit_bytes, bool raw_cache,
                                      const std::function<void(const std::string&)>& note, int pack_width, int threads,
                                      bool private_copy, std::uint64_t top_pairs, int bound_levels,
                                      std::uint64_t bound_top_pairs) {
  check_database_dir(dir);
  std::error_code ec;
  // All levels present: scan_database also refuses a gap (a missing level below others). With a
  // manifest every level it lists is checked against it, however many levels are loaded.
  if (max_seeds < 0 || std::filesystem::exists(std::filesystem::symlink_status(manifest_path(dir), ec))) {
    const DbScan scan = inspect_database(dir);
    const int top = scan.levels.back().level;
    if (max_seeds < 0) max_seeds = top - std::max(0, bound_levels);
    if (max_seeds + std::max(0, bound_levels) > top)
      throw DatabaseError(dir.string() + ": holds levels 0.." + std::to_string(top) + " (" +
                          manifest_path(dir).filename().string() + "), not 0.." +
                          std::to_string(max_seeds + std::max(0, bound_levels)));
  }
  if (bound_levels > 0 && top_pairs)
    throw DatabaseError(dir.string() + ": levels of bounds go above complete levels, not a partial level");
  if (bound_levels > 0 && bound_top_pairs == 0)
    throw DatabaseError(dir.string() + ": the top level of bounds holds no pair");
  if (max_seeds > 127) throw DatabaseError(dir.string() + ": more than 127 levels");
  const BoardIndexer ix(pits, max_seeds);
  const int partial = max_seeds + 1;  // the partial level's seeds, when top_pairs != 0
  std::vector<std::uint64_t> pair_bytes;
  if (top_pairs) {
    if (pack_width != 0 || partial > 127 ||
        dbfile::read_header(dbfile::level_path(dir, partial)).version != dbfile::kPairedVersion)
      throw DatabaseError(dbfile::level_path(dir, partial).string() +
                          ": a partial level needs a level packed by pairs (format 3), loaded packed");
    pair_bytes = pair_memory_bytes(dir, partial);
    if (pair_bytes.size() < 64 && top_pairs >> pair_bytes.size() != 0)
      throw DatabaseError(dbfile::level_path(dir, partial).string() + ": has " + std::to_string(pair_bytes.size()) +
                          " pairs, fewer than asked for");
  }
  std::uint64_t need = 0;
  for (const std::uint64_t bytes : level_memory_bytes(dir, pits, max_seeds, pack_width)) need += bytes;
  for (std::size_t p = 0; p < pair_bytes.size(); ++p)
    if (top_pairs >> p & 1) need += pair_bytes[p];
  for (int i = 0; i < bound_levels; ++i) {
    const int k = max_seeds + 1 + i;
    if (k > 127) throw DatabaseError(dir.string() + ": more than 127 levels");
    for (int p = 0; p < SublevelIndexer::pairs(k); ++p)
      if (i + 1 < bound_levels || (bound_top_pairs >> p & 1)) need += BoundLevel::pair_bytes(pits, k, p);
  }
  if (memory_limit_bytes && need > memory_limit_bytes)
    throw DatabaseError(
        dir.string() + ": levels 0.." + std::to_string(max_seeds) +
        (top_pairs ? " and pairs of level " + std::to_string(partial) : std::string()) +
        (bound_levels > 0 ? " and " + std::to_string(bound_levels) + " levels of bounds" : std::string()) + " need " +
        std::to_string(need) + " bytes of memory, over the limit of " + std::to_string(memory_limit_bytes) +
        " (load fewer levels with --db-seeds; a search's table, --tt-memory, takes its share)");
  std::vector<LevelArray> levels;
  dbfile::RawCacheState cache;
  cache.enabled = raw_cache;
  cache.note = note;
  if (pack_width < 0) {
    assert(top_pairs == 0);
    for (int k = 0; k <= max_seeds; ++k) {
      levels.push_back(dbfile::load_level(dir, pits, rules, k, cache, threads));
      if (private_copy) levels.back().make_private();
    }
    EndgameDatabase db(pits, rules, std::move(levels));
    db.load_bounds(dir, bound_levels, bound_top_pairs, cache, threads, private_copy);
    return db;
  }
  EndgameDatabase db;
  db.pits_ = pits;
  db.max_seeds_ = max_seeds;
  db.rules_ = rules;
  db.indexer_ = ix;
  for (int k = 0; k <= max_seeds; ++k) {
    const std::uint32_t version = dbfile::read_header(dbfile::level_path(dir, k)).version;
    if (version == dbfile::kPairedVersion && pack_width == 0) {
      // A version-3 file holds the level packed by pairs, as it is loaded.
      db.paired_.resize(k + 1);
      db.paired_[k] = dbfile::load_paired_level(dir, pits, rules, k, cache, threads);
      if (private_copy) db.paired_[k].make_private();
      db.packed_.emplace_back();
      continue;
    }
    if (version == dbfile::kPackedVersion) {
      // A version-2 file holds the packed level itself; another width than its own is a repack.
      PackedLevel filed = dbfile::load_packed_level(dir, pits, rules, k, cache, threads);
      if (pack_width != 0 && filed.width() != pack_width)
        filed = PackedLevel::pack(ix, k, filed.unpack(ix, threads), pack_width, threads);
      if (private_copy) filed.make_private();
      db.packed_.push_back(std::move(filed));
      continue;
    }
    LevelArray level = dbfile::load_level(dir, pits, rules, k, cache, threads);
    db.packed_.push_back(PackedLevel::pack(ix, k, std::move(level), pack_width, threads));  // in place unless mapped
  }
  if (top_pairs) {
    PairedLevel top = dbfile::load_paired_level(dir, pits, rules, partial, cache, threads);
    top.keep_pairs(top_pairs);  // the others released before any is copied
    if (private_copy) top.make_private();
    db.partial_ = std::make_unique<PairedLevel>(std::move(top));
  }
  db.make_views();
  db.load_bounds(dir, bound_levels, bound_top_pairs, cache, threads, private_copy);
  return db;
}

void EndgameDatabase::load_bounds(const std::filesystem::path& dir, int bound_levels, std::uint64_t top_pairs,
                                  dbfile::RawCacheState& cache, int threads, bool private_copy) {
  for (int i = 0; i < bound_levels; ++i) {
    BoundLevel level = dbfile::load_bound_level(dir, pits_, rules_, max_seeds_ + 1 + i, cache, threads);
    if (i + 1 == bound_levels) level.keep_pairs(top_pairs);
    if (private_copy) level.make_private();
    add_bound_level(std::move(level));
  }
}

}  // namespace kalah

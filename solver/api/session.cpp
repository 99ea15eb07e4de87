#include "solver/api/session.hpp"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>

#include "engine/text.hpp"
#include "solver/db/store.hpp"
#include "solver/search/endgame_probe.hpp"

namespace kalah::api {

namespace {

void check_range(const char* what, long value, long low, long high) {
  if (value < low || value > high)
    throw ConfigError(std::string(what) + " must be between " + std::to_string(low) + " and " + std::to_string(high) +
                      ", not " + std::to_string(value));
}

}  // namespace

std::uint64_t physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
}

std::uint64_t near_tables_bytes(const SessionConfig& config) {
  const bool with_database = !config.database_dir.empty() || config.database;
  return with_database ? search::Solver::near_tables_bytes(config.pits, config.threads, config.near_table_bytes) : 0;
}

void open_worker_sessions(const SessionConfig& config, int count, bool share_table,
                          const std::function<Session&(const SessionConfig&)>& open) {
  SessionConfig each = config;
  if (!share_table)
    each.table_bytes = std::max<std::uint64_t>(config.table_bytes / static_cast<std::uint64_t>(count), 1 << 20);
  SessionConfig first = each;
  const std::uint64_t budget = memory_budget(config.memory_bytes);
  // The other sessions' tables (unless shared) and near tables.
  const std::uint64_t others =
      ((share_table ? 0 : each.table_bytes) + near_tables_bytes(each)) * static_cast<std::uint64_t>(count - 1);
  if (budget > others) first.memory_bytes = budget - others;
  Session& s0 = open(first);
  each.database_dir.clear();
  each.database_seeds = -1;
  each.database = s0.shared_database();
  if (share_table && count > 1) each.table_share = s0.table_share();
  each.note = nullptr;
  for (int w = 1; w < count; ++w) open(each);
}

// " and levels S+1..L as bounds (P of the Q pairs of level L)" for the levels of bounds above
// exact levels 0..seeds, or nothing without.
std::string bound_text(int seeds, int bound_levels, std::uint64_t bound_top_pairs) {
  if (bound_levels <= 0) return {};
  const int last = seeds + bound_levels;
  const std::string part = bound_top_pairs == ~std::uint64_t(0)
                               ? std::string()
                               : " (" + std::to_string(std::popcount(bound_top_pairs)) + " of the " +
                                     std::to_string(last / 2 + 1) + " pairs of level " + std::to_string(last) + ")";
  const std::string levels = bound_levels == 1 ? "level " + std::to_string(last)
                                               : "levels " + std::to_string(seeds + 1) + ".." + std::to_string(last);
  return " and " + levels + " as bounds" + part;
}

bool holds_packed(SessionConfig::DatabaseLayout layout, const DbScan& scan) {
  using Layout = SessionConfig::DatabaseLayout;
  return layout == Layout::packed || (layout == Layout::as_filed && scan.levels.front().header.is_packed());
}

void Session::check_fits(const Position& p) const {
  if (p.pits != pits())
    throw ConfigError("the position has " + std::to_string(p.pits) + " pits a side, the session is for " +
                      std::to_string(pits()));
  const int seeds = p.pit_seeds(Side::South) + p.pit_seeds(Side::North);
  if (seeds > config_.max_seeds)
    throw ConfigError("the position has " + std::to_string(seeds) + " seeds in the pits, the session is for " +
                      "at most " + std::to_string(config_.max_seeds));
}

namespace {
// " and 7 of the 12 pairs of level 22" for the pairs (a bit a pair) of a partial level; "" for none.
std::string partial_text(std::uint64_t pairs, int level) {
  if (!pairs) return {};
  return " and " + std::to_string(std::popcount(pairs)) + " of the " + std::to_string(level / 2 + 1) +
         " pairs of level " + std::to_string(level);
}
}  // namespace

Session::Session(SessionConfig config) : config_(std::move(config)) {
  const auto t0 = std::chrono::steady_clock::now();
  check_range("the number of pits", config_.pits, 1, kMaxPits);
  check_range("the number of seeds in the pits", config_.max_seeds, 0, kMaxSeeds);
  check_range("the number of threads", config_.threads, 0, 1024);
  check_range("the seeds above the database that bypass the table", config_.table_seeds_above_db, -1, 255);
  check_range("the database's top level", config_.database_seeds, -1, 127);
  if (config_.table_bytes < 1024) throw ConfigError("the transposition table must have at least 1 KiB");
  if (!config_.database_dir.empty() && config_.database)
    throw ConfigError("a session takes a database directory or a database in memory, not both");
  if (config_.database_seeds >= 0 && config_.database_dir.empty())
    throw ConfigError("the database's top level is set but no database directory is given");

  // The table's pages are touched as it fills (all of them on a long solve), so the table and
  // the database must fit in the budget together: refuse before loading or searching.
  const std::uint64_t budget = memory_budget(config_.memory_bytes);
  std::uint64_t table_bytes = 0;
  try {
    // A table shared with another session was counted in that one's budget.
    if (!config_.table_share)
      table_bytes = search::Solver::table_bytes_for(config_.pits, config_.max_seeds, config_.table_bytes);
  } catch (const std::length_error& e) {
    throw ConfigError(e.what());  // keys wider than 63 bits: the board is too large to search
  }
  if (budget > 0 && table_bytes >= budget)
    throw ConfigError("a transposition table of " + byte_text(table_bytes) + " does not fit in the memory budget of " +
                      byte_text(budget) + ": ask for a smaller table (--tt-memory)");
  // With a database, each thread's near table too (solver/search/near_table.hpp): what the
  // database may take is the budget less both.
  const std::uint64_t near_bytes = near_tables_bytes(config_);
  if (budget > 0 && table_bytes + near_bytes >= budget)
    throw ConfigError("a transposition table of " + byte_text(table_bytes) + " and near tables of " +
                      byte_text(near_bytes) + " do not fit in the memory budget of " + byte_text(budget) +
                      ": ask for smaller tables (--tt-memory, --near-table)");
  const std::uint64_t tables_bytes = table_bytes + near_bytes;  // the database gets what they leave

  if (!config_.database_dir.empty()) {
    const auto t1 = std::chrono::steady_clock::now();
    const DbScan scan = inspect_database(config_.database_dir);
    const bool packed = holds_packed(config_.database_layout, scan);
    int seeds = config_.database_seeds;
    std::uint64_t top_pairs = 0;
    int bound_levels = config_.database_bound_levels;
    std::uint64_t bound_top_pairs = ~std::uint64_t(0);
    // Automatic: bounds where a memory limit leaves levels out (docs/search.md, "Levels of
    // bounds": they paid on every benchmark game), not where the levels asked for are all held.
    const bool automatic = bound_levels == SessionConfig::kAutoBoundLevels;
    const bool limited = config_.database_bytes > 0 || budget > 0;
    if (automatic) bound_levels = packed && limited ? SessionConfig::kDefaultBoundLevels : 0;
    bool planned = false;  // bounds_within chose the levels
    if (bound_levels > 0 && !packed)
      throw ConfigError(
          "levels of bounds (--db-bounds) are made from a database packed by pairs (format 3), held packed");
    if (bound_levels > 0 && config_.database_bytes > 0) {
      // --db-seeds S: exact levels 0..S and N levels of bounds above them when asked for, all
      // within 0..S when automatic.
      const int filed =
          seeds >= 0 ? std::min(seeds + (automatic ? 0 : bound_levels), scan.max_seeds()) : scan.max_seeds();
      const std::uint64_t room =
          budget > 0 ? std::min(config_.database_bytes, budget - tables_bytes) : config_.database_bytes;
      const BoundedSelection chosen = bounds_within(config_.database_dir, config_.pits, filed, room, bound_levels);
      if (chosen.max_seeds < 0)
        throw ConfigError("not even level 0 of the database " + config_.database_dir + " fits in " + byte_text(room) +
                          " (--db-memory)");
      seeds = chosen.max_seeds;
      bound_levels = chosen.bound_levels;
      bound_top_pairs = chosen.bound_top_pairs;
      planned = true;
      if (config_.note && (!automatic || seeds < filed))
        config_.note("loading database levels 0.." + std::to_string(seeds) +
                     bound_text(seeds, bound_levels, bound_top_pairs) + ": " + byte_text(chosen.bytes) + " of the " +
                     byte_text(room) + " allowed");
    } else if (bound_levels > 0 && !automatic) {
      if (seeds < 0) seeds = scan.max_seeds() - bound_levels;
      if (seeds < 0 || seeds + bound_levels > scan.max_seeds())
        throw ConfigError("the database " + config_.database_dir + " holds levels 0.." +
                          std::to_string(scan.max_seeds()) + ": too few for levels 0.." + std::to_string(seeds) +
                          " and " + std::to_string(bound_levels) + " levels of bounds above them (--db-bounds)");
    } else if (config_.database_bytes > 0) {
      const int filed = seeds >= 0 ? std::min(seeds, scan.max_seeds()) : scan.max_seeds();
      const std::uint64_t room =
          budget > 0 ? std::min(config_.database_bytes, budget - tables_bytes) : config_.database_bytes;
      const DatabaseSelection chosen = select_within(config_.database_dir, config_.pits, filed, room, packed ? 0 : -1);
      if (chosen.max_seeds < 0)
        throw ConfigError("not even level 0 of the database " + config_.database_dir + " fits in " + byte_text(room) +
                          " (--db-memory)");
      seeds = chosen.max_seeds;
      top_pairs = chosen.top_pairs;
      if (config_.note && (seeds < filed || top_pairs))
        config_.note("loading database levels 0.." + std::to_string(seeds) + partial_text(top_pairs, seeds + 1) + ": " +
                     byte_text(chosen.bytes) + " of the " + byte_text(room) + " allowed");
    } else if (seeds < 0 && budget > 0) {
      // Every level when they fit beside the tables; else the deepest prefix that does, said so.
      // (With the pairs of the next level that fit too, for a format-3 database held packed.)
      const std::uint64_t room = budget - tables_bytes;
      if (bound_levels > 0) {  // automatic bounds (every level exact when all fit)
        const BoundedSelection bounded =
            bounds_within(config_.database_dir, config_.pits, scan.max_seeds(), room, bound_levels);
        if (bounded.max_seeds >= 0 && bounded.max_seeds < scan.max_seeds()) {
          seeds = bounded.max_seeds;
          bound_levels = bounded.bound_levels;
          bound_top_pairs = bounded.bound_top_pairs;
          planned = true;
          if (config_.note)
            config_.note("loading database levels 0.." + std::to_string(seeds) + " of 0.." +
                         std::to_string(scan.max_seeds()) + bound_text(seeds, bound_levels, bound_top_pairs) + ": " +
                         byte_text(bounded.bytes) + " of the " + byte_text(room) +
                         " the memory budget leaves beside the tables (" + byte_text(budget) + " less " +
                         byte_text(tables_bytes) + "; --memory, --tt-memory, --db-bounds)");
        }
      } else {
        const DatabaseSelection chosen =
            select_within(config_.database_dir, config_.pits, scan.max_seeds(), room, packed ? 0 : -1);
        const int fits = chosen.max_seeds;
        if (fits >= 0 && fits < scan.max_seeds()) {
          seeds = fits;
          top_pairs = chosen.top_pairs;
          if (config_.note)
            config_.note("loading database levels 0.." + std::to_string(fits) + " of 0.." +
                         std::to_string(scan.max_seeds()) + partial_text(top_pairs, fits + 1) + ": they take " +
                         byte_text(chosen.bytes) + ", and level " + std::to_string(fits + 1) + " would pass the " +
                         byte_text(room) + " the memory budget leaves beside the tables (" + byte_text(budget) +
                         " less " + byte_text(tables_bytes) + "; --memory, --tt-memory" +
                         (packed ? ")" : ", or --db-packed for about half the memory)"));
        }
      }
    }
    if (automatic && !planned) bound_levels = 0;  // no memory limit left levels out
    database_ = std::make_shared<const EndgameDatabase>(EndgameDatabase::load(
        config_.database_dir, config_.pits, config_.rules, seeds, budget > 0 ? budget - tables_bytes : 0,
        config_.database_cache, config_.note, packed ? 0 : -1, config_.threads, config_.database_private, top_pairs,
        bound_levels, bound_top_pairs));
    database_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
    if (scan.incomplete()) database_target_seeds_ = scan.target_max_seeds;
  } else if (config_.database) {
    database_ = config_.database;
    if (database_->pits() != config_.pits || !database_->rules().same_values_as(config_.rules))
      throw ConfigError("the database in memory is for " + std::to_string(database_->pits()) + " pits under '" +
                        database_->rules().describe() + "', not " + std::to_string(config_.pits) + " pits under '" +
                        config_.rules.describe() + "'");
  }

  if (config_.book &&
      (config_.book->pits() != config_.pits || !config_.book->value_rules().same_values_as(config_.rules)))
    throw ConfigError("the book " + config_.book->name() + " is for " + std::to_string(config_.book->pits()) +
                      " pits under '" + config_.book->value_rules().describe() + "', not " +
                      std::to_string(config_.pits) + " pits under '" + config_.rules.value_rules().describe() + "'");

  search::SolverOptions options;
  options.table_bytes = static_cast<std::size_t>(config_.table_bytes);
  options.threads = config_.threads;
  options.split_points = config_.split_points;
  options.table_seeds_above_db = config_.table_seeds_above_db;
  options.near_table_bytes = static_cast<std::size_t>(config_.near_table_bytes);
  options.share = config_.table_share;
  options.progress = config_.progress;
  options.on_pass = config_.on_pass;
  options.cancel = config_.cancel;
  if (database_) options.probe = search::database_probe(*database_);
  try {
    solver_ = std::make_unique<search::Solver>(config_.pits, config_.rules, config_.max_seeds, std::move(options));
  } catch (const std::length_error& e) {
    throw ConfigError(e.what());  // a table too small for exact keys of this many seeds
  } catch (const std::invalid_argument& e) {
    throw ConfigError(e.what());
  }
  open_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  open_seconds_unreported_ = open_seconds_;
}

bool Session::find_in_book(const Board& b, KnownBoard& out) {
  if (!config_.book || !config_.book->find(b, out)) return false;
  ++book_hits_;
  return true;
}

Oracle Session::oracle() {
  if (!config_.book) return solver_->oracle();
  return [this](const Board& b) {
    KnownBoard known;
    return find_in_book(b, known) ? known.value : solver_->value(b);
  };
}

BestSowings Session::best_sowings_function() {
  if (!config_.book) return solver_->best_sowings_function();
  return [this](const Board& b, int value, bool first_only) {
    KnownBoard known;
    if (!find_in_book(b, known)) return solver_->best_sowings(b, value, first_only);
    std::vector<int> best;
    for (int pit = 0; pit < config_.pits; ++pit)
      if (known.is_legal(pit) && known.sowing[pit] == known.value) best.push_back(pit);
    return best;
  };
}

}  // namespace kalah::api

#include "solver/api/probe_rate.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

namespace kalah::api {

namespace {

struct Probe {
  base::u128 bits;
  std::uint64_t index;
  int level;
};

}  // namespace

ProbeRateReport measure_probe_rate(const EndgameDatabase& db, const ProbeRateOptions& o) {
  if (db.empty()) throw std::invalid_argument("probe rate: the database is empty");
  if (o.boards == 0 || o.probes == 0 || o.batch < 1 || o.batch > 64)
    throw std::invalid_argument("probe rate: boards and probes must be positive, the batch 1..64");
  const BoardIndexer& ix = db.indexer();
  const int top = db.max_seeds();
  const std::uint64_t total = ix.count_upto(top);
  std::vector<std::uint64_t> upto(top + 1);  // boards in levels 0..k
  for (int k = 0; k <= top; ++k) upto[k] = ix.count(k) + (k ? upto[k - 1] : 0);

  std::mt19937_64 gen(o.seed);
  std::uniform_int_distribution<std::uint64_t> pick(0, total - 1);
  std::vector<Probe> probes(o.boards);
  ProbeRateReport r;
  for (Probe& p : probes) {
    const std::uint64_t g = pick(gen);
    p.level = static_cast<int>(std::upper_bound(upto.begin(), upto.end(), g) - upto.begin());
    p.index = g - (p.level ? upto[p.level - 1] : 0);
    p.bits = base::to_bits(ix.board(p.level, p.index));
    r.value_sum += db.value_at(p.level, p.index, p.bits);
  }

  // Each timed read starts from the board, as the search's do: where the layout keeps it
  // (EndgameDatabase::slot_of: its BoardIndexer index, or a paired level's own rank).
  auto slot_of = [&](const Probe& p) {
    return db.slot_of(p.level, p.bits, [&] { return ix.index(base::from_bits(p.bits)); });
  };
  using Clock = std::chrono::steady_clock;
  std::int64_t sink = 0;
  auto t0 = Clock::now();
  for (std::uint64_t i = 0, j = 0; i < o.probes; ++i, j = j + 1 == o.boards ? 0 : j + 1) {
    const Probe& p = probes[j];
    sink += db.value_in_slot(p.level, slot_of(p), p.bits);
  }
  r.ns_single = std::chrono::duration<double, std::nano>(Clock::now() - t0).count() / double(o.probes);

  const std::uint64_t batch = static_cast<std::uint64_t>(o.batch);
  std::vector<std::uint64_t> slots(batch);
  t0 = Clock::now();
  std::uint64_t done = 0;
  for (std::uint64_t j = 0; done < o.probes;) {
    const std::uint64_t n = std::min({batch, o.boards - j, o.probes - done});
    for (std::uint64_t b = 0; b < n; ++b) {
      slots[b] = slot_of(probes[j + b]);
      __builtin_prefetch(db.slot_address(probes[j + b].level, slots[b]));
    }
    for (std::uint64_t b = 0; b < n; ++b) sink += db.value_in_slot(probes[j + b].level, slots[b], probes[j + b].bits);
    done += n;
    j = j + n == o.boards ? 0 : j + n;
  }
  r.ns_batched = std::chrono::duration<double, std::nano>(Clock::now() - t0).count() / double(o.probes);
  // Keeps the reads from being optimised away (the sum is of no interest).
  if (sink == std::numeric_limits<std::int64_t>::min()) r.value_sum = 0;

  r.boards = o.boards;
  r.probes = o.probes;
  r.batch = o.batch;
  r.memory_bytes = db.memory_bytes();
  r.bits_per_board = db.bits_per_board();
  r.packed = db.packed();
  return r;
}

ProbeRateReport measure_database_probe_rate(const std::filesystem::path& dir, SessionConfig::DatabaseLayout layout,
                                            int max_seeds, const ProbeRateOptions& options, bool raw_cache,
                                            const std::function<void(const std::string&)>& note) {
  const DbScan scan = inspect_database(dir);
  const dbfile::Header& h0 = scan.levels.front().header;
  if (max_seeds > scan.max_seeds())
    throw std::invalid_argument("--db-seeds must be 0.." + std::to_string(scan.max_seeds()) + " for this database");
  if (max_seeds < 0) max_seeds = scan.max_seeds();
  const auto t0 = std::chrono::steady_clock::now();
  const EndgameDatabase db =
      EndgameDatabase::load(dir, h0.pits, h0.rules, max_seeds, 0, raw_cache, note, holds_packed(layout, scan) ? 0 : -1);
  const double load_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ProbeRateReport r = measure_probe_rate(db, options);
  r.directory = dir.string();
  r.max_seeds = max_seeds;
  r.load_seconds = load_seconds;
  return r;
}

}  // namespace kalah::api

// Levels of bounds (solver/db/bound_level.hpp): every board's bit says whether its exact value
// is above its sublevel's median, for every rule set; loaded from a format-3 directory through the bound caches
// (written, mapped, a damaged one rebuilt); bounds_within fills a memory budget with exact
// levels, then levels of bounds upward.
#include "testing/catch.hpp"

#include <bit>
#include <fstream>

#include "solver/db/bound_level.hpp"
#include "solver/db/database.hpp"
#include "solver/db/paired_level.hpp"
#include "solver/db/raw_cache.hpp"
#include "testing/database_files.hpp"
#include "testing/rule_sets.hpp"

using namespace kalah;
using kalah::test::ScratchDir;

namespace {

// Every board of `full`'s level k whose pair is in `pairs`: the bit of `bounds` is whether its
// value is above its sublevel's threshold, which is the sublevel's lower median, and the value
// lies within BoundLevel::lower..upper. Returns the boards seen.
std::uint64_t check_bounds(const BoundLevel& bounds, const EndgameDatabase& full, int k,
                           std::uint64_t pairs = ~std::uint64_t(0)) {
  const BoardIndexer& ix = full.indexer();
  const int pits = full.pits();
  std::uint64_t seen = 0;
  std::vector<std::uint64_t> in_sublevel(k + 1), at_most(k + 1), below(k + 1);  // boards, v <= t, v < t
  Board b = ix.board(k, 0);
  for (std::uint64_t i = 0; i < ix.count(k); ++i) {
    const base::u128 bits = base::to_bits(b);
    if (pairs >> SublevelIndexer::pair_of(pits, k, bits) & 1) {
      ++seen;
      int side = 0;
      for (int c = 0; c < pits; ++c) side += b.cells[c];
      const int v = full.value(b);
      const int t = bounds.threshold(side);
      const BoundLevel::Place place = bounds.place(bits);
      REQUIRE(place.threshold == t);
      const bool above = bounds.above_at(place.slot);
      REQUIRE(above == bounds.above(bits));
      REQUIRE(above == (v > t));
      REQUIRE(BoundLevel::lower(k, t, above) <= v);
      REQUIRE(v <= BoundLevel::upper(k, t, above));
      ++in_sublevel[side];
      at_most[side] += v <= t;
      below[side] += v < t;
    }
    if (i + 1 < ix.count(k)) ix.next(b);
  }
  for (int side = 0; side <= k; ++side) {  // t is the value at index (n - 1) / 2 of the sorted values
    if (in_sublevel[side] == 0) continue;
    INFO("sublevel " << side);
    CHECK(at_most[side] >= (in_sublevel[side] + 1) / 2);
    CHECK(below[side] < (in_sublevel[side] + 1) / 2);
  }
  return seen;
}

}  // namespace

TEST_CASE("bound level: a bit a board, whether the value is above its sublevel's median, every rule set",
          "[db][bounds]") {
  for (const Rules& rules : test::all_value_rules()) {
    const EndgameDatabase full = EndgameDatabase::build_in_memory(4, rules, 10, 2);
    for (int k : {0, 1, 2, 7, 10}) {
      INFO("rules " << rules.describe() << " level " << k);
      const BoundLevel bounds = BoundLevel::from_values(PairedLevel::pack(full.indexer(), k, full.level(k), 0, 2), 2);
      CHECK(bounds.level() == k);
      CHECK(bounds.bits().size() == BoundLevel::bytes_for(4, k));
      CHECK(bounds.bytes() == BoundLevel::bytes_for(4, k));
      CHECK(check_bounds(bounds, full, k) == full.indexer().count(k));
    }
  }
  // Each pair from a 64-byte line; a level of another size is refused.
  CHECK(BoundLevel::pair_offset(6, 22, 1) % 64 == 0);
  CHECK(BoundLevel::bytes_for(6, 22) >= SublevelIndexer::shared(6)->pair_size(22, 0) / 8);
  const std::vector<std::int8_t> sevens(8, 1);
  CHECK_THROWS_AS(BoundLevel(4, 7, LevelArray(3), sevens), std::invalid_argument);
  CHECK_NOTHROW(BoundLevel(4, 7, LevelArray(BoundLevel::bytes_for(4, 7)), sevens));
  // Thresholds: one a sublevel, each a value of the level (its parity, within -k..k).
  CHECK_THROWS_AS(BoundLevel(4, 7, LevelArray(BoundLevel::bytes_for(4, 7)), std::vector<std::int8_t>(7, 1)),
                  std::invalid_argument);
  for (const int bad : {0, 9, -9}) {
    std::vector<std::int8_t> t = sevens;
    t[3] = static_cast<std::int8_t>(bad);
    CHECK_THROWS_AS(BoundLevel(4, 7, LevelArray(BoundLevel::bytes_for(4, 7)), t), std::invalid_argument);
  }
  // The lower median of counts by value (count[v + k]).
  CHECK(BoundLevel::median(3, {0, 0, 0, 0, 0, 0, 5}) == 3);
  CHECK(BoundLevel::median(3, {1, 0, 0, 0, 1, 0, 0}) == -3);  // two boards: the lower one
  CHECK(BoundLevel::median(3, {1, 0, 1, 0, 1, 0, 0}) == -1);
  CHECK(BoundLevel::median(2, {0, 0, 2, 0, 3}) == 2);
}

TEST_CASE("bound level: the database takes levels of bounds above complete levels only", "[db][bounds]") {
  const Rules rules;
  const EndgameDatabase full = EndgameDatabase::build_in_memory(4, rules, 9, 2);
  auto bounds_of = [&](int k) {
    return BoundLevel::from_values(PairedLevel::pack(full.indexer(), k, full.level(k), 0, 2), 2);
  };
  EndgameDatabase db = EndgameDatabase::build_in_memory(4, rules, 6, 2);
  CHECK(db.bound_first() == -1);
  CHECK_THROWS_AS(db.add_bound_level(bounds_of(8)), std::invalid_argument);  // not the next level
  db.add_bound_level(bounds_of(7));
  BoundLevel part = bounds_of(8);
  part.keep_pairs(0b00110);
  CHECK(part.bytes() == BoundLevel::pair_offset(4, 8, 3) - BoundLevel::pair_offset(4, 8, 1));
  db.add_bound_level(std::move(part));
  CHECK(db.bound_first() == 7);
  CHECK(db.bound_last() == 8);
  CHECK(db.bound_top_pairs() == 0b00110);
  CHECK_THROWS_AS(db.add_bound_level(bounds_of(9)), std::invalid_argument);  // above a partial one
  CHECK(check_bounds(db.bound_level(8), full, 8, 0b00110) > 0);
  EndgameDatabase with_partial = EndgameDatabase::build_in_memory(4, rules, 6, 2);
  with_partial.add_partial_level(PairedLevel::pack(full.indexer(), 7, full.level(7), 0, 2), 1);
  CHECK_THROWS_AS(with_partial.add_bound_level(bounds_of(8)), std::invalid_argument);
}

TEST_CASE("bound level: loaded from a format-3 directory through its cache, and a memory budget filled",
          "[db][bounds][files]") {
  const Rules rules;
  ScratchDir dir("bounds");
  test::build_db(dir.path, 4, 12, rules, dbfile::kPairedVersion);
  const EndgameDatabase full = EndgameDatabase::load(dir.path, 4, rules, -1, 0, false, {}, 0, 2);
  std::uint64_t exact = 0;
  for (const std::uint64_t b : level_memory_bytes(dir.path, 4, 9, 0)) exact += b;

  std::vector<std::string> notes;
  auto note = [&](const std::string& s) { notes.push_back(s); };
  // No caches; caches written; caches mapped; a private copy of the mapped caches.
  int round = 0;
  for (const auto& [cache, private_copy] :
       {std::pair{false, false}, std::pair{true, false}, std::pair{true, false}, std::pair{true, true}}) {
    ++round;
    CAPTURE(round);
    const EndgameDatabase db =
        EndgameDatabase::load(dir.path, 4, rules, 9, 0, cache, note, 0, 2, private_copy, 0, 3, 0b0101010);
    CHECK(db.max_seeds() == 9);
    CHECK(db.bound_first() == 10);
    CHECK(db.bound_last() == 12);
    CHECK(db.bound_top_pairs() == 0b0101010);
    CHECK(db.memory_bytes() ==
          exact + BoundLevel::bytes_for(4, 10) + BoundLevel::bytes_for(4, 11) + db.bound_level(12).bytes());
    CHECK(check_bounds(db.bound_level(10), full, 10) == full.indexer().count(10));
    check_bounds(db.bound_level(11), full, 11);
    check_bounds(db.bound_level(12), full, 12, 0b0101010);
    CHECK(std::filesystem::exists(dbfile::bound_path(dir.path, 11)) == cache);
    CHECK(db.bound_level(11).mapped() == (round == 3));  // written in round 2, mapped in 3, copied in 4
  }
  CHECK(notes.empty());
  // A damaged cache is said, made again from the level file and rewritten.
  {
    std::fstream f(dbfile::bound_path(dir.path, 11), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(dbfile::kRawHeaderSize + 5);
    f.put('\x5a');
  }
  const EndgameDatabase repaired = EndgameDatabase::load(dir.path, 4, rules, 9, 0, true, note, 0, 2, false, 0, 2);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].find("level-011.bnd: bits checksum mismatch") != std::string::npos);
  check_bounds(repaired.bound_level(11), full, 11);
  const EndgameDatabase again = EndgameDatabase::load(dir.path, 4, rules, 9, 0, true, note, 0, 2, false, 0, 2);
  CHECK(notes.size() == 1);
  CHECK(again.bound_level(11).mapped());
  // A threshold changed in the header (its CRC no longer matches), or a cache of version 4 (bits
  // split at 0): not mapped, made again silently and replaced.
  for (const auto& [offset, byte] : {std::pair{48 + 3, '\x7f'}, std::pair{8, '\x04'}}) {
    {
      std::fstream f(dbfile::bound_path(dir.path, 11), std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(offset);
      f.put(byte);
    }
    const EndgameDatabase remade = EndgameDatabase::load(dir.path, 4, rules, 9, 0, true, note, 0, 2, false, 0, 2);
    CHECK_FALSE(remade.bound_level(11).mapped());
    check_bounds(remade.bound_level(11), full, 11);
    CHECK(EndgameDatabase::load(dir.path, 4, rules, 9, 0, true, note, 0, 2, false, 0, 2).bound_level(11).mapped());
  }
  CHECK(notes.size() == 1);

  // The budget: the most exact levels below the levels of bounds asked for, then bounds upward.
  const std::uint64_t b10 = BoundLevel::bytes_for(4, 10), b11 = BoundLevel::bytes_for(4, 11);
  const std::uint64_t p12 = BoundLevel::pair_offset(4, 12, 7) - BoundLevel::pair_offset(4, 12, 6);
  BoundedSelection chosen = bounds_within(dir.path, 4, 12, exact + b10 + b11 + p12, 2);
  CHECK(chosen.max_seeds == 9);
  CHECK(chosen.bound_levels == 3);
  CHECK(chosen.bound_top_pairs == 0b1000000);  // the middle pair
  CHECK(chosen.bytes == exact + b10 + b11 + p12);
  // Room for every level exact: no bounds.
  chosen = bounds_within(dir.path, 4, 12, UINT64_MAX, 2);
  CHECK(chosen.max_seeds == 12);
  CHECK(chosen.bound_levels == 0);
  CHECK(bounds_within(dir.path, 4, 12, 1, 2).max_seeds == -1);
  // The memory limit counts the bounds; a level of another format has none.
  CHECK_THROWS_AS(EndgameDatabase::load(dir.path, 4, rules, 9, exact + b10 - 1, false, {}, 0, 2, false, 0, 1),
                  DatabaseError);
  CHECK_NOTHROW(EndgameDatabase::load(dir.path, 4, rules, 9, exact + b10, false, {}, 0, 2, false, 0, 1));
  CHECK_THROWS_AS(EndgameDatabase::load(dir.path, 4, rules, 10, 0, false, {}, 0, 2, false, 0, 3), DatabaseError);
  ScratchDir bytes_dir("bounds-bytes");
  test::build_db(bytes_dir.path, 4, 9, rules, dbfile::kVersion);
  CHECK_THROWS_AS(EndgameDatabase::load(bytes_dir.path, 4, rules, 8, 0, false, {}, -1, 2, false, 0, 1), DatabaseError);
}

// Partial levels (EndgameDatabase::partial_level): level S + 1 held for some sublevel pairs
// only holds exactly those pairs' boards, with the whole level's values; loaded from a
// format-3 directory with the pairs asked for; select_within fills a memory budget with
// whole levels, then pairs from the middle out.
#include "testing/catch.hpp"

#include <bit>

#include "solver/db/database.hpp"
#include "solver/db/paired_level.hpp"
#include "testing/database_files.hpp"
#include "testing/rule_sets.hpp"
#include "testing/scratch_dir.hpp"

using namespace kalah;
using kalah::test::ScratchDir;

namespace {

// Every board of `full`'s level k: `part` holds it when its pair's bit is in `pairs`, with
// full's value; otherwise value() refuses it. Returns the boards held.
std::uint64_t check_level(const EndgameDatabase& part, const EndgameDatabase& full, int k, std::uint64_t pairs) {
  const BoardIndexer& ix = full.indexer();
  std::uint64_t held = 0;
  Board b = ix.board(k, 0);
  for (std::uint64_t i = 0; i < ix.count(k); ++i) {
    const base::u128 bits = base::to_bits(b);
    const int pair = SublevelIndexer::pair_of(full.pits(), k, bits);
    const bool in = (pairs >> pair & 1) != 0;
    REQUIRE(part.holds(k, bits) == in);
    if (in) {
      ++held;
      REQUIRE(part.value(b) == full.value(b));
      REQUIRE(part.value(b, k) == full.value(b));
    } else {
      REQUIRE_THROWS_AS(part.value(b), std::out_of_range);
    }
    if (i + 1 < ix.count(k)) ix.next(b);
  }
  return held;
}

}  // namespace

TEST_CASE("partial level: holds its pairs' boards only, with the whole level's values", "[db][partial]") {
  for (const Rules& rules : test::all_value_rules()) {
    for (const auto& [m, s] : {std::pair{3, 8}, std::pair{4, 7}, std::pair{5, 6}}) {
      const int k = s + 1;
      const EndgameDatabase full = EndgameDatabase::build_in_memory(m, rules, k, 2);
      const int pairs = k / 2 + 1;
      for (const std::uint64_t mask : {std::uint64_t(1) << (pairs - 1), std::uint64_t(1), std::uint64_t(0b0101),
                                       (std::uint64_t(1) << pairs) - 1}) {
        CAPTURE(rules.describe(), m, s, mask);
        EndgameDatabase part = EndgameDatabase::build_in_memory(m, rules, s, 2);
        const std::uint64_t bytes_before = part.memory_bytes();
        part.add_partial_level(PairedLevel::pack(full.indexer(), k, full.level(k), 0, 2), mask);
        CHECK(part.max_seeds() == s);
        CHECK(part.partial_level() == k);
        CHECK(part.partial_pairs() == mask);
        CHECK(part.memory_bytes() > bytes_before);
        const std::uint64_t held = check_level(part, full, k, mask);
        CHECK(part.entries() == full.indexer().count_upto(s) + held);
        // The complete levels are untouched, and nothing beyond the partial level is held.
        CHECK(check_level(part, full, s, ~std::uint64_t(0)) == full.indexer().count(s));
        CHECK_FALSE(part.holds(k + 1, base::to_bits(full.indexer().board(k, 0))));
      }
    }
  }
}

TEST_CASE("partial level: refused for another level, an incomplete level or no pair", "[db][partial]") {
  const Rules rules;
  const EndgameDatabase full = EndgameDatabase::build_in_memory(4, rules, 8, 2);
  EndgameDatabase part = EndgameDatabase::build_in_memory(4, rules, 6, 2);
  CHECK_THROWS_AS(part.add_partial_level(PairedLevel::pack(full.indexer(), 8, full.level(8)), 1),
                  std::invalid_argument);
  CHECK_THROWS_AS(part.add_partial_level(PairedLevel::pack(full.indexer(), 7, full.level(7)), 0),
                  std::invalid_argument);
  CHECK_THROWS_AS(part.add_partial_level(PairedLevel(4, 7), 1), std::invalid_argument);
  CHECK(part.partial_level() == -1);
  PairedLevel incomplete(4, 7);
  CHECK_THROWS_AS(incomplete.keep_pairs(1), std::invalid_argument);
}

TEST_CASE("partial level: loaded from a format-3 directory, and a memory budget filled from the middle out",
          "[db][partial][files]") {
  const Rules rules;
  ScratchDir dir("partial");
  test::build_db(dir.path, 4, 11, rules, dbfile::kPairedVersion);
  const EndgameDatabase full = EndgameDatabase::load(dir.path, 4, rules, -1, 0, false, {}, 0, 2);
  const std::vector<std::uint64_t> pair_bytes = pair_memory_bytes(dir.path, 11);
  REQUIRE(pair_bytes.size() == 6);
  std::uint64_t levels = 0;
  for (const std::uint64_t b : level_memory_bytes(dir.path, 4, 10, 0)) levels += b;

  for (const bool cache : {false, true, true}) {  // no raw caches; caches written; caches mapped
    for (const bool private_copy : {false, true}) {
      if (private_copy && !cache) continue;
      CAPTURE(cache, private_copy);
      const std::uint64_t mask = 0b101010;
      const EndgameDatabase part =
          EndgameDatabase::load(dir.path, 4, rules, 10, 0, cache, {}, 0, 2, private_copy, mask);
      CHECK(part.partial_level() == 11);
      CHECK(part.partial_pairs() == mask);
      CHECK(part.memory_bytes() == levels + pair_bytes[1] + pair_bytes[3] + pair_bytes[5]);
      check_level(part, full, 11, mask);
    }
  }

  // The budget: levels 0..10 and the two middle pairs, not a byte more.
  const std::uint64_t room = levels + pair_bytes[5] + pair_bytes[4];
  DatabaseSelection chosen = select_within(dir.path, 4, 11, room, 0);
  CHECK(chosen.max_seeds == 10);
  CHECK(chosen.top_pairs == 0b110000);
  CHECK(chosen.bytes == room);
  // A smaller pair further out fills what a larger one leaves.
  chosen = select_within(dir.path, 4, 11, levels + pair_bytes[5] + pair_bytes[0], 0);
  CHECK(chosen.top_pairs == 0b100001);
  // Everything fits: every level whole; one byte a board: whole levels only.
  CHECK(select_within(dir.path, 4, 11, UINT64_MAX, 0).max_seeds == 11);
  CHECK(select_within(dir.path, 4, 11, UINT64_MAX, 0).top_pairs == 0);
  CHECK(select_within(dir.path, 4, 11, room, -1).top_pairs == 0);
  CHECK(select_within(dir.path, 4, 11, 1, 0).max_seeds == -1);

  // The memory limit counts the pairs kept; a partial level needs a format-3 level held packed.
  CHECK_THROWS_AS(EndgameDatabase::load(dir.path, 4, rules, 10, room - 1, false, {}, 0, 2, false, 0b110000),
                  DatabaseError);
  CHECK_NOTHROW(EndgameDatabase::load(dir.path, 4, rules, 10, room, false, {}, 0, 2, false, 0b110000));
  CHECK_THROWS_AS(EndgameDatabase::load(dir.path, 4, rules, 10, 0, false, {}, -1, 2, false, 1), DatabaseError);
  CHECK_THROWS_AS(EndgameDatabase::load(dir.path, 4, rules, 11, 0, false, {}, 0, 2, false, 1), DatabaseError);
  ScratchDir bytes_dir("partial-bytes");
  test::build_db(bytes_dir.path, 4, 9, rules, dbfile::kVersion);
  CHECK_THROWS_AS(EndgameDatabase::load(bytes_dir.path, 4, rules, 8, 0, false, {}, 0, 2, false, 1), DatabaseError);
}

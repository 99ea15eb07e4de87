// Packed levels against the 1-byte levels they were packed from: every entry, every width,
// m = 2..6, every rule set the databases support, and levels built to hit the escape path.
#include "testing/catch.hpp"

#include <random>

#include "solver/db/database.hpp"
#include "solver/db/packed_level.hpp"
#include "testing/rule_sets.hpp"

using namespace kalah;

namespace {

// Entries of `packed` that differ from `values` (boards of level k in index order).
std::uint64_t mismatches(const BoardIndexer& ix, int k, const LevelArray& values, const PackedLevel& packed) {
  std::uint64_t bad = 0;
  Board b = ix.board(k, 0);
  for (std::uint64_t i = 0; i < values.size(); ++i) {
    if (packed.value(i, b) != values[i]) ++bad;
    if (i + 1 < values.size()) ix.next(b);
  }
  return bad;
}

// A level of k seeds whose values are drawn at random (right parity, in [-k, k]): nearly
// every line has escapes, many lines have more escapes than codes.
LevelArray random_level(const BoardIndexer& ix, int k, std::uint32_t seed) {
  LevelArray a(ix.count(k));
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> u(0, k);
  for (std::uint64_t i = 0; i < a.size(); ++i) a[i] = static_cast<std::int8_t>(2 * u(gen) - k);
  return a;
}

}  // namespace

TEST_CASE("packed levels: every entry equals the 1-byte level, m = 2..6, every rule set, every width", "[db][packed]") {
  const int max_k[] = {0, 0, 14, 12, 10, 9, 8};
  for (const Rules& rules : test::all_value_rules()) {
    for (int m = 2; m <= 6; ++m) {
      const EndgameDatabase db = EndgameDatabase::build_in_memory(m, rules, max_k[m], 2);
      const BoardIndexer& ix = db.indexer();
      for (int k = 0; k <= max_k[m]; ++k) {
        for (int width : {0, 2, 3, 4}) {
          const PackedLevel p = PackedLevel::pack(ix, k, db.level(k), width, 2);
          INFO("rules " << rules.describe() << " m " << m << " k " << k << " width " << width);
          CHECK(p.size() == ix.count(k));
          CHECK((width == 0 || p.width() == width));
          CHECK(mismatches(ix, k, db.level(k), p) == 0);
        }
      }
    }
  }
}

TEST_CASE("packed levels: the escape path, lines full of exceptions and groups of lines", "[db][packed]") {
  // m = 6, k = 8: 75,582 boards = 310 lines of 244 at 2 bits, so two groups of 256 lines.
  const BoardIndexer ix(6, 10);
  for (int k : {1, 7, 8}) {
    const LevelArray values = random_level(ix, k, 1234u + static_cast<std::uint32_t>(k));
    for (int width : {2, 3, 4}) {
      const PackedLevel p = PackedLevel::pack(ix, k, values, width, 2);
      INFO("k " << k << " width " << width << " exceptions " << p.exceptions());
      if (k >= 7 && width == 2) CHECK(p.exceptions() > p.size() / 2);  // 3 codes for k + 1 values
      if (k >= 7 && width == 3) CHECK(p.exceptions() > 0);
      CHECK(mismatches(ix, k, values, p) == 0);
    }
  }
  // Every entry the extreme values, alternating: half the boards escape any window.
  LevelArray extremes(ix.count(10));
  for (std::uint64_t i = 0; i < extremes.size(); ++i) extremes[i] = static_cast<std::int8_t>(i % 2 ? 10 : -10);
  const PackedLevel p = PackedLevel::pack(ix, 10, extremes, 2, 2);
  CHECK(p.exceptions() >= extremes.size() / 2);
  CHECK(p.lines() > PackedLevel::kGroupLines);
  CHECK(mismatches(ix, 10, extremes, p) == 0);
}

TEST_CASE("packed levels: sizes and refusals", "[db][packed]") {
  const EndgameDatabase db = EndgameDatabase::build_in_memory(6, Rules{}, 10, 2);
  const BoardIndexer& ix = db.indexer();
  const PackedLevel p = PackedLevel::pack(ix, 10, db.level(10), 0, 2);
  INFO("width " << p.width() << " bits a board " << p.bits_per_board());
  CHECK(p.bits_per_board() < 4.5);  // one byte before
  CHECK(p.slots() == (p.width() == 2 ? 244 : p.width() == 3 ? 160 : 122));
  CHECK(p.lines() == (p.size() + p.slots() - 1) / p.slots());
  // The smallest width is the one chosen.
  for (int w : {2, 3, 4}) CHECK(p.bytes() <= PackedLevel::pack(ix, 10, db.level(10), w, 2).bytes());
  CHECK_THROWS_AS(PackedLevel::pack(ix, 10, db.level(10), 5), std::invalid_argument);
  CHECK_THROWS_AS(PackedLevel::pack(ix, 9, db.level(10)), std::invalid_argument);  // wrong size
  LevelArray odd(ix.count(4));
  for (std::uint64_t i = 0; i < odd.size(); ++i) odd[i] = 0;
  odd[3] = 1;  // level 4 values are even
  CHECK_THROWS_AS(PackedLevel::pack(ix, 4, odd), std::invalid_argument);
}

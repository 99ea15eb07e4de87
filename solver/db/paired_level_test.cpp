// Levels packed by sublevel pairs against the 1-byte levels: packing a whole level, building a
// level a pair at a time (from 1-byte and from paired lower levels), the escape path, and the
// build's progress and interruption; m = 2..6, every rule set the databases support.
#include "testing/catch.hpp"

#include <atomic>
#include <random>

#include "solver/db/builder.hpp"
#include "solver/db/database.hpp"
#include "solver/db/paired_level.hpp"
#include "testing/rule_sets.hpp"

using namespace kalah;

namespace {

// Entries of `paired` that differ from `values` (level k in index order).
std::uint64_t mismatches(const BoardIndexer& ix, int k, const LevelArray& values, const PairedLevel& paired) {
  std::uint64_t bad = 0;
  const LevelView view(paired);
  Board b = ix.board(k, 0);
  for (std::uint64_t i = 0; i < values.size(); ++i) {
    const base::u128 bits = base::to_bits(b);
    if (paired.value(bits) != values[i] || view.value(i, bits) != values[i]) ++bad;
    if (i + 1 < values.size()) ix.next(b);
  }
  return bad;
}

}  // namespace

TEST_CASE("paired levels: packing a level by pairs keeps every entry, every width", "[db][paired]") {
  const int max_k[] = {0, 0, 14, 12, 10, 9, 8};
  for (const Rules& rules : test::all_value_rules()) {
    for (int m = 2; m <= 6; ++m) {
      const EndgameDatabase db = EndgameDatabase::build_in_memory(m, rules, max_k[m], 2);
      const BoardIndexer& ix = db.indexer();
      for (int k = 0; k <= max_k[m]; ++k) {
        for (int width : {0, 2, 4}) {
          INFO("rules " << rules.describe() << " m " << m << " k " << k << " width " << width);
          const PairedLevel p = PairedLevel::pack(ix, k, db.level(k), width, 2);
          REQUIRE(p.complete());
          CHECK(p.pairs() == k / 2 + 1);
          CHECK(p.size() == ix.count(k));
          CHECK(mismatches(ix, k, db.level(k), p) == 0);
          const LevelArray back = p.unpack(ix, 2);
          CHECK(std::memcmp(back.data(), db.level(k).data(), back.size()) == 0);
        }
      }
    }
  }
}

TEST_CASE("paired levels: the escape path (random values at 2 bits)", "[db][paired]") {
  const BoardIndexer ix(6, 9);
  for (int k : {3, 8, 9}) {
    LevelArray values(ix.count(k));
    std::mt19937 gen(k);
    std::uniform_int_distribution<int> u(0, k);
    for (std::uint64_t i = 0; i < values.size(); ++i) values[i] = static_cast<std::int8_t>(2 * u(gen) - k);
    const PairedLevel p = PairedLevel::pack(ix, k, values, 2, 2);
    std::uint64_t escapes = 0;
    for (int j = 0; j < p.pairs(); ++j) escapes += p.pair(j).exceptions();
    CAPTURE(k);
    CHECK(escapes > values.size() / 8);
    CHECK(mismatches(ix, k, values, p) == 0);
    CHECK_NOTHROW(p.check_image(2));
  }
}

TEST_CASE("paired levels: a level built a pair at a time equals the level built whole", "[db][paired]") {
  const int max_k[] = {0, 0, 14, 12, 10, 9, 8};
  for (const Rules& rules : test::all_value_rules()) {
    for (int m = 2; m <= 6; ++m) {
      const EndgameDatabase db = EndgameDatabase::build_in_memory(m, rules, max_k[m], 2);
      const BoardIndexer& ix = db.indexer();
      // Every level from the 1-byte levels below it, and a chain in which every level is built
      // by pairs from paired levels only.
      std::vector<LevelView> bytes;
      HeldLevels chain;
      for (int k = 0; k <= max_k[m]; ++k) {
        INFO("rules " << rules.describe() << " m " << m << " k " << k);
        const PairedLevel from_bytes = build_paired_level(ix, rules, k, bytes, 0, 2);
        CHECK(mismatches(ix, k, db.level(k), from_bytes) == 0);
        PairedLevel from_paired = build_paired_level(ix, rules, k, chain.views(), 0, 2);
        CHECK(mismatches(ix, k, db.level(k), from_paired) == 0);
        chain.add(std::move(from_paired));
        bytes.emplace_back(db.level(k));
        CHECK(verify_level(ix, rules, k, chain.views(), 2) == 0);
      }
    }
  }
}

TEST_CASE("paired levels: the build reports the level's progress and stops when cancelled", "[db][paired]") {
  const Rules rules;
  const int m = 6, k = 9;
  const EndgameDatabase db = EndgameDatabase::build_in_memory(m, rules, k - 1, 2);
  const BoardIndexer ix(m, k);
  std::vector<LevelView> lower;
  for (int j = 0; j < k; ++j) lower.push_back(db.view(j));
  std::uint64_t last = 0, total = 0;
  bool monotone = true;
  const PairedLevel built =
      build_paired_level(ix, rules, k, lower, 0, 2, [&](int level, std::uint64_t done, std::uint64_t size) {
        monotone = monotone && level == k && done >= last && done <= size;
        last = done;
        total = size;
      });
  CHECK(monotone);
  CHECK(last == ix.count(k));
  CHECK(total == ix.count(k));
  std::atomic<bool> cancel{true};
  CHECK_THROWS_AS(build_paired_level(ix, rules, k, lower, 0, 2, {}, &cancel), BuildInterrupted);
  CHECK(built.complete());
}

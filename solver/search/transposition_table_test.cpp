// The table's entry encoding and policy (solver/search/transposition_table.hpp): bounds,
// move and work survive a store and a probe over their whole ranges, bounds for one board
// merge, an all-zero word means nothing known, and a full bucket gives up its least-work
// entry.
#include "testing/catch.hpp"

#include "solver/search/transposition_table.hpp"

using kalah::search::TableEntry;
using kalah::search::TranspositionTable;

TEST_CASE("table: an empty table knows nothing", "[search][table]") {
  const TranspositionTable table(4096);
  for (std::uint64_t index = 0; index < (std::uint64_t(1) << table.index_bits()); ++index)
    for (std::uint64_t tag : {0ULL, 1ULL, (1ULL << TranspositionTable::kTagBits) - 1}) {
      const TableEntry e = table.probe(index, tag);
      REQUIRE(e.lower == -255);
      REQUIRE(e.upper == 255);
      REQUIRE(e.move == -1);
    }
  CHECK(table.used() == 0);
}

TEST_CASE("table: every field survives a store and a probe", "[search][table]") {
  TranspositionTable table(1 << 16);
  const std::uint64_t max_tag = (1ULL << TranspositionTable::kTagBits) - 1;
  std::uint64_t index = 0;
  for (int lower = -255; lower <= 255; lower += 17)
    for (int upper : {lower, lower + 1, 255})
      for (int move : {-1, 0, 7})
        for (int work : {0, 1, 63}) {
          if (upper > 255) continue;
          const std::uint64_t tag = (index * 0x9E3779B97ULL) & max_tag;
          const std::uint64_t at = index++ % (std::uint64_t(1) << table.index_bits());
          table.clear();
          table.store(at, tag, lower, upper, move, work);
          const TableEntry e = table.probe(at, tag);
          INFO("lower " << lower << " upper " << upper << " move " << move << " work " << work);
          REQUIRE(e.lower == lower);
          REQUIRE(e.upper == upper);
          REQUIRE(e.move == move);
          REQUIRE(e.work == work);
          REQUIRE(table.probe(at, tag ^ 1).upper == 255);  // another board: nothing known
        }
}

TEST_CASE("table: bounds of one board merge to the tightest", "[search][table]") {
  TranspositionTable table(4096);
  table.store(3, 77, -4, 255, 2, 5);   // value >= -4
  table.store(3, 77, -255, 6, -1, 3);  // value <= 6; no move: the old one stays
  TableEntry e = table.probe(3, 77);
  CHECK(e.lower == -4);
  CHECK(e.upper == 6);
  CHECK(e.move == 2);
  CHECK(e.work == 5);
  table.store(3, 77, 2, 2, 4, 9);
  e = table.probe(3, 77);
  CHECK(e.lower == 2);
  CHECK(e.upper == 2);
  CHECK(e.move == 4);
  CHECK(e.work == 9);
  CHECK(table.used() == 1);
}

TEST_CASE("table: a full bucket replaces its least-work entry", "[search][table]") {
  TranspositionTable table(4096);
  for (int i = 0; i < TranspositionTable::kBucketEntries; ++i) table.store(5, 100 + i, i, i, -1, 10 + i);
  table.store(5, 999, 1, 1, -1, 50);
  CHECK(table.probe(5, 100).upper == 255);  // work 10: replaced
  CHECK(table.probe(5, 999).lower == 1);
  for (int i = 1; i < TranspositionTable::kBucketEntries; ++i) CHECK(table.probe(5, 100 + i).lower == i);
}

// The table's entry encoding and policy (solver/search/transposition_table.hpp): bounds,
// move and work survive a store and a probe over their whole ranges, bounds for one board
// merge, an all-zero word means nothing known, and a full bucket gives up its least-work
// entry; a table that grows keeps every board it held, under its new index and tag.
#include "testing/catch.hpp"

#include <random>
#include <thread>
#include <vector>

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

TEST_CASE("table: growing in place keeps every entry, found by the longer index", "[search][table]") {
  // Keys as board_key.hpp splits them: index = the low index_bits() bits of a 40-bit mixed
  // key, tag = the bits above. Fill the table past half, then double it six times.
  TranspositionTable table(std::size_t(1) << 16, 1024);
  REQUIRE(table.bytes() == 1024);
  REQUIRE(table.max_bytes() == std::size_t(1) << 16);
  struct Stored {
    std::uint64_t key;
    TableEntry entry;
  };
  std::mt19937_64 rng(5);
  std::vector<Stored> boards;
  const auto split = [&](std::uint64_t key) {
    const int bits = table.index_bits();
    return std::pair{key & ((std::uint64_t(1) << bits) - 1), key >> bits};
  };
  std::vector<std::uint64_t> keys;
  for (std::size_t i = 0; i < table.capacity() * 3 / 4; ++i) {
    keys.push_back(rng() & ((std::uint64_t(1) << 40) - 1));
    const int lower = static_cast<int>(rng() % 100) - 50;
    const auto [index, tag] = split(keys.back());
    table.store(index, tag, lower, lower + 2, static_cast<int>(i % 8), static_cast<int>(i % 64));
  }
  // What the full table still holds (a full bucket gave up entries) is what must survive.
  for (const std::uint64_t key : keys) {
    const auto [index, tag] = split(key);
    const TableEntry e = table.probe(index, tag);
    if (e.upper != 255) boards.push_back({key, e});
  }
  const std::size_t used = table.used();
  REQUIRE(boards.size() == used);
  for (int doubling = 1; doubling <= 6; ++doubling) {
    REQUIRE(table.can_grow());
    const int bits = table.index_bits();
    table.grow(doubling % 2 + 1);  // one thread, then two
    REQUIRE(table.index_bits() == bits + 1);
    REQUIRE(table.bytes() == std::size_t(1024) << doubling);
    CHECK(table.used() == used);
    for (const Stored& s : boards) {
      const auto [index, tag] = split(s.key);
      const TableEntry e = table.probe(index, tag);
      INFO("doubling " << doubling << " key " << s.key);
      REQUIRE(e.lower == s.entry.lower);
      REQUIRE(e.upper == s.entry.upper);
      REQUIRE(e.move == s.entry.move);
      REQUIRE(e.work == s.entry.work);
    }
  }
  CHECK_FALSE(table.can_grow());
}

TEST_CASE("table: a store says when it took an empty slot", "[search][table]") {
  TranspositionTable table(4096);
  CHECK(table.store(1, 10, 0, 0, -1, 1));       // new board, empty slot
  CHECK_FALSE(table.store(1, 10, 0, 0, 2, 1));  // same board: merged
  for (int i = 1; i < TranspositionTable::kBucketEntries; ++i) CHECK(table.store(1, 10 + i, 0, 0, -1, 5));
  CHECK_FALSE(table.store(1, 99, 0, 0, -1, 9));  // bucket full: an entry replaced
}

TEST_CASE("table: faulting its pages in changes no entry, beside a searcher's stores", "[search][table]") {
  TranspositionTable table(std::size_t(1) << 20, std::size_t(1) << 18);
  std::mt19937_64 rng(7);
  const auto index_of = [&](std::uint64_t key) { return key & ((std::uint64_t(1) << table.index_bits()) - 1); };
  for (int i = 0; i < 2000; ++i) {
    const std::uint64_t key = rng() & ((std::uint64_t(1) << 30) - 1);
    table.store(index_of(key), key >> table.index_bits(), -3, 5, i % 6, i % 20);
  }
  const std::uint64_t before = table.digest();
  table.populate(2);
  CHECK(table.digest() == before);
  table.populate(2);  // nothing new to fault in
  CHECK(table.digest() == before);
  // Another thread stores while the pages of the grown table are faulted in: every store lands.
  table.grow(2);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> keys;
  for (std::uint64_t i = 0; i < 4000; ++i) keys.emplace_back(i * 4, rng() & ((std::uint64_t(1) << 20) - 1));
  std::thread storer([&] {
    // A bucket each, and the most work: nothing replaces them.
    for (const auto& [index, tag] : keys) table.store(index, tag, 1, 1, 2, 63);
  });
  table.populate(3);
  storer.join();
  std::size_t found = 0;
  for (const auto& [index, tag] : keys) found += table.probe(index, tag).lower == 1;
  CHECK(found == keys.size());
  table.clear();
  CHECK(table.used() == 0);
  table.populate(1);  // (the cleared pages again)
  CHECK(table.used() == 0);
}

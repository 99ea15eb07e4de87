// A searcher's table for the boards below the shared one (solver/search/near_table.hpp).
#include "testing/catch.hpp"

#include <utility>
#include <vector>

#include "solver/search/near_table.hpp"

using kalah::base::byte_at;
using kalah::base::u128;
using kalah::search::NearTable;

namespace {
std::pair<int, int> bounds_of(const NearTable& t, u128 x) {
  int lower = -100, upper = 100;
  t.probe(x, &lower, &upper);
  return {lower, upper};
}
// A board of 7 pits a side with every cell used (bytes 0..13), distinct for seed < 255.
u128 full_board(int seed) {
  u128 x = byte_at(0, seed + 1);
  for (int i = 1; i < 14; ++i) x |= byte_at(i, (seed + 3 * i) % 9 + 1);
  return x;
}
}  // namespace

TEST_CASE("near table: bounds are found for their board only, merged, and narrow what is known", "[search]") {
  NearTable t(10);
  REQUIRE(t.enabled());
  CHECK(t.bytes() == 1024 * 16);
  const u128 a = full_board(1), b = full_board(2);
  CHECK(bounds_of(t, a) == std::pair{-100, 100});  // an empty entry matches no board
  t.store(a, 4, NearTable::kNoUpper);
  CHECK(bounds_of(t, a) == std::pair{4, 100});
  CHECK(bounds_of(t, b) == std::pair{-100, 100});
  t.store(a, NearTable::kNoLower, 20);  // merged with the lower bound held
  CHECK(bounds_of(t, a) == std::pair{4, 20});
  t.store(a, -127, 127);  // weaker bounds do not widen what is held
  CHECK(bounds_of(t, a) == std::pair{4, 20});
  int lower = 10, upper = 12;  // known better already: kept
  t.probe(a, &lower, &upper);
  CHECK(std::pair{lower, upper} == std::pair{10, 12});
  t.store(a, -127, -127);
  t.store(b, 127, 127);
  CHECK(bounds_of(t, b) == std::pair{127, 100});  // extreme values survive the encoding
  t.clear();
  CHECK(bounds_of(t, a) == std::pair{-100, 100});
}

TEST_CASE("near table: a store replaces another board in its slot, which is then not found", "[search]") {
  NearTable t(1);  // two entries: most boards share a slot
  std::vector<u128> boards;
  for (int s = 0; s < 20; ++s) boards.push_back(full_board(s));
  for (std::size_t i = 0; i < boards.size(); ++i) {
    t.store(boards[i], static_cast<int>(i), static_cast<int>(i));
    CHECK(bounds_of(t, boards[i]) == std::pair{int(i), int(i)});
    for (std::size_t j = 0; j < i; ++j) {
      const auto [lo, hi] = bounds_of(t, boards[j]);  // still held, or nothing known: never another's
      CHECK(((lo == int(j) && hi == int(j)) || (lo == -100 && hi == 100)));
    }
  }
}

TEST_CASE("near table: sizes, and no table at all", "[search]") {
  CHECK(NearTable::bits_within(0) == 0);
  CHECK(NearTable::bits_within(31) == 0);
  CHECK(NearTable::bits_within(32) == 1);
  CHECK(NearTable::bits_within(256 << 10) == 14);
  CHECK(NearTable::bits_within((256 << 10) + 100) == 14);
  NearTable none(0);
  CHECK_FALSE(none.enabled());
  none.store(full_board(1), 3, 3);
  CHECK(bounds_of(none, full_board(1)) == std::pair{-100, 100});
}

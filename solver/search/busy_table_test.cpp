// The busy marks of the parallel search (solver/search/busy_table.hpp).
#include "testing/catch.hpp"

#include "solver/search/busy_table.hpp"

using kalah::search::BusyTable;

TEST_CASE("busy table: a board is busy for the other threads only while marked", "[search]") {
  BusyTable busy;
  const std::uint64_t h = BusyTable::hash(12345, 678);
  CHECK_FALSE(busy.busy_elsewhere(h, 0));
  busy.enter(h, 0);
  CHECK_FALSE(busy.busy_elsewhere(h, 0));  // a thread is never put off by its own mark
  CHECK(busy.busy_elsewhere(h, 1));
  CHECK_FALSE(busy.busy_elsewhere(BusyTable::hash(12346, 678), 1));
  busy.leave(h, 1);  // not thread 1's mark: it stays
  CHECK(busy.busy_elsewhere(h, 1));
  busy.leave(h, 0);
  CHECK_FALSE(busy.busy_elsewhere(h, 1));
}

TEST_CASE("busy table: a later mark in the same slot replaces the earlier one", "[search]") {
  BusyTable busy;
  const std::uint64_t h = BusyTable::hash(1, 2);
  busy.enter(h, 0);
  busy.enter(h, 1);
  CHECK(busy.busy_elsewhere(h, 0));
  CHECK_FALSE(busy.busy_elsewhere(h, 1));
  busy.leave(h, 0);  // thread 0's mark is gone already: thread 1's stays
  CHECK(busy.busy_elsewhere(h, 0));
  busy.leave(h, 1);
  CHECK_FALSE(busy.busy_elsewhere(h, 0));
}

TEST_CASE("busy table: searcher ids past 8 bits are told apart (many workers on one table)", "[search]") {
  BusyTable busy;
  const std::uint64_t h = BusyTable::hash(987654321, 4242);
  busy.enter(h, 300);
  CHECK(busy.busy_elsewhere(h, 300 - 256));  // an id that 8 bits would have confused with 300
  CHECK_FALSE(busy.busy_elsewhere(h, 300));
  busy.enter(h, BusyTable::kMarks - 1);
  CHECK(busy.busy_elsewhere(h, 300));
  CHECK_FALSE(busy.busy_elsewhere(h, BusyTable::kMarks - 1));
}

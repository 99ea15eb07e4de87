// Exact table keys (solver/search/board_key.hpp): the rank is a bijection between the boards
// with at most K seeds and [0, C(K+2m, 2m)), the mix a bijection on bits() bits, and so
// (index, tag) tells every board apart at any table size.
#include "testing/catch.hpp"

#include <set>
#include <utility>
#include <vector>

#include "solver/base/board_index.hpp"
#include "solver/search/board_key.hpp"

using namespace kalah;
using kalah::search::BoardKey;

namespace {

// Every board with at most max_k seeds on m pits a side.
std::vector<Board> all_boards(int m, int max_k) {
  const BoardIndexer ix(m, max_k);
  std::vector<Board> out;
  for (int k = 0; k <= max_k; ++k) {
    Board b = ix.board(k, 0);
    do out.push_back(b);
    while (ix.next(b));
  }
  return out;
}

template <int M>
void check_key_bijection(int max_k) {
  const BoardKey key(M, max_k);
  const std::vector<Board> boards = all_boards(M, max_k);
  REQUIRE(boards.size() == key.boards());
  std::vector<bool> seen(boards.size(), false);
  for (const Board& b : boards) {
    const std::uint64_t r = key.rank(b);
    REQUIRE(r < key.boards());
    REQUIRE(!seen[r]);
    seen[r] = true;
    REQUIRE(key.rank_m<M>(b) == r);
  }
  REQUIRE((std::uint64_t(1) << key.bits()) >= key.boards());
  REQUIRE((key.bits() == 1 || (std::uint64_t(1) << (key.bits() - 1)) < key.boards()));
  for (int index_bits : {0, 1, key.bits() / 2, key.bits() - 1, key.bits(), key.bits() + 3}) {
    std::set<std::pair<std::uint64_t, std::uint64_t>> splits;
    for (const Board& b : boards) {
      const BoardKey::Split s = key.split_m<M>(b, index_bits);
      REQUIRE(s.index < (std::uint64_t(1) << index_bits));
      REQUIRE(splits.insert({s.index, s.tag}).second);
    }
  }
}

}  // namespace

TEST_CASE("table key: rank and split tell every board apart", "[search][key]") {
  check_key_bijection<1>(20);
  check_key_bijection<2>(12);
  check_key_bijection<3>(8);
  check_key_bijection<4>(5);
}

TEST_CASE("table key: the mix is a bijection on its bits", "[search][key]") {
  for (auto [m, k] : {std::pair{1, 3}, std::pair{2, 6}, std::pair{3, 7}}) {
    const BoardKey key(m, k);
    const std::uint64_t n = std::uint64_t(1) << key.bits();
    std::vector<bool> seen(n, false);
    for (std::uint64_t x = 0; x < n; ++x) {
      const std::uint64_t y = key.mix(x);
      REQUIRE(y < n);
      REQUIRE(!seen[y]);
      seen[y] = true;
    }
  }
}

TEST_CASE("table key: the rank is the level offset plus the level index", "[search][key]") {
  const BoardIndexer ix(6, 40);
  const BoardKey key(6, 40);
  for (int k : {0, 1, 17, 40})
    for (std::uint64_t idx : {std::uint64_t(0), ix.count(k) / 3, ix.count(k) - 1}) {
      const Board b = ix.board(k, idx);
      CHECK(key.rank(b) == ix.count_upto(k - 1) + idx);
    }
}

TEST_CASE("table key: keys wider than 63 bits are refused", "[search][key]") {
  CHECK_THROWS_AS(BoardKey(8, 192), std::length_error);
  CHECK_NOTHROW(BoardKey(6, 72));
}

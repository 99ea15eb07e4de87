// Index bijection (solver/base/board_index.hpp): round trip and order on every level for small m.
#include "testing/catch.hpp"

#include "solver/base/board_index.hpp"

using namespace kalah;

TEST_CASE("db index: level sizes are binomials", "[db][index]") {
  const BoardIndexer ix(6, 30);
  CHECK(ix.count(0) == 1);
  CHECK(ix.count(1) == 12);
  CHECK(ix.count(24) == 417225900ULL);  // C(35, 11)
  // Irving et al.'s sizes: at most k seeds, one-side-empty boards excluded.
  auto irving = [&](int k) { return ix.count_upto(k) - 2 * ix.binomial(k + 6, 6) + 1; };
  CHECK(irving(20) == 225332381ULL);
  CHECK(irving(24) == 1250490151ULL);
  CHECK(irving(28) == 5584163673ULL);
  CHECK(irving(30) == 11054221305ULL);
}

TEST_CASE("db index: round trip and order on every level", "[db][index]") {
  for (int m = 1; m <= 4; ++m) {
    const int max_k = m <= 2 ? 20 : m == 3 ? 14 : 10;
    const BoardIndexer ix(m, max_k);
    for (int k = 0; k <= max_k; ++k) {
      Board b = ix.board(k, 0);
      std::uint64_t idx = 0;
      Board prev = b;
      bool ok = true;
      do {
        int sum = 0;
        for (int i = 0; i < 2 * m; ++i) sum += b.cells[i];
        for (int i = 2 * m; i < 2 * kMaxPits; ++i) ok = ok && b.cells[i] == 0;
        ok = ok && sum == k && ix.index(b) == idx && ix.board(k, idx) == b;
        if (idx > 0)  // descending lexicographic order of the reversed cells
          ok = ok &&
               std::lexicographical_compare(b.cells.rbegin(), b.cells.rend(), prev.cells.rbegin(), prev.cells.rend());
        prev = b;
        ++idx;
      } while (ok && ix.next(b));
      INFO("m = " << m << ", k = " << k);
      CHECK(ok);
      CHECK(idx == ix.count(k));
    }
  }
}

TEST_CASE("db index: m = 6 spot checks at 24 seeds", "[db][index]") {
  const BoardIndexer ix(6, 24);
  for (std::uint64_t idx : {0ULL, 1ULL, 12345ULL, 99999999ULL, 417225899ULL}) {
    const Board b = ix.board(24, idx);
    CHECK(ix.index(b) == idx);
  }
  Board last;
  last.cells[0] = 24;
  CHECK(ix.index(last) == ix.count(24) - 1);
}

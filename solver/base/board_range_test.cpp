// Board ranges: board(), next() and position() agree, for whole levels and for sublevel
// pairs, and the pairs of a level hold each of its boards once; pair_position() from a
// board's bits agrees with the sublevel order.
#include "testing/catch.hpp"

#include <vector>

#include "solver/base/board_index.hpp"
#include "solver/base/board_range.hpp"
#include "solver/base/sublevel_index.hpp"

using namespace kalah;

namespace {

// Counts the positions where board(i), the i-th next() step and position() disagree.
std::uint64_t disagreements(const BoardRange& r) {
  std::uint64_t bad = 0;
  if (r.size() == 0) return 0;
  Board b = r.board(0);
  for (std::uint64_t i = 0; i < r.size(); ++i) {
    if (!(r.board(i) == b) || r.position(b) != i) ++bad;
    int seeds = 0;
    for (int c = 0; c < 2 * r.pits(); ++c) seeds += b.cells[c];
    if (seeds != r.level()) ++bad;
    if (i + 1 < r.size()) r.next(b);
  }
  return bad;
}

}  // namespace

TEST_CASE("board range: whole levels and sublevel pairs step, rank and unrank alike", "[base][range]") {
  const int max_k[] = {0, 12, 10, 8, 7, 6, 6, 5, 4};
  for (int m = 1; m <= 8; ++m) {
    const BoardIndexer ix(m, max_k[m]);
    const SublevelIndexer sx(m, max_k[m]);
    for (int k = 0; k <= max_k[m]; ++k) {
      CAPTURE(m, k);
      CHECK(disagreements(BoardRange::level(ix, k)) == 0);
      std::vector<char> seen(ix.count(k), 0);
      std::uint64_t total = 0, twice = 0, wrong_pair = 0;
      for (int p = 0; p < SublevelIndexer::pairs(k); ++p) {
        const BoardRange r = BoardRange::pair(sx, k, p);
        CAPTURE(p);
        CHECK(disagreements(r) == 0);
        total += r.size();
        if (r.size() == 0) continue;
        Board b = r.board(0);
        for (std::uint64_t i = 0; i < r.size(); ++i) {
          char& s = seen[ix.index(b)];
          twice += s;
          s = 1;
          int q = -1;
          if (sx.pair_position(b, k, &q) != i || q != p) ++wrong_pair;
          if (i + 1 < r.size()) r.next(b);
        }
      }
      CHECK(total == ix.count(k));
      CHECK(twice == 0);
      CHECK(wrong_pair == 0);
    }
  }
}

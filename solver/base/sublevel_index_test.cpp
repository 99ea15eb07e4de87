// The sublevel order of a level: a bijection onto the level's index range, inverted by
// board(), and the closure that lets a builder compute a level a pair of sublevels at a time:
// every same-level successor of sublevel (k, s) lies in sublevel (k, k - s), for every rule
// set the databases support.
#include "testing/catch.hpp"

#include <vector>

#include "solver/base/board_index.hpp"
#include "solver/base/sowing_kernel.hpp"
#include "solver/base/sublevel_index.hpp"
#include "testing/rule_sets.hpp"

using namespace kalah;

TEST_CASE("sublevel index: a bijection of each level, inverted by board()", "[base][sublevel]") {
  const int max_k[] = {0, 12, 10, 8, 7, 6, 6, 5, 4};
  for (int m = 1; m <= 8; ++m) {
    const BoardIndexer ix(m, max_k[m]);
    const SublevelIndexer sx(m, max_k[m]);
    for (int k = 0; k <= max_k[m]; ++k) {
      CAPTURE(m, k);
      REQUIRE(sx.first(k, k + 1) == ix.count(k));
      std::vector<char> seen(ix.count(k), 0);
      std::uint64_t bad = 0;
      Board b = ix.board(k, 0);
      for (std::uint64_t i = 0; i < ix.count(k); ++i) {
        int s = -1;
        const std::uint64_t p = sx.position(b, &s);
        int own = 0;
        for (int c = 0; c < m; ++c) own += b.cells[c];
        if (p >= ix.count(k) || seen[p] || s != own || p < sx.first(k, s) || p >= sx.first(k, s + 1) ||
            !(sx.board(k, p) == b))
          ++bad;
        else
          seen[p] = 1;
        if (i + 1 < ix.count(k)) ix.next(b);
      }
      CHECK(bad == 0);
    }
  }
}

TEST_CASE("sublevel index: moves inside a level go from sublevel s to sublevel k - s", "[base][sublevel]") {
  const int max_k[] = {0, 0, 12, 10, 9, 8, 7};
  for (const Rules& rules : test::all_value_rules()) {
    for (int m = 2; m <= 6; ++m) {
      CAPTURE(rules.describe(), m);
      const BoardIndexer ix(m, max_k[m]);
      std::uint64_t inside = 0, wrong = 0;
      base::dispatch(m, rules, [&]<int M, Sowing S, Capture C, EndRule E>() {
        using K = base::Kernel<M, S, C, E>;
        for (int k = 1; k <= max_k[m]; ++k) {
          const base::SowTables tab(ix, k);
          const K kern{tab};
          Board b = ix.board(k, 0);
          for (std::uint64_t i = 0; i < ix.count(k); ++i) {
            const base::u128 x = base::to_bits(b);
            int value = 0, own = 0;
            for (int c = 0; c < M; ++c) own += b.cells[c];
            if (!K::terminal(x, k, &value)) {
              for (std::uint64_t pits = K::nonempty_pits(x); pits; pits &= pits - 1) {
                base::Successor s;
                kern.sow(x, k, __builtin_ctzll(pits) >> 3, &s);
                if (s.level != k) continue;
                ++inside;
                alignas(16) std::uint8_t cells[16];
                std::memcpy(cells, &s.board, sizeof cells);
                int next_own = 0;
                for (int c = 0; c < M; ++c) next_own += cells[c];
                if (s.again || next_own != k - own) ++wrong;
              }
            }
            if (i + 1 < ix.count(k)) ix.next(b);
          }
        }
      });
      CHECK(inside > 0);
      CHECK(wrong == 0);
    }
  }
}

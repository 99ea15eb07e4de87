// The move generator (solver/base/sowing_kernel.hpp) against the engine's sow() on every
// board of the small levels, for every pit count and every rule set that changes values.
#include "testing/catch.hpp"

#include "solver/base/board_index.hpp"
#include "solver/base/sowing_kernel.hpp"
#include "testing/rule_sets.hpp"

using namespace kalah;

namespace {

// Every board with at most max_k seeds, every sowing: the kernel's successor equals sow().
template <int M, Sowing S, Capture C, EndRule E>
std::uint64_t check_level_boards(int max_k, const Rules& rules) {
  const BoardIndexer ix(M, max_k);
  const base::SowTables tab(ix, max_k);
  const base::Kernel<M, S, C, E> kernel{tab};
  std::uint64_t checked = 0;
  for (int k = 0; k <= max_k; ++k) {
    Board b = ix.board(k, 0);
    do {
      const base::u128 x = base::to_bits(b);
      int remainder = 0, engine_remainder = 0;
      const bool terminal = base::Kernel<M, S, C, E>::terminal(x, k, &remainder);
      REQUIRE(terminal == is_terminal(b, M, rules.end, engine_remainder));
      if (terminal) REQUIRE(remainder == engine_remainder);
      const std::uint64_t pits = base::Kernel<M, S, C, E>::nonempty_pits(x);
      for (int pit = 0; pit < M; ++pit) {
        REQUIRE(((pits >> (8 * pit + 7)) & 1) == (b.cells[pit] > 0 ? 1u : 0u));
        if (b.cells[pit] == 0) continue;
        Board next = b;
        const SowOutcome o = sow(next, M, pit, rules);
        base::Successor s;
        kernel.sow(x, k, pit, &s);
        const Board expected = o.extra_turn ? next : flipped(next, M);
        INFO("m = " << M << ", rules " << rules.describe() << ", k = " << k << ", pit " << pit);
        REQUIRE(base::from_bits(s.board) == expected);
        REQUIRE(s.stored == o.stored);
        REQUIRE(s.again == o.extra_turn);
        REQUIRE(s.capture == o.capture);
        REQUIRE(s.level == k - o.stored);
        REQUIRE(kernel.index(s.board) == ix.index(expected));
        ++checked;
      }
    } while (ix.next(b));
  }
  return checked;
}

}  // namespace

TEST_CASE("kernel: every sowing of the small levels equals the engine's", "[base][kernel]") {
  for (const Rules& rules : test::all_value_rules()) {
    for (int m = 1; m <= 6; ++m) {
      const int max_k = m <= 2 ? 14 : m == 3 ? 10 : m == 4 ? 7 : m == 5 ? 6 : 5;
      const std::uint64_t checked = base::dispatch(m, rules, [&]<int M, Sowing S, Capture C, EndRule E>() {
        return check_level_boards<M, S, C, E>(max_k, rules);
      });
      CHECK(checked > 0);
    }
  }
}

TEST_CASE("kernel: laps around the ring and the largest pits (m = 8)", "[base][kernel]") {
  const Rules rules;
  const BoardIndexer ix(8, 60);
  const base::SowTables tab(ix, 60);
  const base::Kernel<8, Sowing::Kalah, Capture::NonEmpty, EndRule::Either> kernel{tab};
  Board b;
  for (int i = 0; i < 16; ++i) b.cells[i] = static_cast<std::uint8_t>(i % 3);
  b.cells[2] = 40;  // more than two laps of the 17-place ring
  int k = 0;
  for (int i = 0; i < 16; ++i) k += b.cells[i];
  for (int pit = 0; pit < 8; ++pit) {
    if (!b.cells[pit]) continue;
    Board next = b;
    const SowOutcome o = sow(next, 8, pit, rules);
    base::Successor s;
    kernel.sow(base::to_bits(b), k, pit, &s);
    CHECK(base::from_bits(s.board) == (o.extra_turn ? next : flipped(next, 8)));
    CHECK(s.stored == o.stored);
  }
}

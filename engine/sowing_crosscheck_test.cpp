// An independent check of the sowing kernel: a naive simulator written from
// shared/RULES.md (seed by seed around the physical board, both stores present, the
// opponent's store skipped), compared with engine `sow` on many random boards for every
// board size and sowing/capture option. The end rule and early end do not affect a sowing.
#include "testing/catch.hpp"

#include <array>
#include <random>

#include "testing/boards.hpp"

using namespace kalah;

namespace {

// The physical board seen from the mover, in counter-clockwise (sowing) order:
// [0, m) mover's pits, m mover's store, [m+1, 2m+1) opponent's pits, 2m+1 opponent's store.
struct Physical {
  int m = 0;
  std::array<int, 2 * kMaxPits + 2> place{};

  int own_store() const { return m; }
  int opponent_store() const { return 2 * m + 1; }
  bool is_own_pit(int i) const { return i < m; }
  bool is_opponent_pit(int i) const { return i > m && i < 2 * m + 1; }
  int opposite(int own_pit) const { return 2 * m - own_pit; }  // own pit i faces opp pit m-1-i
};

struct Result {
  Physical board;
  bool extra_turn = false;
  bool capture = false;
  int relays = 0;
};

// Take every seed of `pit` and drop them one at a time. Returns the place of the last seed
// and, through `before`, how many seeds that place held just before the last seed arrived.
int drop_seeds(Physical& p, int pit, int& before, bool& reached_opponent) {
  int seeds = p.place[pit];
  p.place[pit] = 0;
  int at = pit;
  reached_opponent = false;
  before = 0;
  while (seeds > 0) {
    at = (at + 1) % (2 * p.m + 2);
    if (at == p.opponent_store()) continue;
    before = p.place[at];
    ++p.place[at];
    --seeds;
    if (p.is_opponent_pit(at)) reached_opponent = true;
  }
  return at;
}

Result naive_kalah(Physical p, int pit, Capture capture) {
  Result r;
  int before = 0;
  bool reached = false;
  const int last = drop_seeds(p, pit, before, reached);
  if (last == p.own_store()) {
    r.extra_turn = true;
  } else if (p.is_own_pit(last) && before == 0) {
    const int opp = p.opposite(last);
    if (p.place[opp] > 0 || capture == Capture::Empty) {
      p.place[p.own_store()] += p.place[opp] + p.place[last];
      p.place[opp] = 0;
      p.place[last] = 0;
      r.capture = true;
    }
  }
  r.board = p;
  return r;
}

Result naive_relay(Physical p, int pit) {
  Result r;
  for (;;) {
    int before = 0;
    bool reached = false;
    const int last = drop_seeds(p, pit, before, reached);
    if (p.is_own_pit(last) && before > 0 && reached) {
      ++r.relays;
      pit = last;
      continue;
    }
    if (p.is_opponent_pit(last)) {
      for (int at = last; p.is_opponent_pit(at) && (p.place[at] == 2 || p.place[at] == 3); --at) {
        p.place[p.own_store()] += p.place[at];
        p.place[at] = 0;
        r.capture = true;
      }
    }
    r.board = p;
    return r;
  }
}

Physical to_physical(const Board& b, int m) {
  Physical p;
  p.m = m;
  for (int i = 0; i < m; ++i) {
    p.place[i] = b.cells[i];
    p.place[m + 1 + i] = b.cells[m + i];
  }
  return p;
}

// A random board: either small counts everywhere or a few big pits, total at most 255.
Board random_board(std::mt19937& rng, int m) {
  Board b;
  const int style = static_cast<int>(rng() % 3);
  const int cap = style == 0 ? 4 : style == 1 ? 12 : 40;
  int total = 0;
  for (int i = 0; i < 2 * m; ++i) {
    int seeds = static_cast<int>(rng() % static_cast<unsigned>(cap + 1));
    if (style == 2 && rng() % 3 != 0) seeds = static_cast<int>(rng() % 3);
    if (total + seeds > kMaxSeeds) seeds = kMaxSeeds - total;
    b.cells[i] = static_cast<std::uint8_t>(seeds);
    total += seeds;
  }
  return b;
}

void compare_all_sowings(int m, const Rules& rules, int boards, std::mt19937& rng) {
  for (int n = 0; n < boards; ++n) {
    const Board start = random_board(rng, m);
    for (int pit = 0; pit < m; ++pit) {
      if (start.cells[pit] == 0) continue;
      Board engine = start;
      const SowOutcome o = sow(engine, m, pit, rules);
      const Physical before = to_physical(start, m);
      const Result naive =
          rules.sowing == Sowing::Kalah ? naive_kalah(before, pit, rules.capture) : naive_relay(before, pit);
      const Physical after = to_physical(engine, m);
      INFO("m=" << m << " rules: " << rules.describe() << " pit " << pit);
      bool same = o.stored == naive.board.place[m] && o.extra_turn == naive.extra_turn && o.capture == naive.capture &&
                  o.relays == naive.relays;
      for (int i = 0; i < 2 * m + 1; ++i)
        if (i != m && after.place[i] != naive.board.place[i]) same = false;
      for (int i = 2 * m; i < 2 * kMaxPits; ++i)
        if (engine.cells[i] != 0) same = false;  // cells beyond the board stay zero
      if (!same) {
        std::string cells;
        for (int i = 0; i < 2 * m; ++i) cells += std::to_string(start.cells[i]) + " ";
        FAIL("sowing differs from the naive simulator on board [" << cells << "]");
      }
    }
  }
}

}  // namespace

TEST_CASE("sow agrees with a naive seed-by-seed simulator on random boards", "[sowing][crosscheck]") {
  std::mt19937 rng(20240611);
  const int boards = 4000;
  for (int m = 1; m <= kMaxPits; ++m) {
    for (Capture c : {Capture::NonEmpty, Capture::Empty}) {
      Rules r;
      r.capture = c;
      compare_all_sowings(m, r, boards, rng);
    }
    compare_all_sowings(m, Rules::preset("relay"), boards, rng);
  }
  SUCCEED("every sowing matched");
}

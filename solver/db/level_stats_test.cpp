// Level statistics against a brute-force count: every board of small databases built in
// memory, its sowings by engine/board.hpp's sow(), entropies from plain frequency tables, and
// the packings rebuilt and compressed here.
#include "testing/catch.hpp"

#include <zstd.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <vector>

#include "solver/db/level_stats.hpp"
#include "testing/rule_sets.hpp"

using namespace kalah;

namespace {

// What the brute force knows of one board.
struct BoardFacts {
  int value = 0;
  int side = 0;  // seeds on the mover's side
  bool terminal = false;
  bool leaving = false;  // some sowing banks a seed (its child lies in a lower level)
  int p = 0;             // the best value through such a sowing
};

BoardFacts facts_of(const EndgameDatabase& db, const Board& b, int k) {
  const int m = db.pits();
  BoardFacts f;
  f.value = db.value(b, k);
  f.side = side_seeds(b, m, 0);
  int ignored = 0;
  f.terminal = is_terminal(b, m, db.rules().end, ignored);
  if (f.terminal) return f;
  for (int pit = 0; pit < m; ++pit) {
    if (b.cells[pit] == 0) continue;
    Board child = b;
    const SowOutcome out = sow(child, m, pit, db.rules());
    if (out.stored == 0) continue;
    if (!out.extra_turn) child = flipped(child, m);
    const int through = value_through(out.stored, out.extra_turn, db.value(child, k - out.stored));
    f.p = f.leaving ? std::max(f.p, through) : through;
    f.leaving = true;
  }
  return f;
}

// H(Y | X) in bits from (x, y) pairs with their counts, the textbook way.
double conditional_entropy(const std::map<std::pair<int, int>, std::uint64_t>& xy) {
  std::map<int, std::uint64_t> x_counts;
  std::uint64_t total = 0;
  for (const auto& [key, n] : xy) {
    x_counts[key.first] += n;
    total += n;
  }
  double h = 0;
  for (const auto& [key, n] : xy) {
    const double p_xy = static_cast<double>(n) / static_cast<double>(total);
    const double p_y_given_x = static_cast<double>(n) / static_cast<double>(x_counts[key.first]);
    h -= p_xy * std::log2(p_y_given_x);
  }
  return h;
}

std::uint64_t zstd_bytes(const std::vector<std::uint8_t>& bytes, int level) {
  if (bytes.empty()) return 0;
  std::vector<unsigned char> out(ZSTD_compressBound(bytes.size()));
  const std::size_t n = ZSTD_compress(out.data(), out.size(), bytes.data(), bytes.size(), level);
  REQUIRE(!ZSTD_isError(n));
  return n;
}

// Compare level_stats of level k with the brute force, blocks of `block` boards. Returns the
// boards the nibble packing escapes.
std::uint64_t check_level(const EndgameDatabase& db, int k, std::uint32_t block, int threads) {
  const BoardIndexer& ix = db.indexer();
  std::map<std::pair<int, int>, std::uint64_t> value, value_side, excess, excess_side, value_p, value_p_side,
      no_leaving, no_leaving_side, value_class, value_class_side;
  std::uint64_t terminal = 0, without = 0, equal = 0;
  std::vector<std::uint64_t> value_counts(2 * k + 1, 0), excess_counts(2 * k + 1, 0), no_leaving_counts(2 * k + 1, 0);
  std::vector<std::uint8_t> codes;
  Board b = ix.board(k, 0);
  do {
    const BoardFacts f = facts_of(db, b, k);
    ++value[{0, f.value}];
    ++value_side[{f.side, f.value}];
    ++value_counts[f.value + k];
    // The class as the brute force sees it: 1000 terminal, 999 no leaving child, else P.
    const int cls = f.terminal ? 1000 : f.leaving ? f.p : 999;
    ++value_class[{cls, f.value}];
    ++value_class_side[{cls * 1000 + f.side, f.value}];
    int code = 0;
    if (f.terminal) {
      ++terminal;
    } else if (f.leaving) {
      REQUIRE(f.value >= f.p);
      ++excess[{0, f.value - f.p}];
      ++excess_side[{f.side, f.value - f.p}];
      ++value_p[{f.p, f.value}];
      ++value_p_side[{f.p * 1000 + f.side, f.value}];
      ++excess_counts[f.value - f.p];
      if (f.value == f.p) ++equal;
      code = (f.value - f.p) / 2;
    } else {
      ++without;
      ++no_leaving[{0, f.value}];
      ++no_leaving_side[{f.side, f.value}];
      ++no_leaving_counts[f.value + k];
      // Zigzag from the value nearest 0: 0, -2, 2, -4, ... (k even), 1, -1, 3, -3, ... (k odd).
      const int nearest = k % 2;
      code = f.value >= nearest ? f.value - nearest : nearest - f.value - 1;
    }
    codes.push_back(static_cast<std::uint8_t>(code));
  } while (ix.next(b));

  LevelStatsOptions options;
  options.threads = threads;
  options.block_entries = block;
  const LevelStats st = level_stats(db, k, options);
  CHECK(st.boards == ix.count(k));
  CHECK(st.terminal() == terminal);
  CHECK(st.no_leaving() == without);
  CHECK(st.with_leaving() == ix.count(k) - terminal - without);
  CHECK(st.value_equals_p() == equal);
  CHECK(st.value_counts() == value_counts);
  CHECK(st.excess_counts() == excess_counts);
  CHECK(st.no_leaving_value_counts() == no_leaving_counts);
  const double eps = 1e-9;
  CHECK(std::abs(st.h_value() - conditional_entropy(value)) < eps);
  CHECK(std::abs(st.h_value_given_side() - conditional_entropy(value_side)) < eps);
  CHECK(std::abs(st.h_excess() - conditional_entropy(excess)) < eps);
  CHECK(std::abs(st.h_excess_given_side() - conditional_entropy(excess_side)) < eps);
  CHECK(std::abs(st.h_value_given_p() - conditional_entropy(value_p)) < eps);
  CHECK(std::abs(st.h_value_given_p_side() - conditional_entropy(value_p_side)) < eps);
  CHECK(std::abs(st.h_value_no_leaving() - conditional_entropy(no_leaving)) < eps);
  CHECK(std::abs(st.h_value_no_leaving_given_side() - conditional_entropy(no_leaving_side)) < eps);
  CHECK(std::abs(st.h_value_given_class() - conditional_entropy(value_class)) < eps);
  CHECK(std::abs(st.h_value_given_class_side() - conditional_entropy(value_class_side)) < eps);

  // The packings, block by block.
  std::vector<std::uint64_t> code_counts(k + 1, 0);
  for (const std::uint8_t c : codes) ++code_counts[c];
  CHECK(st.code_counts() == code_counts);
  for (int bits = 1; bits <= 4; ++bits) {
    std::uint64_t escapes = 0;
    for (const std::uint8_t c : codes) escapes += c >= (1 << bits) - 1;
    CHECK(st.escapes(bits) == escapes);
  }
  // The best windows of values, found by trying every one.
  for (int bits = 1; bits <= 4; ++bits) {
    const int width = (1 << bits) - 1;
    std::map<int, std::map<int, std::uint64_t>> by_side;  // s -> value -> boards not over
    Board c = ix.board(k, 0);
    do {
      const BoardFacts f = facts_of(db, c, k);
      if (!f.terminal) ++by_side[f.side][f.value];
    } while (ix.next(c));
    std::uint64_t level_escapes = UINT64_MAX, side_escapes = 0;
    for (int lo = -k; lo <= k; lo += 2) {
      std::uint64_t outside = 0;
      for (const auto& [side, values] : by_side)
        for (const auto& [v, n] : values) outside += (v < lo || v >= lo + 2 * width) ? n : 0;
      level_escapes = std::min(level_escapes, outside);
    }
    for (const auto& [side, values] : by_side) {
      std::uint64_t best = UINT64_MAX;
      for (int lo = -k; lo <= k; lo += 2) {
        std::uint64_t outside = 0;
        for (const auto& [v, n] : values) outside += (v < lo || v >= lo + 2 * width) ? n : 0;
        best = std::min(best, outside);
      }
      side_escapes += best;
    }
    if (by_side.empty()) level_escapes = 0;
    CHECK(st.window_escapes(bits, false) == level_escapes);
    CHECK(st.window_escapes(bits, true) == side_escapes);
  }

  const std::int8_t* raw = db.level(k).data();
  std::uint64_t raw_bytes = 0, code_bytes = 0, nibble_bytes = 0, escape_bytes = 0;
  for (std::uint64_t first = 0; first < codes.size(); first += block) {
    const std::uint64_t end = std::min<std::uint64_t>(codes.size(), first + block);
    raw_bytes += zstd_bytes(std::vector<std::uint8_t>(raw + first, raw + end), 3);
    code_bytes += zstd_bytes(std::vector<std::uint8_t>(codes.begin() + first, codes.begin() + end), 3);
    std::vector<std::uint8_t> nibbles, escaped;
    for (std::uint64_t i = first; i < end; ++i) {
      const int nibble = codes[i] >= 15 ? 15 : codes[i];
      if (nibble == 15) escaped.push_back(static_cast<std::uint8_t>(raw[i]));
      if ((i - first) % 2 == 0)
        nibbles.push_back(static_cast<std::uint8_t>(nibble));
      else
        nibbles.back() = static_cast<std::uint8_t>(nibbles.back() + 16 * nibble);
    }
    nibble_bytes += zstd_bytes(nibbles, 3);
    escape_bytes += zstd_bytes(escaped, 3);
  }
  CHECK(st.raw_bytes == raw_bytes);
  CHECK(st.code_bytes == code_bytes);
  CHECK(st.nibble_bytes == nibble_bytes);
  CHECK(st.escape_bytes == escape_bytes);
  return st.escapes(4);
}

}  // namespace

TEST_CASE("level stats: equal a brute-force count, m = 2..4, every rule set", "[db][stats]") {
  std::uint64_t escapes = 0;
  for (const Rules& rules : test::all_value_rules()) {
    for (auto [m, max_k] : {std::pair{2, 24}, std::pair{3, 14}, std::pair{4, 10}}) {
      const EndgameDatabase db = EndgameDatabase::build_in_memory(m, rules, max_k, 2);
      for (int k = 0; k <= max_k; ++k) {
        INFO("m = " << m << ", level " << k << ", rules: " << rules.describe());
        // Blocks of odd length make the nibble packing's last byte half full.
        escapes += check_level(db, k, k % 2 ? 257 : 1000, k % 3 == 0 ? 1 : 2);
      }
    }
  }
  CHECK(escapes > 0);  // the escape path was taken
}

TEST_CASE("level stats: one thread equals two, without compression the sizes stay 0", "[db][stats]") {
  Rules rules;
  const EndgameDatabase db = EndgameDatabase::build_in_memory(4, rules, 10, 2);
  LevelStatsOptions one, two;
  one.threads = 1;
  two.threads = 2;
  one.block_entries = two.block_entries = 999;
  const LevelStats a = level_stats(db, 10, one), b = level_stats(db, 10, two);
  CHECK(a.joint == b.joint);
  CHECK(a.raw_bytes == b.raw_bytes);
  CHECK(a.nibble_bytes == b.nibble_bytes);
  LevelStatsOptions quick;
  quick.compress = false;
  const LevelStats c = level_stats(db, 10, quick);
  CHECK(c.joint == a.joint);
  CHECK(c.raw_bytes == 0);
  CHECK(c.code_bytes == 0);
  CHECK_THROWS_AS(level_stats(db, 11), std::invalid_argument);
}

TEST_CASE("level stats: a damaged entry is reported", "[db][stats]") {
  Rules rules;
  const BoardIndexer ix(3, 6);
  std::vector<LevelArray> levels;
  {
    const EndgameDatabase built = EndgameDatabase::build_in_memory(3, rules, 6, 1);
    for (int k = 0; k <= 6; ++k) {
      levels.emplace_back(ix.count(k));
      std::copy(built.level(k).data(), built.level(k).data() + ix.count(k), levels.back().data());
    }
  }
  levels[6][100] = static_cast<std::int8_t>(levels[6][100] + 1);  // the wrong parity
  const EndgameDatabase db(3, rules, std::move(levels));
  CHECK_THROWS_AS(level_stats(db, 6), DatabaseError);
  CHECK_NOTHROW(level_stats(db, 5));
}

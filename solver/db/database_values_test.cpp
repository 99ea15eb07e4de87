// Database values against the reference solver, every board of small boards, every rule
// option the databases support.
#include "testing/catch.hpp"

#include "solver/db/builder.hpp"
#include "solver/db/database.hpp"
#include "solver/reference/reference_solver.hpp"

using namespace kalah;

namespace {

std::vector<Rules> all_db_rules() {
  std::vector<Rules> out;
  for (Capture c : {Capture::NonEmpty, Capture::Empty})
    for (EndRule e : {EndRule::Either, EndRule::Mover}) {
      Rules r;
      r.capture = c;
      r.end = e;
      out.push_back(r);
    }
  for (EndRule e : {EndRule::Either, EndRule::Mover}) {
    Rules r;
    r.sowing = Sowing::Relay;
    r.end = e;
    out.push_back(r);
  }
  return out;
}

// Compare every board with at most max_k seeds; returns the number of mismatches.
std::uint64_t compare_with_reference(int m, const Rules& rules, int max_k, int threads) {
  const EndgameDatabase db = EndgameDatabase::build_in_memory(m, rules, max_k, threads);
  ReferenceSolver ref(m, rules);
  const BoardIndexer& ix = db.indexer();
  std::uint64_t bad = 0, checked = 0;
  for (int k = 0; k <= max_k; ++k) {
    Board b = ix.board(k, 0);
    do {
      ++checked;
      if (db.value(b) != ref.value(b)) ++bad;
    } while (ix.next(b));
  }
  CHECK(checked == ix.count_upto(max_k));
  return bad;
}

}  // namespace

TEST_CASE("db values: equal the reference solver, m = 3 and m = 4, every rule option", "[db][values]") {
  for (const Rules& rules : all_db_rules()) {
    for (auto [m, max_k] : {std::pair{3, 16}, std::pair{4, 13}}) {
      INFO("m = " << m << ", rules: " << rules.describe());
      CHECK(compare_with_reference(m, rules, max_k, 2) == 0);
    }
  }
}

TEST_CASE("db values: m = 1, 2, 5, 7 and 8, every rule option", "[db][values]") {
  for (const Rules& rules : all_db_rules()) {
    for (auto [m, max_k] : {std::pair{1, 30}, std::pair{2, 24}, std::pair{5, 8}, std::pair{7, 5}, std::pair{8, 5}}) {
      INFO("m = " << m << ", rules: " << rules.describe());
      CHECK(compare_with_reference(m, rules, max_k, 2) == 0);
    }
  }
}

TEST_CASE("db values: single thread equals two threads", "[db][values]") {
  Rules r;
  r.capture = Capture::Empty;
  const EndgameDatabase a = EndgameDatabase::build_in_memory(4, r, 12, 1);
  const EndgameDatabase b = EndgameDatabase::build_in_memory(4, r, 12, 2);
  bool same = true;
  for (int k = 0; k <= 12; ++k)
    same = same && std::equal(a.level(k).data(), a.level(k).data() + a.level(k).size(), b.level(k).data());
  CHECK(same);
}

TEST_CASE("db values: a sampled verify passes sound levels and finds a changed entry", "[db][values]") {
  const int m = 4, top = 10;
  for (const Rules& rules : all_db_rules()) {
    INFO(rules.describe());
    const EndgameDatabase db = EndgameDatabase::build_in_memory(m, rules, top, 2);
    const BoardIndexer& ix = db.indexer();
    std::vector<LevelView> views;
    for (int k = 0; k <= top; ++k) views.push_back(db.view(k));
    for (int k = 0; k <= top; ++k) CHECK(verify_level_sample(ix, rules, k, views, 2000, 7, 2) == 0);
    // Level `top` with one entry changed (by 2: a value of the right parity), sampled 20 times
    // its size over: the entry is drawn (a miss has probability e^-20) and named.
    LevelArray changed(ix.count(top));
    std::copy(db.level(top).data(), db.level(top).data() + changed.size(), changed.data());
    const std::uint64_t at = changed.size() / 3;
    changed[at] = static_cast<std::int8_t>(changed[at] + 2);
    views[top] = LevelView(changed);
    std::uint64_t first_bad = 0;
    const std::uint64_t bad = verify_level_sample(ix, rules, top, views, 20 * changed.size(), 7, 2, &first_bad);
    CHECK(bad > 0);
    CHECK(first_bad == at);
    // The draw does not depend on the threads.
    CHECK(verify_level_sample(ix, rules, top, views, 20 * changed.size(), 7, 1) == bad);
    // The full verify finds it and names it too, on any number of threads (the least of the
    // threads' first mismatches), and names no entry of a sound level.
    for (const int threads : {1, 2, 3}) {
      std::uint64_t full_first = 0;
      CHECK(verify_level(ix, rules, top, views, threads, &full_first) == 1);
      CHECK(full_first == at);
    }
    std::uint64_t none = 0;
    views[top] = db.view(top);
    CHECK(verify_level(ix, rules, top, views, 2, &none) == 0);
    CHECK(none == ~std::uint64_t(0));
  }
}

TEST_CASE("db values: early end is refused, the pie rule ignored", "[db][values]") {
  Rules r;
  r.early_end = true;
  CHECK_THROWS_AS(EndgameDatabase::build_in_memory(3, r, 4), std::invalid_argument);
  Rules pie;
  pie.pie = true;
  const EndgameDatabase db = EndgameDatabase::build_in_memory(3, pie, 6);
  ReferenceSolver ref(3, Rules{});
  Board b;
  b.cells = {1, 2, 0, 1, 1, 1};
  CHECK(db.value(b) == ref.value(b));
}

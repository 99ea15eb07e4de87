// The search commands from the command line: solve, openings, bench; JSON keys and bad input.
#include "testing/catch.hpp"

#include <algorithm>
#include <fstream>
#include <string>

#include "testing/run_cli.hpp"
#include "testing/scratch_dir.hpp"

using kalah::test::run_kalah;
using kalah::test::run_kalah_after;

namespace {

bool has_key(const std::string& json, const std::string& key) {
  return json.find("\"" + key + "\":") != std::string::npos;
}

// The integer after "key": (first occurrence).
int int_field(const std::string& json, const std::string& key) {
  const auto at = json.find("\"" + key + "\":");
  REQUIRE(at != std::string::npos);
  return std::stoi(json.substr(at + key.size() + 3));
}

int lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

}  // namespace

TEST_CASE("cli search: solve agrees with --reference and keeps the JSON keys", "[cli][search]") {
  for (const char* rules : {"--rules standard", "--rules empty-capture", "--rules bga", "--rules relay",
                            "--rules relay --end either", "--capture empty --end mover"}) {
    INFO(rules);
    const auto fast = run_kalah(std::string("solve --pits 4 --seeds 2 --tt-memory 16M --json ") + rules);
    const auto ref = run_kalah(std::string("solve --pits 4 --seeds 2 --reference --json ") + rules);
    REQUIRE(fast.exit_code == 0);
    REQUIRE(ref.exit_code == 0);
    CHECK(int_field(fast.out, "value") == int_field(ref.out, "value"));
    const auto best = [](const std::string& j) {
      return j.substr(j.find("\"best\":"), j.find("\"pv\":") - j.find("\"best\":"));
    };
    CHECK(best(fast.out) == best(ref.out));
    for (const char* key :
         {"position", "rules", "value", "result", "best", "pv", "pv_finnish", "final_position", "nodes", "seconds",
          "nodes_per_second", "threads", "passes", "table_bytes", "table_used", "db_max_seeds"})
      CHECK(has_key(fast.out, key));
  }
}

TEST_CASE("cli search: two threads by split points or busy marks give one thread's value", "[cli][search]") {
  // Kalah(5,3) empty capture without a database: split points from 4 seeds, so both ways share work.
  const std::string game = "solve --pits 5 --seeds 3 --rules empty-capture --tt-memory 16M --json ";
  const auto one = run_kalah(game + "--threads 1");
  const auto split = run_kalah(game + "--threads 2");
  const auto marks = run_kalah(game + "--threads 2 --parallel marks");
  for (const auto* r : {&one, &split, &marks}) {
    REQUIRE(r->exit_code == 0);
    CHECK(int_field(r->out, "value") == int_field(one.out, "value"));
    CHECK(has_key(r->out, "split_points"));
    CHECK(has_key(r->out, "idle_seconds"));
    CHECK(has_key(r->out, "discarded_nodes"));
  }
  CHECK(int_field(one.out, "split_points") == 0);
  CHECK(int_field(split.out, "split_points") >= 0);  // timing: a loaded machine may leave the helper no node
  CHECK(int_field(marks.out, "split_points") == 0);
  const auto text = run_kalah("solve --pits 5 --seeds 3 --rules empty-capture --tt-memory 16M --threads 2");
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("threads   2") != std::string::npos);
}

TEST_CASE("cli search: --trace-passes writes a JSON line a pass", "[cli][search]") {
  // Kalah(5,3) over a 6-seed database: the value's deepening and exact passes, then the
  // tests of the full solve; on two threads the root's tests side by side.
  const kalah::test::ScratchDir dir("trace");
  const std::string db = (dir.path / "db").string(), trace = (dir.path / "trace.jsonl").string();
  REQUIRE(run_kalah("db build --pits 5 --max-seeds 6 --out " + db).exit_code == 0);
  for (const char* threads : {"1", "2"}) {
    INFO("threads " << threads);
    const auto r = run_kalah("solve --pits 5 --seeds 3 --tt-memory 16M --json --db " + db + " --threads " + threads +
                             " --trace-passes " + trace);
    REQUIRE(r.exit_code == 0);
    std::ifstream in(trace);
    std::string line;
    int passes = 0, solver_0 = 0;
    while (std::getline(in, line)) {
      ++passes;
      for (const char* key :
           {"solver", "pass", "purpose", "seeds", "seeds_above_database", "depth", "gamma", "expected", "ordered",
            "alone", "result", "holds", "nodes", "discarded_nodes", "split_points", "seconds", "idle_seconds"})
        CHECK(has_key(line, key));
      solver_0 += line.find("\"solver\":0,") != std::string::npos;
    }
    CHECK(passes == int_field(r.out, "passes"));  // every solver's, each once
    // One thread: every pass the solver's own; two: some perhaps its test helper's (solver 1),
    // when the helper's thread took a test before the first thread took them all (timing).
    if (std::string(threads) == "1") CHECK(solver_0 == passes);
    CHECK(solver_0 > 0);
  }
  // "-": the lines go to stderr, beside the notes.
  const auto r = run_kalah("solve --pits 4 --seeds 2 --tt-memory 16M --json --trace-passes -");
  REQUIRE(r.exit_code == 0);
  CHECK(int_field(r.out, "passes") > 0);
  CHECK(lines(r.err) >= int_field(r.out, "passes"));
  CHECK(has_key(r.err, "purpose"));
}

TEST_CASE("cli search: solve --value-only gives the value and leaves out the play", "[cli][search]") {
  for (const char* where :
       {"--pits 4 --seeds 3", "--position 0,2,1,0/1,0,3,1/7/9/N", "--position 0,0,0,0/1,0,0,0/3/4/S"}) {
    INFO(where);
    const auto full = run_kalah(std::string("solve --tt-memory 16M --json ") + where);
    const auto alone = run_kalah(std::string("solve --tt-memory 16M --json --value-only ") + where);
    const auto ref = run_kalah(std::string("solve --reference --json --value-only ") + where);
    REQUIRE(alone.exit_code == 0);
    REQUIRE(ref.exit_code == 0);
    CHECK(int_field(alone.out, "value") == int_field(full.out, "value"));
    CHECK(int_field(ref.out, "value") == int_field(full.out, "value"));
    CHECK(alone.out.find("\"value_only\":true") != std::string::npos);
    CHECK(full.out.find("\"value_only\":false") != std::string::npos);
    for (const char* key : {"best", "pv", "pv_finnish", "final_position"}) {
      CHECK_FALSE(has_key(alone.out, key));
      CHECK(has_key(full.out, key));
    }
  }
  const auto text = run_kalah("solve --pits 4 --seeds 3 --tt-memory 16M --value-only");
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("value     +6") != std::string::npos);
  CHECK(text.out.find("pv ") == std::string::npos);
}

TEST_CASE("cli search: published Kalah(4,3) and Kalah(6,2) values (empty capture)", "[cli][search]") {
  const auto r43 = run_kalah("solve --pits 4 --seeds 3 --rules empty-capture --tt-memory 16M --json");
  REQUIRE(r43.exit_code == 0);
  CHECK(int_field(r43.out, "value") == 8);
  const auto r62 = run_kalah("solve --pits 6 --seeds 2 --rules empty-capture --tt-memory 16M --threads 2 --json");
  REQUIRE(r62.exit_code == 0);
  CHECK(int_field(r62.out, "value") == 10);
}

TEST_CASE("cli search: solve from a position, text output", "[cli][search]") {
  const auto r = run_kalah("solve --position 0,2,1,0/1,0,3,1/7/9/N --tt-memory 1M");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("value") != std::string::npos);
  CHECK(r.out.find("threads") != std::string::npos);
  const auto ref = run_kalah("solve --position 0,2,1,0/1,0,3,1/7/9/N --reference --json");
  const auto fast = run_kalah("solve --position 0,2,1,0/1,0,3,1/7/9/N --tt-memory 1M --json");
  CHECK(int_field(fast.out, "value") == int_field(ref.out, "value"));
}

TEST_CASE("cli search: openings JSON keys and the pie value", "[cli][search]") {
  const auto r = run_kalah("openings --pits 4 --seeds 3 --rules empty-capture --tt-memory 16M --json");
  REQUIRE(r.exit_code == 0);
  for (const char* key :
       {"value", "moves", "pit", "turns", "pits", "pie_value", "balanced", "rules", "nodes", "seconds"})
    CHECK(has_key(r.out, key));
  CHECK(int_field(r.out, "value") == 8);
  // Kalah(4,3), empty capture: first turns 1: -8, 2-1: -2, 2-3: +8, 2-4: +8, 3: 0, 4: -4
  // (checked against the reference solver below), so the pie value is 0 by opening 3.
  CHECK(int_field(r.out, "pie_value") == 0);
  CHECK(r.out.find("\"balanced\":[[3]]") != std::string::npos);
  const auto pie = run_kalah("openings --pits 4 --seeds 3 --rules empty-capture --pie --tt-memory 16M");
  REQUIRE(pie.exit_code == 0);
  CHECK(pie.out.find("pie value 0") != std::string::npos);
  // Each sowing's value equals solve on the position after it (reference solver).
  const auto after3 = run_kalah("solve --position 3,3,0,4/4,3,3,3/1/0/N --rules empty-capture --reference --json");
  REQUIRE(after3.exit_code == 0);
  CHECK(int_field(after3.out, "value") == 0);
}

TEST_CASE("cli search: bad input gives one-line errors and exit codes", "[cli][search]") {
  struct Case {
    const char* args;
    int code;
  };
  const Case cases[] = {
      {"solve --pits 4 --seeds 2 --threads -1", 2},
      {"solve --pits 4 --seeds 2 --tt-memory lots", 2},
      {"solve --pits 4 --seeds 2 --tt-above-db -1", 2},
      {"solve --pits 4 --seeds 2 --parallel sometimes", 2},
      {"solve --pits 4 --seeds 2 --near-table lots", 2},
      {"solve --pits 4 --seeds 2 --near-table -4K", 2},
      {"solve --pits 4 --seeds 2 --near-table 2T", 2},
      {"solve --pits 6 --seeds 4 --tt-memory 4T", 2},  // more than any test machine's memory
      {"solve --pits 4 --seeds 2 --frobnicate", 2},
      {"solve --position 1,2,3/4,5/0/0/S", 2},
      {"solve --pits 4 --seeds 2 --db-seeds 3", 2},
      {"solve --pits 4 --seeds 2 --db /nonexistent/kalah-db", 1},
      {"solve --pits 4 --seeds 2 --trace-passes /nonexistent/kalah-trace.jsonl", 1},
      {"openings --pits 9 --seeds 2", 2},
      {"openings --pits 4 --seeds 2 --capture sometimes", 2},
      {"bench --threads 0", 2},
      // Sizes the library cannot serve are usage errors, not failures (defect: exit 1 before).
      {"solve --pits 8 --seeds 12", 2},                                // keys wider than 63 bits
      {"solve --pits 6 --seeds 6 --tt-memory 1K", 2},                  // a table too small for exact keys
      {"openings --pits 6 --seeds 4 --tt-memory 1G --memory 64M", 2},  // table over the budget
  };
  for (const Case& c : cases) {
    INFO(c.args);
    const auto r = run_kalah(c.args);
    CHECK(r.exit_code == c.code);
    CHECK(lines(r.err) == 1);
    CHECK(r.out.empty());
  }
}

// Ctrl-C: a solve stops, prints the bounds proven so far and exits 130 (SIGINT sent by
// coreutils' timeout after a second, long before Kalah(6,4) is solved without a database).
TEST_CASE("cli search: an interrupted solve prints its bounds and exits 130", "[cli][search]") {
  for (const char* format : {"", " --json"}) {
    const auto r = run_kalah_after("timeout --preserve-status -s INT 1",
                                   std::string("solve -m 6 -n 4 -t 1 --tt-memory 64M") + format);
    INFO(r.out << r.err);
    CHECK(r.exit_code == 130);
    if (*format) {
      CHECK(r.out.find("\"interrupted\":true") != std::string::npos);
      CHECK(r.out.find("\"value\":null") != std::string::npos);
      CHECK(r.out.find("\"lower\":") != std::string::npos);
    } else {
      CHECK(r.out.find("value     between ") != std::string::npos);
      CHECK(r.out.find("interrupted") != std::string::npos);
    }
  }
  const auto o = run_kalah_after("timeout --preserve-status -s INT 1", "openings -m 6 -n 4 -t 1 --tt-memory 64M");
  CHECK(o.exit_code == 130);
  CHECK(o.out.find("interrupted") != std::string::npos);
}

// Commands that do not poll for Ctrl-C keep the default action: they end at once (here the
// bench, which runs for seconds), instead of swallowing the signal.
TEST_CASE("cli search: Ctrl-C ends commands that do not report bounds at once", "[cli][search]") {
  const auto r = run_kalah_after("timeout --preserve-status -s INT 1", "bench");
  CHECK(r.exit_code == 130);
  CHECK(r.out.find("total nodes") == std::string::npos);
}

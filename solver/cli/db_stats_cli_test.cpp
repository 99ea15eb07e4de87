// `kalah db stats` through the built binary: the JSON equals the library's statistics of the
// same levels, the text table has a row a level, and the errors (exit 1 naming the
// directory, exit 2 for usage) are one line.
#include "testing/catch.hpp"

#include <nlohmann/json.hpp>

#include "solver/db/database.hpp"
#include "solver/db/format.hpp"
#include "solver/db/level_stats.hpp"
#include "testing/run_cli.hpp"
#include "testing/scratch_dir.hpp"

using kalah::test::run_kalah;
using kalah::test::ScratchDir;

namespace {

bool one_line(const std::string& s) { return !s.empty() && s.find('\n') == s.size() - 1; }

}  // namespace

TEST_CASE("db stats cli: JSON equals the library's statistics, text has a row a level", "[db][cli]") {
  ScratchDir dir("clistats");
  const std::string d = dir.path.string();
  REQUIRE(run_kalah("db build -m 3 -S 9 --out " + d + " --rules empty-capture --threads 2").exit_code == 0);

  auto r = run_kalah("db stats --db " + d + " --levels 4..9 --json --threads 1");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["pits"] == 3);
  CHECK(j["max_seeds"] == 9);
  CHECK(j["rules"]["capture"] == "empty");
  CHECK(j["compression"] == 3);
  REQUIRE(j["levels"].size() == 6);
  const kalah::EndgameDatabase db =
      kalah::EndgameDatabase::load(dir.path, 3, kalah::Rules::preset("empty-capture"), 9, 0, false);
  for (int k = 4; k <= 9; ++k) {
    INFO("level " << k);
    const auto& l = j["levels"][k - 4];
    const kalah::LevelStats st = kalah::level_stats(db, k);
    CHECK(l["level"] == k);
    CHECK(l["boards"] == st.boards);
    CHECK(l["terminal"] == st.terminal());
    CHECK(l["no_leaving"] == st.no_leaving());
    CHECK(l["value_equals_p"] == st.value_equals_p());
    CHECK(l["h_value"].get<double>() == Approx(st.h_value()));
    CHECK(l["h_excess"].get<double>() == Approx(st.h_excess()));
    CHECK(l["h_value_given_class_side"].get<double>() == Approx(st.h_value_given_class_side()));
    CHECK(l["values"].size() == static_cast<std::size_t>(k + 1));
    CHECK(l["excess"].size() == static_cast<std::size_t>(k + 1));
    CHECK(l["raw_bytes"] == st.raw_bytes);
    CHECK(l["nibble_bytes"] == st.nibble_bytes);
    CHECK(l["escape_bytes"] == st.escape_bytes);
    CHECK(l["file_bytes"] == std::filesystem::file_size(kalah::dbfile::level_path(dir.path, k)));
  }

  r = run_kalah("db stats " + d + " --levels 7");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("level          boards") == 0);
  CHECK(r.out.find("\n    7 ") != std::string::npos);
  CHECK(r.out.find("\n    6 ") == std::string::npos);
  CHECK(r.out.find("levels       7..7 of 0..9") != std::string::npos);
  r = run_kalah("db stats --db " + d + " --no-zstd");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("\n    0 ") != std::string::npos);
  CHECK(r.out.find("\n    9 ") != std::string::npos);
  CHECK(r.out.find("not compressed") != std::string::npos);
}

TEST_CASE("db stats cli: errors are one line, exit 1 for the database, 2 for usage", "[db][cli]") {
  ScratchDir dir("clistatserr");
  const std::string d = dir.path.string();
  REQUIRE(run_kalah("db build -m 2 -S 6 --out " + d).exit_code == 0);

  auto r = run_kalah("db stats --db " + d + " --levels 3..7");
  CHECK(r.exit_code == 1);
  CHECK(one_line(r.err));
  CHECK(r.err.find("levels 3..7 asked for, the database holds levels 0..6") != std::string::npos);
  r = run_kalah("db stats --db " + d + "/missing");
  CHECK(r.exit_code == 1);
  CHECK(one_line(r.err));
  CHECK(r.err.find("missing") != std::string::npos);
  for (const std::string bad : {"--levels 5..3", "--levels x", "--levels 1..2..3", "--compression 0", "--threads -1"}) {
    INFO(bad);
    r = run_kalah("db stats --db " + d + " " + bad);
    CHECK(r.exit_code == 2);
    CHECK(one_line(r.err));
  }
  r = run_kalah("db stats");
  CHECK(r.exit_code == 2);
  CHECK(one_line(r.err));
}

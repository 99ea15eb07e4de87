// kalah label and kalah analyze from the command line: labels equal kalah openings', bad
// lines get an error object and the run goes on, an output file a stopped run left is
// continued (a torn last line cut), another input or a second run on the same file is
// refused, Ctrl-C stops with exit 130 and the next run goes on; analyze's text and JSON agree.
#include "testing/catch.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>

#include "engine/game.hpp"
#include "testing/run_cli.hpp"
#include "testing/scratch_dir.hpp"

using kalah::test::run_kalah;
using kalah::test::run_kalah_after;
using Json = nlohmann::ordered_json;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const std::filesystem::path& path, const std::string& text) { std::ofstream(path) << text; }

// A label line without what depends on the run (nodes, seconds).
Json labels(const std::string& line) {
  Json j = Json::parse(line);
  j.erase("nodes");
  j.erase("seconds");
  return j;
}

// Positions of Kalah(pits, seeds) after random play, as text.
std::vector<std::string> random_positions(int pits, int seeds, int count, unsigned seed, int min_plies = 4,
                                          int max_plies = 15) {
  std::mt19937 rng(seed);
  std::vector<std::string> out;
  while (static_cast<int>(out.size()) < count) {
    kalah::Game game(kalah::Position::start(pits, seeds), kalah::Rules{});
    const int plies = min_plies + static_cast<int>(rng() % static_cast<unsigned>(max_plies - min_plies + 1));
    for (int i = 0; i < plies && !game.over(); ++i) {
      const auto legal = game.legal_pits();
      game.sow(legal[rng() % legal.size()]);
    }
    out.push_back(game.position().to_text());
  }
  return out;
}

}  // namespace

TEST_CASE("cli label: values equal those of openings and bad lines get an error object", "[cli][label]") {
  kalah::test::ScratchDir dir("labelcli");
  const auto positions = random_positions(4, 3, 6, 3);
  std::string input = "# a comment\n\n";
  input += positions[0] + "\n";
  input += "{\"position\": \"" + positions[1] + "\", \"id\": 7}\n";
  input += "4,4,4/4,4,4/0/0/S\n";      // 3 pits: wrong size
  input += "{\"pos\": 1}\n";           // no position
  input += "9,9,9,9/9,9,9,9/0/0/S\n";  // more seeds than --seeds 3 allows
  for (std::size_t i = 2; i < positions.size(); ++i) input += "  " + positions[i] + "  \n";
  write_file(dir.path / "in.txt", input);
  // Workers sharing one table (the default), then with a table each.
  for (const std::string tables : {"", " --own-tables"}) {
    INFO("label" << tables);
    const auto r = run_kalah("label --pits 4 --seeds 3 --threads 2 --tt-memory 16M" + tables + " --in " +
                             (dir.path / "in.txt").string());
    REQUIRE(r.exit_code == 0);
    const auto out = lines_of(r.out);
    REQUIRE(out.size() == 9);
    const int expected_lines[] = {3, 4, 5, 6, 7, 8, 9, 10, 11};
    std::size_t good = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
      INFO(out[i]);
      const Json j = Json::parse(out[i]);
      CHECK(j["line"] == expected_lines[i]);
      if (i >= 2 && i <= 4) {
        CHECK(j.contains("error"));
        CHECK(j["error"].get<std::string>().find('\n') == std::string::npos);
        continue;
      }
      const std::string position = positions[good++];
      CHECK(j["position"] == position);
      const auto ref = run_kalah("openings --position " + position + " --threads 1 --json");
      REQUIRE(ref.exit_code == 0);
      const Json o = Json::parse(ref.out);
      CHECK(j["value"] == o["value"]);
      REQUIRE(j["moves"].size() == o["moves"].size());
      for (const auto& m : j["moves"]) {
        bool found = false;
        for (const auto& n : o["moves"])
          if (n["pit"] == m["pit"]) {
            CHECK(n["value"] == m["value"]);
            found = true;
          }
        CHECK(found);
      }
    }
    CHECK(Json::parse(out[2])["error"].get<std::string>().find("pits") != std::string::npos);
    CHECK(Json::parse(out[3])["error"].get<std::string>().find("position") != std::string::npos);
    CHECK(Json::parse(out[4])["error"].get<std::string>().find("seeds") != std::string::npos);
    CHECK(r.err.find("6 positions labelled, 3 errors") != std::string::npos);
  }
}

TEST_CASE("cli label: the output file a stopped run left is continued, another input or a second run is refused",
          "[cli][label]") {
  kalah::test::ScratchDir dir("labelresume");
  const auto positions = random_positions(4, 3, 12, 9);
  std::string input;
  for (const auto& p : positions) input += p + "\n";
  const auto in = (dir.path / "in.txt").string(), whole = (dir.path / "whole.jsonl").string(),
             part = (dir.path / "part.jsonl").string();
  write_file(in, input);
  const std::string label = "label --pits 4 --seeds 3 --threads 2 --tt-memory 16M --in " + in;
  REQUIRE(run_kalah(label + " --out " + whole).exit_code == 0);
  const auto expected = lines_of(read_file(whole));
  REQUIRE(expected.size() == positions.size());

  // A run stopped after 5 lines, in the middle of writing the sixth.
  std::string left;
  for (int i = 0; i < 5; ++i) left += expected[static_cast<std::size_t>(i)] + "\n";
  write_file(part, left + expected[5].substr(0, 20));
  const auto r = run_kalah(label + " --out " + part);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("torn last line") != std::string::npos);
  CHECK(r.err.find("going on from line 6") != std::string::npos);
  const auto got = lines_of(read_file(part));
  REQUIRE(got.size() == expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) CHECK(labels(got[i]) == labels(expected[i]));
  // A finished file: nothing to do, nothing written.
  REQUIRE(run_kalah(label + " --out " + part).exit_code == 0);
  CHECK(lines_of(read_file(part)).size() == expected.size());

  // Another input for the same output: refused, the file untouched.
  write_file(dir.path / "other.txt", positions[1] + "\n" + positions[0] + "\n");
  write_file(part, expected[0] + "\n");
  const auto other = run_kalah("label --pits 4 --seeds 3 --in " + (dir.path / "other.txt").string() + " --out " + part);
  CHECK(other.exit_code == 1);
  CHECK(lines_of(other.err).size() == 1);
  CHECK(other.err.find("another input") != std::string::npos);
  CHECK(read_file(part) == expected[0] + "\n");

  // A file that is not label output: refused.
  write_file(part, "hello\n");
  const auto foreign = run_kalah(label + " --out " + part);
  CHECK(foreign.exit_code == 1);
  CHECK(foreign.err.find("does not end with a kalah label line") != std::string::npos);

  // A second run on a file that one is writing: refused.
  write_file(part, "");
  const int fd = ::open(part.c_str(), O_RDWR);
  REQUIRE(fd >= 0);
  REQUIRE(::flock(fd, LOCK_EX | LOCK_NB) == 0);
  const auto busy = run_kalah(label + " --out " + part);
  ::close(fd);
  CHECK(busy.exit_code == 1);
  CHECK(busy.err.find("being written by another kalah label run") != std::string::npos);
}

TEST_CASE("cli label: Ctrl-C stops with exit 130 and the next run goes on", "[cli][label]") {
  kalah::test::ScratchDir dir("labelint");
  // Late positions of Kalah(6,4) games: many, each quick.
  const auto positions = random_positions(6, 4, 300, 21, 25, 60);
  std::string input;
  for (const auto& p : positions) input += p + "\n";
  const auto in = (dir.path / "in.txt").string(), out = (dir.path / "out.jsonl").string();
  write_file(in, input);
  const std::string label = "label --pits 6 --seeds 4 --threads 2 --tt-memory 64M --in " + in + " --out " + out;
  const auto r = run_kalah_after("timeout --preserve-status -s INT 1", label);
  if (r.exit_code == 0) {
    WARN("the whole input was labelled within 1 s: the interruption is not tested");
    return;
  }
  CHECK(r.exit_code == 130);
  CHECK(r.err.find("interrupted: run the same command again") != std::string::npos);
  const auto before = lines_of(read_file(out));
  for (std::size_t i = 0; i < before.size(); ++i) CHECK(Json::parse(before[i])["line"] == i + 1);
  const auto again = run_kalah(label);
  REQUIRE(again.exit_code == 0);
  const auto after = lines_of(read_file(out));
  REQUIRE(after.size() == positions.size());
  for (std::size_t i = 0; i < after.size(); ++i) CHECK(Json::parse(after[i])["line"] == i + 1);
}

TEST_CASE("cli label: usage and input errors get one line and the promised exit code", "[cli][label]") {
  auto r = run_kalah("label --seeds 0");
  CHECK(r.exit_code == 2);
  CHECK(lines_of(r.err).size() == 1);
  r = run_kalah("label --in /nonexistent/positions.txt");
  CHECK(r.exit_code == 1);
  CHECK(lines_of(r.err).size() == 1);
  CHECK(r.err.find("cannot open") != std::string::npos);
}

TEST_CASE("cli analyze: text and JSON agree on a game with mistakes", "[cli][analyze]") {
  const std::string game =
      "--pits 6 --seeds 3 --end mover --threads 1 45-46, 1*-5, 2-, -63*, 6-, -561646562, 4-3, 656-";
  const auto j = run_kalah("analyze --json " + game);
  REQUIRE(j.exit_code == 0);
  const Json a = Json::parse(j.out);
  REQUIRE(a["turns"].size() == 11);
  CHECK(a["margin"] == -12);
  int mistakes = 0;
  for (const auto& t : a["turns"]) mistakes += t["mistake"].get<bool>() ? 1 : 0;
  CHECK(a["mistakes"] == mistakes);
  CHECK(a["players"]["south"]["mistakes"].get<int>() + a["players"]["north"]["mistakes"].get<int>() == mistakes);
  const auto text = run_kalah("analyze " + game);
  REQUIRE(text.exit_code == 0);
  std::size_t shown = 0;
  for (std::size_t at = text.out.find("MISTAKE"); at != std::string::npos; at = text.out.find("MISTAKE", at + 1))
    ++shown;
  CHECK(shown == static_cast<std::size_t>(mistakes));
  // The record's warning, as kalah replay gives it, under its turn and counted at the end.
  const auto turn8 = text.out.find("turn 8  North  561646562");
  const auto warning =
      text.out.find("warning   turn 8 (\"561646562\"): the sowing of North pit 2 captures but is not marked '*'\n");
  CHECK(turn8 != std::string::npos);
  CHECK(warning != std::string::npos);
  CHECK(warning > turn8);
  CHECK(warning < text.out.find("turn 9  "));
  CHECK(text.out.find("warnings  1 (see above)\n") != std::string::npos);
  const auto bad = run_kalah("analyze --pits 6 --seeds 3 45-46, 7-");
  CHECK(bad.exit_code == 1);
  CHECK(lines_of(bad.err).size() == 1);
  CHECK(bad.err.find("South pit 7 does not exist") != std::string::npos);
  CHECK(run_kalah("analyze --pits 6 --seeds 3").exit_code == 2);
}

// kalah book from the command line: build, info and verify; solve, label and serve answering
// from a book what they answer without it; bad and damaged books refused with one line and
// the exit codes the README promises; Ctrl-C keeps what a build did and the build resumes.
#include "testing/catch.hpp"

#include <httplib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "testing/run_cli.hpp"
#include "testing/scratch_dir.hpp"
#include "testing/served_kalah.hpp"

using kalah::test::json_int;
using kalah::test::run_kalah;
using kalah::test::run_kalah_after;

TEST_CASE("cli book: build, info, verify, and solve/label/serve answering from it", "[cli][book]") {
  kalah::test::ScratchDir dir("bookcli");
  const std::string file = (dir.path / "k43.book").string();
  const auto built = run_kalah("book build " + file + " --pits 4 --seeds 3 --plies 4 --threads 2");
  INFO(built.err);
  REQUIRE(built.exit_code == 0);
  CHECK(built.out.find("complete  every board within 4 plies") != std::string::npos);

  const auto info = run_kalah("book info " + file + " --json");
  REQUIRE(info.exit_code == 0);
  const auto j = nlohmann::json::parse(info.out);
  CHECK(j["pits"] == 4);
  CHECK(j["seeds"] == 3);
  CHECK(j["plies"] == 4);
  CHECK(j["boards"] == 228);
  CHECK(j["rules"]["preset"] == "standard");
  const auto verified = run_kalah("book verify " + file);
  CHECK(verified.exit_code == 0);
  CHECK(verified.out.find("ply 4: 158 boards") != std::string::npos);

  // solve: the same value and best sowings, the root from the book.
  const auto with = run_kalah("solve --pits 4 --seeds 3 --json --book " + file);
  const auto without = run_kalah("solve --pits 4 --seeds 3 --json");
  REQUIRE(with.exit_code == 0);
  const auto a = nlohmann::json::parse(with.out), b = nlohmann::json::parse(without.out);
  CHECK(a["value"] == b["value"]);
  CHECK(a["best"] == b["best"]);
  CHECK(a["pv"] == b["pv"]);
  CHECK(a["book"] == file);
  CHECK(a["book_hits"].get<int>() > 0);
  CHECK(b["book"].is_null());

  // label: the start from the book, a position outside it searched; the same values.
  const std::string in = (dir.path / "in.txt").string();
  std::ofstream(in) << "3,3,3,3/3,3,3,3/0/0/S\n0,4,4,4/3,3,3,3/0/0/N\n0,0,1,5/5,4,0,4/2/3/N\n";
  const auto la = run_kalah("label --pits 4 --seeds 3 --threads 2 --in " + in + " --book " + file);
  const auto lb = run_kalah("label --pits 4 --seeds 3 --threads 2 --in " + in);
  REQUIRE(la.exit_code == 0);
  std::istringstream sa(la.out), sb(lb.out);
  std::string x, y;
  int from_book = 0, lines = 0;
  while (std::getline(sa, x) && std::getline(sb, y)) {
    const auto ja = nlohmann::json::parse(x), jb = nlohmann::json::parse(y);
    CHECK(ja["value"] == jb["value"]);
    CHECK(ja["moves"] == jb["moves"]);
    from_book += ja["from_book"].get<bool>();
    ++lines;
  }
  CHECK(lines == 3);
  CHECK(from_book >= 1);

  // serve: the start's moves come from the book.
  kalah::test::ServedKalah server("--threads 2 --tt-memory 16M --book " + file);
  INFO(server.listening());
  REQUIRE(server.port() > 0);
  CHECK(server.listening().find("book " + file) != std::string::npos);
  httplib::Client client("127.0.0.1", server.port());
  client.set_read_timeout(60, 0);
  const auto res = client.Get("/api/v1/solve?pits=4&seeds=3");
  REQUIRE(res);
  REQUIRE(res->status == 200);
  const auto s = nlohmann::json::parse(res->body);
  CHECK(s["value"] == a["value"]);
  for (const auto& m : s["moves"]) CHECK((m["source"] == "book" || m["source"] == "end"));
  const auto other = client.Get("/api/v1/solve?pits=3&seeds=3");  // another game: searched
  REQUIRE(other);
  CHECK(other->status == 200);
  const auto api = nlohmann::json::parse(client.Get("/api/v1")->body);
  CHECK(api["book"]["pits"] == 4);
}

TEST_CASE("cli book: bad, foreign and damaged books get one line and the promised exit code", "[cli][book]") {
  kalah::test::ScratchDir dir("bookcli");
  const std::string file = (dir.path / "k32.book").string();
  REQUIRE(run_kalah("book build " + file + " --pits 3 --seeds 2 --plies 3 --threads 1").exit_code == 0);
  auto one_line = [](const kalah::test::CliResult& r) {
    return !r.err.empty() && r.err.find('\n') == r.err.size() - 1;
  };
  // Without a file: kalahMN-RULES.book in the current directory.
  {
    const auto r = run_kalah("book build --pits 3 --seeds 2 --plies 1 --threads 1 --rules empty-capture");
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("kalah32-empty-capture.book") != std::string::npos);
    CHECK(std::filesystem::exists("kalah32-empty-capture.book"));
    std::filesystem::remove("kalah32-empty-capture.book");
  }
  // Usage errors: 2.
  for (const std::string& bad : std::vector<std::string>{
           "book build " + file + " --pits 3 --seeds 2", "book build " + file + " --plies -1", "book frobnicate",
           "book", "solve --pits 4 --seeds 3 --book " + file, "book build " + file + " --pits 9 --plies 2",
           "book build " + file + " --seeds 0 --plies 2"}) {
    INFO(bad);
    const auto r = run_kalah(bad);
    CHECK(r.exit_code == 2);
    CHECK(one_line(r));
  }
  // Missing, not a book, another game's, damaged: 1, the file named.
  const std::string text = (dir.path / "text.book").string();
  std::ofstream(text) << "plain text, not an SQLite database, long enough to have a header of a hundred bytes......";
  for (const std::string& bad : std::vector<std::string>{"book info " + (dir.path / "missing.book").string(),
                                                         "book info " + text, "solve --pits 3 --seeds 2 --book " + text,
                                                         "book build " + file + " --pits 3 --seeds 3 --plies 2"}) {
    INFO(bad);
    const auto r = run_kalah(bad);
    CHECK(r.exit_code == 1);
    CHECK(one_line(r));
    CHECK(r.err.find(dir.path.string()) != std::string::npos);
  }
  // An entry's value changed in place (the page rewritten by SQLite's own tools would keep
  // the format valid): verify finds it.
  {
    const std::string sql = "UPDATE board SET value = value + 2 WHERE ply = 3;";
    const std::string cmd =
        "python3 -c \"import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2]); "
        "c.commit()\" " +
        file + " '" + sql + "'";
    REQUIRE(std::system(cmd.c_str()) == 0);
  }
  const auto damaged = run_kalah("book verify " + file);
  CHECK(damaged.exit_code == 1);
  CHECK(damaged.err.find("fails its checksum") != std::string::npos);
  CHECK(one_line(damaged));
}

TEST_CASE("cli book: Ctrl-C keeps what a build did, and the same command resumes it", "[cli][book]") {
  kalah::test::ScratchDir dir("bookcli");
  const std::string file = (dir.path / "k44.book").string();
  const std::string build = "book build " + file + " --pits 4 --seeds 4 --plies 5 --threads 2 --tt-memory 64M";
  // Stopped after a second: a machine fast enough to finish first is fine too.
  const auto stopped = run_kalah_after("timeout --preserve-status -s INT 1", build);
  INFO(stopped.out + stopped.err);
  REQUIRE((stopped.exit_code == 130 || stopped.exit_code == 0));
  if (stopped.exit_code == 130) {
    CHECK(stopped.out.find("run the same command to resume") != std::string::npos);
    const auto info = run_kalah("book info " + file + " --json");
    REQUIRE(info.exit_code == 0);
    CHECK(nlohmann::json::parse(info.out)["plies"] == -1);
  }
  const auto resumed = run_kalah(build);
  REQUIRE(resumed.exit_code == 0);
  CHECK(resumed.out.find("complete  every board within 5 plies") != std::string::npos);
  const auto fresh_file = (dir.path / "fresh.book").string();
  REQUIRE(
      run_kalah("book build " + fresh_file + " --pits 4 --seeds 4 --plies 5 --threads 2 --tt-memory 64M").exit_code ==
      0);
  const auto a = nlohmann::json::parse(run_kalah("book verify " + file + " --json").out);
  const auto b = nlohmann::json::parse(run_kalah("book verify " + fresh_file + " --json").out);
  CHECK(a["boards_by_ply"] == b["boards_by_ply"]);
}

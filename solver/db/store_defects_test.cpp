// Database store: a build that runs out of disk (free space checked before a level is
// computed; a failed write leaves no temporary file), a path that is not a directory, and two
// builds into one directory at once (a lock).
#include "testing/catch.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>

#include "solver/db/database.hpp"
#include "solver/db/format.hpp"
#include "solver/db/store.hpp"
#include "testing/run_cli.hpp"
#include "testing/scratch_dir.hpp"

using namespace kalah;
using kalah::test::run_kalah;
using kalah::test::run_kalah_after;
using kalah::test::ScratchDir;

namespace {

bool one_line(const std::string& s) { return !s.empty() && s.find('\n') == s.size() - 1; }

// The last line of stderr (a build prints what it is about to do first).
std::string last_line(const std::string& err) {
  if (err.size() < 2) return err;
  const auto at = err.rfind('\n', err.size() - 2);
  return at == std::string::npos ? err : err.substr(at + 1);
}

std::vector<std::string> tmp_files(const std::filesystem::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".tmp") out.push_back(e.path().filename().string());
  return out;
}

DbBuildOptions options(int m, int s) {
  DbBuildOptions o;
  o.pits = m;
  o.max_seeds = s;
  o.threads = 2;
  return o;
}

}  // namespace

TEST_CASE("db store: too little free space refuses a level before computing it", "[db][store]") {
  ScratchDir dir("nospace");
  REQUIRE_NOTHROW(build_database(dir.path, options(4, 10)));
  std::vector<std::vector<char>> before;
  for (int k = 0; k <= 10; ++k) before.push_back(test::read_bytes(dbfile::level_path(dir.path, k)));

  // Extend to 12 seeds on a "full" disk: 1000 bytes free.
  DbBuildOptions o = options(4, 12);
  std::vector<std::filesystem::path> asked;
  o.free_bytes = [&](const std::filesystem::path& p) {
    asked.push_back(p);
    return std::uint64_t(1000);
  };
  bool computed = false;
  DbBuildEvents ev;
  ev.progress = [&](int k, std::uint64_t, std::uint64_t) { computed = computed || k > 10; };
  ev.level_done = [&](int, double, std::uint64_t) { computed = true; };
  std::string error;
  try {
    build_database(dir.path, o, ev);
  } catch (const DatabaseError& e) {
    error = e.what();
  }
  INFO(error);
  CHECK(error.find(dir.path.string()) != std::string::npos);
  CHECK(error.find("level 11") != std::string::npos);
  CHECK(error.find("needs about") != std::string::npos);
  CHECK(error.find("1000 bytes") != std::string::npos);
  CHECK(!computed);
  REQUIRE(asked.size() == 1);
  CHECK(asked[0] == dir.path);
  CHECK(tmp_files(dir.path).empty());
  CHECK(!std::filesystem::exists(dbfile::level_path(dir.path, 11)));
  for (int k = 0; k <= 10; ++k) CHECK(test::read_bytes(dbfile::level_path(dir.path, k)) == before[k]);
  CHECK(EndgameDatabase::load(dir.path, 4, Rules{}).max_seeds() == 10);

  // Enough room: the same build goes through.
  o.free_bytes = [](const std::filesystem::path&) { return std::uint64_t(1) << 40; };
  const DbBuildSummary sum = build_database(dir.path, o);
  CHECK(sum.levels_built == 2);
  CHECK(sum.levels_reused == 11);
}

TEST_CASE("db store: the free-space estimate covers every level and stays below the worst case", "[db][store]") {
  ScratchDir dir("estimate");
  build_database(dir.path, options(5, 14));
  const BoardIndexer ix(5, 14);
  const auto levels = scan_database(dir.path);
  REQUIRE(levels.size() == 15);
  for (int k = 0; k <= 14; ++k) {
    INFO("level " << k);
    const std::uint64_t first_guess = level_bytes_estimate(ix.count(k), 0, 0);
    CHECK(first_guess >= levels[k].bytes);
    if (k > 0) {
      const std::uint64_t est = level_bytes_estimate(ix.count(k), ix.count(k - 1), levels[k - 1].bytes);
      CHECK(est >= levels[k].bytes);
      CHECK(est <= first_guess);
    }
  }
  // A large level is estimated from the level below, far under the worst case.
  CHECK(level_bytes_estimate(100'000'000, 60'000'000, 24'000'000) < 80'000'000);
}

TEST_CASE("db store: a level write that fails (file size limit) leaves no temporary file", "[db][store][cli]") {
  ScratchDir dir("efbig");
  const std::string d = dir.path.string();
  // At most 64 blocks (32 or 64 KiB, depending on the shell) for any file: the build fails
  // with EFBIG on the first level that is larger (SIGXFSZ ignored).
  const auto r = run_kalah_after("trap \"\" XFSZ; ulimit -f 64;", "db build -m 4 -S 16 --threads 2 --out " + d);
  INFO(r.err);
  CHECK(r.exit_code == 1);
  REQUIRE(!r.err.empty());
  const std::string last = last_line(r.err);
  CHECK(one_line(last));
  std::smatch m;
  REQUIRE(std::regex_search(last, m, std::regex(d + "/level-0(\\d\\d)\\.kdb\\.tmp: write failed: ")));
  const int failed = std::stoi(m[1]);
  CHECK(failed > 5);
  CHECK(tmp_files(dir.path).empty());
  CHECK(!std::filesystem::exists(dbfile::level_path(dir.path, failed)));
  // The manifest lists the complete levels and the build's target: an incomplete database,
  // never one that looks finished and smaller.
  CHECK(std::filesystem::exists(dir.path / "manifest.json"));

  // The complete levels before it are intact: info shows them (incomplete), verify passes,
  // solve says so, a build reuses them.
  auto info = run_kalah("db info " + d);
  CHECK(info.exit_code == 0);
  CHECK(info.out.find("levels       0.." + std::to_string(failed - 1) + "\n") != std::string::npos);
  CHECK(info.out.find("incomplete") != std::string::npos);
  CHECK(info.out.find("0..16") != std::string::npos);
  const auto solve = run_kalah("solve --pits 4 --seeds 2 --tt-memory 16M --db " + d);
  CHECK(solve.exit_code == 0);
  CHECK(solve.err.find("incomplete") != std::string::npos);
  CHECK(run_kalah("db verify " + d).exit_code == 0);
  const auto again = run_kalah("db build -m 4 -S " + std::to_string(failed) + " --out " + d);
  CHECK(again.exit_code == 0);
  CHECK(again.out.find("1 built, " + std::to_string(failed) + " reused") != std::string::npos);
}

TEST_CASE("db store: an incomplete database of other pits and rules names the command that finishes it",
          "[db][store][cli]") {
  // The defaults (6 pits, standard rules) are another database's: `db info` and a solve's note
  // spell every option out (no capture rule with relay sowing, which refuses one), the command
  // they give finishes the build, and a build with the defaults is refused with a pointer to
  // `db info`.
  struct Case {
    std::string rules, spelled;
  };
  for (const auto& [rules, spelled] :
       {Case{"--rules empty-capture --end mover", "--sowing kalah --capture empty --end mover"},
        Case{"--rules relay --no-early-end", "--sowing relay --end mover"}}) {
    INFO(rules);
    ScratchDir dir("finish");
    const std::string d = dir.path.string();
    const auto r =
        run_kalah_after("trap \"\" XFSZ; ulimit -f 64;", "db build -m 4 -S 16 " + rules + " --threads 2 --out " + d);
    REQUIRE(r.exit_code == 1);
    const std::string command = "db build --pits 4 --max-seeds 16 --out " + d + " " + spelled;
    const auto info = run_kalah("db info " + d);
    CHECK(info.exit_code == 0);
    CHECK(info.out.find("finish it with: kalah " + command + "\n") != std::string::npos);
    const auto solve = run_kalah("solve --pits 4 --seeds 2 " + rules + " --tt-memory 16M --db " + d);
    CHECK(solve.exit_code == 0);
    CHECK(solve.err.find("(its build stopped part way: kalah " + command + " finishes it)") != std::string::npos);
    const auto defaults = run_kalah("db build --max-seeds 16 --out " + d);
    CHECK(defaults.exit_code == 1);
    CHECK(last_line(defaults.err).find("(kalah db info shows them)") != std::string::npos);
    const auto finish = run_kalah(command);
    INFO(finish.err);
    CHECK(finish.exit_code == 0);
    const auto done = run_kalah("db info " + d);
    CHECK(done.out.find("levels       0..16\n") != std::string::npos);
    CHECK(done.out.find("incomplete") == std::string::npos);
    CHECK(run_kalah("db verify " + d).exit_code == 0);
  }
}

TEST_CASE("db store: a path that is not a directory is named as such", "[db][store][cli]") {
  ScratchDir dir("notdir");
  const std::filesystem::path file = dir.path / "plain-file";
  test::write_bytes(file, std::vector<char>(100, 'x'));
  const std::string f = file.string();

  for (const std::string& cmd :
       {"db info " + f, "db info " + f + " --json", "db verify " + f, "db probe " + f + " --position 1,1,1/1,1,1/0/0/S",
        "solve -m 3 -n 1 --db " + f, "db build -m 3 -S 4 --out " + f}) {
    INFO(cmd);
    const auto r = run_kalah(cmd);
    INFO(r.err);
    CHECK(r.exit_code == 1);
    CHECK(one_line(cmd.rfind("db build", 0) == 0 ? last_line(r.err) : r.err));
    CHECK(last_line(r.err).find(f + ": not a directory") != std::string::npos);
    CHECK(r.err.find("missing") == std::string::npos);
  }
  // Nothing there at all: "missing".
  const std::string nothing = (dir.path / "nothing").string();
  for (const std::string& cmd : {"db info " + nothing, "db verify " + nothing, "solve -m 3 -n 1 --db " + nothing,
                                 "db probe " + nothing + " --position 1,1,1/1,1,1/0/0/S"}) {
    INFO(cmd);
    const auto r = run_kalah(cmd);
    CHECK(r.exit_code == 1);
    CHECK(r.err.find(nothing + ": missing") != std::string::npos);
  }
  CHECK_THROWS_WITH(EndgameDatabase::load(file, 3, Rules{}), Catch::Contains("not a directory"));
  CHECK_THROWS_WITH(EndgameDatabase::load(file, 3, Rules{}, 2), Catch::Contains("not a directory"));
  CHECK_THROWS_WITH(scan_database(file), Catch::Contains("not a directory"));
}

TEST_CASE("db store: a second build into a locked directory is refused at once", "[db][store][cli]") {
  ScratchDir dir("lock");
  const std::string d = dir.path.string();
  // The "other build": holds the lock, has its pid in the lock file and a level being written.
  const int fd = ::open((dir.path / ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  REQUIRE(fd >= 0);
  REQUIRE(::flock(fd, LOCK_EX | LOCK_NB) == 0);
  const std::string pid = std::to_string(::getpid());
  REQUIRE(::write(fd, (pid + "\n").data(), pid.size() + 1) == static_cast<ssize_t>(pid.size() + 1));
  const auto partial = dir.path / "level-000.kdb.tmp";
  test::write_bytes(partial, std::vector<char>(10, 'x'));

  auto r = run_kalah("db build -m 3 -S 6 --out " + d);
  INFO(r.err);
  CHECK(r.exit_code == 1);
  const std::string last = last_line(r.err);
  CHECK(last.find(d + ": another kalah db build is running in this directory") != std::string::npos);
  CHECK(last.find("pid " + pid) != std::string::npos);
  CHECK(std::filesystem::exists(partial));  // the other build's file is left alone
  CHECK(!std::filesystem::exists(dbfile::level_path(dir.path, 0)));
  CHECK_THROWS_WITH(build_database(dir.path, options(3, 6)), Catch::Contains("another kalah db build"));

  ::close(fd);  // the other build ends
  r = run_kalah("db build -m 3 -S 6 --out " + d);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("7 built, 0 reused") != std::string::npos);
  CHECK(!std::filesystem::exists(partial));
  // The lock is released when a build ends: another one runs.
  CHECK(run_kalah("db build -m 3 -S 6 --out " + d).exit_code == 0);
}

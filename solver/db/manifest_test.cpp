// The manifest of a database directory: what a build produced. A missing top level (or a
// dangling link, or a replaced file) is reported instead of loading a smaller database; a
// damaged manifest is detected; a directory without one (built before manifests) loads as
// before; an extension rewrites it.
#include "testing/catch.hpp"

#include "solver/base/program_version.hpp"
#include "solver/db/database.hpp"
#include "solver/db/format.hpp"
#include "solver/db/manifest.hpp"
#include "solver/db/store.hpp"
#include "testing/run_cli.hpp"
#include "testing/scratch_dir.hpp"

using namespace kalah;
using kalah::test::run_kalah;
using kalah::test::ScratchDir;

namespace {

bool one_line(const std::string& s) { return !s.empty() && s.find('\n') == s.size() - 1; }

DbBuildSummary build(const std::filesystem::path& dir, int m, int s) {
  DbBuildOptions o;
  o.pits = m;
  o.max_seeds = s;
  o.threads = 2;
  return build_database(dir, o);
}

std::string load_error(const std::filesystem::path& dir, int m, int max_seeds = -1) {
  try {
    (void)EndgameDatabase::load(dir, m, Rules{}, max_seeds);
  } catch (const DatabaseError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("db manifest: a build records every level file", "[db][manifest]") {
  ScratchDir dir("manifest");
  build(dir.path, 3, 10);
  const auto m = read_manifest(dir.path);
  REQUIRE(m.has_value());
  CHECK(m->format_version == dbfile::kVersion);
  CHECK(m->pits == 3);
  CHECK(m->rules == Rules{});
  REQUIRE(m->max_seeds() == 10);
  for (int k = 0; k <= 10; ++k) {
    const auto file = dbfile::level_path(dir.path, k);
    std::uint32_t crc = 0;
    dbfile::read_header(file, &crc);
    CHECK(m->levels[k].level == k);
    CHECK(m->levels[k].bytes == std::filesystem::file_size(file));
    CHECK(m->levels[k].header_crc == crc);
  }
  const DbScan scan = inspect_database(dir.path);
  CHECK(scan.has_manifest);
  CHECK(scan.levels.size() == 11);
  CHECK(scan.unused_levels.empty());
  CHECK(!std::filesystem::exists(dir.path / "manifest.json.tmp"));
}

TEST_CASE("db manifest: a missing top level is reported, not a smaller database", "[db][manifest][cli]") {
  ScratchDir dir("manifesttop");
  const std::string d = dir.path.string();
  build(dir.path, 3, 10);
  const auto top = dbfile::level_path(dir.path, 10);
  const auto saved = test::read_bytes(top);
  std::filesystem::remove(top);

  SECTION("the file removed") {}
  SECTION("a dangling symbolic link in its place") {
    std::filesystem::create_symlink(dir.path / "gone" / "level-010.kdb", top);
  }
  const std::string e = load_error(dir.path, 3);
  CHECK(e.find("level-010.kdb: missing") != std::string::npos);
  CHECK(load_error(dir.path, 3, 4).find("level-010.kdb: missing") != std::string::npos);
  CHECK_THROWS_WITH(scan_database(dir.path), Catch::Contains("level-010.kdb: missing"));
  for (const std::string& cmd : {"db info " + d, "db info --json " + d, "db verify " + d,
                                 "db probe " + d + " --position 1,1,1/1,0,0/0/0/S", "solve -m 3 -n 1 --db " + d}) {
    INFO(cmd);
    const auto r = run_kalah(cmd);
    CHECK(r.exit_code == 1);
    CHECK(one_line(r.err));
    CHECK(r.err.find("level-010.kdb: missing") != std::string::npos);
  }
  // A build puts the level back.
  std::filesystem::remove(top);
  CHECK(build(dir.path, 3, 10).levels_built == 1);
  CHECK(test::read_bytes(top) == saved);
  CHECK(load_error(dir.path, 3) == "");
}

TEST_CASE("db manifest: a level file that differs from the manifest is reported", "[db][manifest]") {
  ScratchDir dir("manifestdiff");
  build(dir.path, 3, 9);
  // Level 5 rewritten with one entry changed (valid checksums of its own).
  LevelArray lv = dbfile::read_level(dir.path, 3, Rules{}, 5);
  lv[17] = static_cast<std::int8_t>(lv[17] + 1);
  dbfile::write_level(dir.path, 3, Rules{}, 5, lv);
  const std::string e = load_error(dir.path, 3);
  CHECK(e.find("level-005.kdb") != std::string::npos);
  CHECK(e.find("manifest.json") != std::string::npos);
  CHECK(load_error(dir.path, 3, 2).find("level-005.kdb") != std::string::npos);
}

TEST_CASE("db manifest: a damaged manifest is detected", "[db][manifest][cli]") {
  ScratchDir dir("manifestflip");
  build(dir.path, 3, 6);
  const auto file = manifest_path(dir.path);
  const auto original = test::read_bytes(file);
  const DbManifest before = *read_manifest(dir.path);
  // Every single flipped byte: not JSON any more, or the checksum no longer matches.
  for (std::size_t at = 0; at < original.size(); ++at) {
    INFO("byte " << at);
    test::flip_byte(file, at);
    const std::string e = load_error(dir.path, 3);
    CHECK(e.find("manifest.json") != std::string::npos);
    CHECK(e.find("damaged") != std::string::npos);
    test::write_bytes(file, original);
  }
  // A plausible edit (another file size) with valid JSON.
  std::string text(original.begin(), original.end());
  const auto at = text.find("\"bytes\": ");
  REQUIRE(at != std::string::npos);
  text.insert(at + 9, "1");
  test::write_bytes(file, std::vector<char>(text.begin(), text.end()));
  CHECK(load_error(dir.path, 3).find("checksum mismatch") != std::string::npos);
  const auto r = run_kalah("db info " + dir.path.string());
  CHECK(r.exit_code == 1);
  CHECK(one_line(r.err));
  CHECK(r.err.find("manifest.json: damaged manifest (checksum mismatch)") != std::string::npos);
  // A build rewrites it, with every level as before; which program computed them was in the
  // damaged manifest only, and is not recorded any more.
  CHECK(build(dir.path, 3, 6).levels_built == 0);
  const DbManifest after = *read_manifest(dir.path);
  REQUIRE(after.max_seeds() == before.max_seeds());
  for (int k = 0; k <= before.max_seeds(); ++k) {
    CHECK(after.levels[k].bytes == before.levels[k].bytes);
    CHECK(after.levels[k].header_crc == before.levels[k].header_crc);
    CHECK(before.levels[k].program == program_version());
    CHECK(after.levels[k].program.empty());
  }
}

TEST_CASE("db manifest: a directory without one loads as before", "[db][manifest][cli]") {
  ScratchDir dir("manifestlegacy");
  const std::string d = dir.path.string();
  build(dir.path, 3, 8);
  std::filesystem::remove(manifest_path(dir.path));
  CHECK(load_error(dir.path, 3) == "");
  CHECK(EndgameDatabase::load(dir.path, 3, Rules{}).max_seeds() == 8);
  CHECK(!inspect_database(dir.path).has_manifest);
  auto r = run_kalah("db info " + d);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("manifest     none") != std::string::npos);
  CHECK(r.out.find("kalah db build --pits 3 --max-seeds 8 --out " + d) != std::string::npos);
  r = run_kalah("db info --json " + d);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("\"manifest\":false") != std::string::npos);
  CHECK(run_kalah("db verify " + d).exit_code == 0);
  CHECK(run_kalah("solve -m 3 -n 1 --db " + d).exit_code == 0);
  // The build that info suggests adds one, reusing every level.
  r = run_kalah("db build --pits 3 --max-seeds 8 --out " + d + " --sowing kalah --capture nonempty --end either");
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("0 built, 9 reused") != std::string::npos);
  CHECK(inspect_database(dir.path).has_manifest);
}

TEST_CASE("db manifest: an extension rewrites it; levels above it are not used", "[db][manifest][cli]") {
  ScratchDir dir("manifestext");
  const std::string d = dir.path.string();
  build(dir.path, 3, 8);
  CHECK(read_manifest(dir.path)->max_seeds() == 8);
  const DbBuildSummary sum = build(dir.path, 3, 10);
  CHECK(sum.levels_reused == 9);
  CHECK(sum.levels_built == 2);
  const auto m = read_manifest(dir.path);
  REQUIRE(m->max_seeds() == 10);
  CHECK(m->levels[10].bytes == std::filesystem::file_size(dbfile::level_path(dir.path, 10)));
  CHECK(EndgameDatabase::load(dir.path, 3, Rules{}).max_seeds() == 10);

  // A build to fewer seeds keeps the levels above in the manifest.
  CHECK(build(dir.path, 3, 6).levels_built == 0);
  CHECK(read_manifest(dir.path)->max_seeds() == 10);

  // An interrupted extension to 12: level 11 written, the manifest still the old one.
  const auto old_manifest = test::read_bytes(manifest_path(dir.path));
  build(dir.path, 3, 12);
  test::write_bytes(manifest_path(dir.path), old_manifest);
  std::filesystem::remove(dbfile::level_path(dir.path, 12));
  const DbScan scan = inspect_database(dir.path);
  CHECK(scan.levels.size() == 11);
  CHECK(scan.unused_levels == std::vector<int>{11});
  CHECK(EndgameDatabase::load(dir.path, 3, Rules{}).max_seeds() == 10);
  CHECK(load_error(dir.path, 3, 11).find("holds levels 0..10") != std::string::npos);
  auto r = run_kalah("db info " + d);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("levels       0..10\n") != std::string::npos);
  CHECK(r.out.find("unused       level 11") != std::string::npos);
  r = run_kalah("db info --json " + d);
  CHECK(r.out.find("\"unused_levels\":[11]") != std::string::npos);
  // Completing the extension lists them.
  CHECK(build(dir.path, 3, 12).levels_built == 1);
  CHECK(read_manifest(dir.path)->max_seeds() == 12);
  CHECK(inspect_database(dir.path).unused_levels.empty());
}

TEST_CASE("db manifest: each level names the program that computed it; reused levels keep theirs",
          "[db][manifest][cli]") {
  ScratchDir dir("manifestprog");
  const std::string d = dir.path.string();
  build(dir.path, 3, 6);
  DbManifest m = *read_manifest(dir.path);
  for (const auto& l : m.levels) CHECK(l.program == program_version());
  // As an earlier kalah left it: levels 0..3 by one program, 4..6 not recorded (a manifest
  // written before programs were: the key absent, read as empty).
  for (int k = 0; k <= 6; ++k) m.levels[k].program = k <= 3 ? "earlier-build" : "";
  write_manifest(dir.path, m);
  const std::vector<char> text = test::read_bytes(manifest_path(dir.path));
  CHECK(std::string(text.begin(), text.end()).find("\"program\": \"earlier-build\"") != std::string::npos);
  CHECK(inspect_database(dir.path).levels[5].program.empty());
  // An extension reuses 0..6 with their records and computes 7 and 8.
  CHECK(build(dir.path, 3, 8).levels_built == 2);
  m = *read_manifest(dir.path);
  for (int k = 0; k <= 8; ++k) {
    INFO("level " << k);
    CHECK(m.levels[k].program == (k <= 3 ? "earlier-build" : k <= 6 ? "" : program_version()));
  }
  auto r = run_kalah("db info " + d);
  CHECK(r.out.find("built by     earlier-build (levels 0..3), not recorded (levels 4..6), " +
                   std::string(program_version()) + " (levels 7..8)\n") != std::string::npos);
  r = run_kalah("db info --json " + d);
  CHECK(r.out.find("\"program\":\"earlier-build\"") != std::string::npos);
  CHECK(r.out.find("\"program\":null") != std::string::npos);
  // A level file replaced by another (its header no longer the one recorded) loses the record.
  m.levels[2].header_crc ^= 1;
  write_manifest(dir.path, m);
  build(dir.path, 3, 8);
  CHECK(read_manifest(dir.path)->levels[2].program.empty());
  CHECK(read_manifest(dir.path)->levels[1].program == "earlier-build");
}

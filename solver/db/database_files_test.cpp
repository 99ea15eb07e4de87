// Database files and directories: round trip, damage detection with a message naming the
// file and the problem, rules and pit mismatches, resumed builds, memory refusal.
#include "testing/catch.hpp"

#include <fstream>

#include "solver/db/database.hpp"
#include "solver/db/format.hpp"
#include "solver/db/manifest.hpp"
#include "solver/db/store.hpp"
#include "testing/scratch_dir.hpp"

using namespace kalah;
using kalah::test::ScratchDir;

namespace {

Rules empty_capture() {
  Rules r;
  r.capture = Capture::Empty;
  return r;
}

DbBuildSummary build(const std::filesystem::path& dir, int m, int s, const Rules& r = empty_capture()) {
  DbBuildOptions o;
  o.pits = m;
  o.max_seeds = s;
  o.rules = r;
  o.threads = 2;
  return build_database(dir, o);
}

bool same_levels(const EndgameDatabase& a, const EndgameDatabase& b) {
  if (a.max_seeds() != b.max_seeds()) return false;
  for (int k = 0; k <= a.max_seeds(); ++k)
    if (!std::equal(a.level(k).data(), a.level(k).data() + a.level(k).size(), b.level(k).data())) return false;
  return true;
}

// The DatabaseError message of loading dir, or "" when it loads.
std::string load_error(const std::filesystem::path& dir, int m, const Rules& r, int max_seeds = -1) {
  try {
    (void)EndgameDatabase::load(dir, m, r, max_seeds);
  } catch (const DatabaseError& e) {
    return e.what();
  }
  return "";
}

std::vector<std::vector<char>> all_files(const std::filesystem::path& dir, int s) {
  std::vector<std::vector<char>> out;
  for (int k = 0; k <= s; ++k) out.push_back(test::read_bytes(dbfile::level_path(dir, k)));
  return out;
}

}  // namespace

TEST_CASE("db files: a packed load holds the values of the 1-byte load", "[db][files][packed]") {
  ScratchDir dir("packed-load");
  build(dir.path, 4, 12);
  const EndgameDatabase bytes = EndgameDatabase::load(dir.path, 4, empty_capture());
  for (int width : {0, 2, 4}) {
    const EndgameDatabase packed = EndgameDatabase::load(dir.path, 4, empty_capture(), -1, 0, true, {}, width, 2);
    REQUIRE(packed.packed());
    CHECK(packed.max_seeds() == 12);
    CHECK(packed.memory_bytes() < bytes.memory_bytes());
    std::uint64_t bad = 0;
    for (int k = 0; k <= 12; ++k) {
      Board b = bytes.indexer().board(k, 0);
      do {
        packed.prefetch(b, k);
        if (packed.value(b) != bytes.value(b)) ++bad;
      } while (bytes.indexer().next(b));
    }
    CHECK(bad == 0);
  }
  // The memory limit counts 4.2 bits a board when packing: a limit the 1-byte levels exceed
  // and the packed ones meet.
  const std::uint64_t packed_need = packed_bytes_estimate(bytes.indexer(), 12);
  CHECK(EndgameDatabase::load(dir.path, 4, empty_capture(), -1, packed_need, true, {}, 0).max_seeds() == 12);
  CHECK(load_error(dir.path, 4, empty_capture()).empty());
  CHECK_THROWS_AS(EndgameDatabase::load(dir.path, 4, empty_capture(), -1, packed_need), DatabaseError);
}

TEST_CASE("db files: round trip equals the in-memory build", "[db][files]") {
  ScratchDir dir("roundtrip");
  const DbBuildSummary sum = build(dir.path, 4, 12);
  CHECK(sum.levels_built == 13);
  CHECK(sum.positions == BoardIndexer(4, 12).count_upto(12));
  const EndgameDatabase mem = EndgameDatabase::build_in_memory(4, empty_capture(), 12);
  const EndgameDatabase disk = EndgameDatabase::load(dir.path, 4, empty_capture());
  CHECK(disk.max_seeds() == 12);
  CHECK(same_levels(mem, disk));
  const EndgameDatabase part = EndgameDatabase::load(dir.path, 4, empty_capture(), 7);
  CHECK(part.max_seeds() == 7);
  // Early end and the pie rule do not change values: such rules load the same files.
  Rules bga_like = empty_capture();
  bga_like.early_end = true;
  bga_like.pie = true;
  CHECK(load_error(dir.path, 4, bga_like) == "");
  const auto levels = scan_database(dir.path);
  CHECK(levels.size() == 13);
  CHECK(levels[12].header.entries == BoardIndexer(4, 12).count(12));
}

TEST_CASE("db files: damage is detected and named", "[db][files]") {
  ScratchDir dir("damage");
  build(dir.path, 3, 14);
  const auto f = dbfile::level_path(dir.path, 14);
  const auto original = test::read_bytes(f);
  REQUIRE(original.size() > 200);
  auto restore = [&] { test::write_bytes(f, original); };

  SECTION("truncation") {
    auto b = original;
    b.resize(b.size() - 7);
    test::write_bytes(f, b);
    const std::string e = load_error(dir.path, 3, empty_capture());
    CHECK(e.find("level-014.kdb") != std::string::npos);
    CHECK(e.find("truncated") != std::string::npos);
    b.resize(40);
    test::write_bytes(f, b);
    CHECK(load_error(dir.path, 3, empty_capture()).find("truncated") != std::string::npos);
  }
  SECTION("a flipped byte in a block") {
    test::flip_byte(f, original.size() - 5);
    const std::string e = load_error(dir.path, 3, empty_capture());
    CHECK(e.find("level-014.kdb") != std::string::npos);
    CHECK(e.find("corrupt") != std::string::npos);
  }
  SECTION("a flipped byte in the block table") {
    test::flip_byte(f, dbfile::kHeaderSize + 9);
    CHECK(load_error(dir.path, 3, empty_capture()).find("block table checksum") != std::string::npos);
  }
  SECTION("a flipped byte in the header") {
    test::flip_byte(f, 25);
    CHECK(load_error(dir.path, 3, empty_capture()).find("header checksum") != std::string::npos);
  }
  SECTION("a wrong header (magic)") {
    test::flip_byte(f, 2);
    const std::string e = load_error(dir.path, 3, empty_capture());
    CHECK(e.find("level-014.kdb") != std::string::npos);
    CHECK(e.find("bad magic") != std::string::npos);
  }
  SECTION("a missing level") {
    const auto level9 = dbfile::level_path(dir.path, 9);
    const auto saved = test::read_bytes(level9);
    std::filesystem::remove(level9);
    CHECK(load_error(dir.path, 3, empty_capture(), 14).find("level-009.kdb: missing") != std::string::npos);
    // Loading "every level" must not silently stop at the gap either.
    const std::string e = load_error(dir.path, 3, empty_capture());
    CHECK(e.find("level-009.kdb: missing, but higher levels exist") != std::string::npos);
    test::write_bytes(level9, saved);
  }
  SECTION("a level that is not a regular file") {
    const auto level2 = dbfile::level_path(dir.path, 2);
    const auto saved = test::read_bytes(level2);
    std::filesystem::remove(level2);
    std::filesystem::create_directory(level2);
    CHECK(load_error(dir.path, 3, empty_capture()).find("level-002.kdb: not a regular file") != std::string::npos);
    std::filesystem::remove(level2);
    test::write_bytes(level2, saved);
  }
  SECTION("a missing directory") {
    CHECK(load_error(dir.path / "nope", 3, empty_capture()).find("missing") != std::string::npos);
  }
  restore();
  CHECK(load_error(dir.path, 3, empty_capture()) == "");
}

TEST_CASE("db files: rules and pit mismatches are refused", "[db][files]") {
  ScratchDir dir("mismatch");
  build(dir.path, 3, 6);
  const std::string rules_error = load_error(dir.path, 3, Rules{});  // nonempty capture
  CHECK(rules_error.find("level-000.kdb") != std::string::npos);
  CHECK(rules_error.find("different values") != std::string::npos);
  Rules mover = empty_capture();
  mover.end = EndRule::Mover;
  CHECK(load_error(dir.path, 3, mover).find("different values") != std::string::npos);
  CHECK(load_error(dir.path, 4, empty_capture()).find("pits") != std::string::npos);
  // A build into a directory holding another database is refused, not overwritten.
  CHECK_THROWS_WITH(build(dir.path, 3, 6, Rules{}), Catch::Contains("another database"));
  CHECK(load_error(dir.path, 3, empty_capture()) == "");
}

TEST_CASE("db files: a resumed build is identical", "[db][files]") {
  ScratchDir dir("resume");
  const int s = 13;
  build(dir.path, 4, s);
  const auto reference = all_files(dir.path, s);

  // Interrupted while writing level 12: its temporary file is left, levels 12 and 13 missing.
  std::filesystem::remove(dbfile::level_path(dir.path, 13));
  std::filesystem::remove(dbfile::level_path(dir.path, 12));
  auto partial = dbfile::level_path(dir.path, 12);
  partial += ".tmp";
  test::write_bytes(partial, std::vector<char>(1000, 'x'));
  // And a damaged middle level (a flipped byte, as after a torn write).
  const auto mid = dbfile::level_path(dir.path, 7);
  test::flip_byte(mid, test::read_bytes(mid).size() - 3);

  std::vector<std::string> notes;
  DbBuildOptions o;
  o.pits = 4;
  o.max_seeds = s;
  o.rules = empty_capture();
  o.threads = 1;
  DbBuildEvents ev;
  ev.note = [&](const std::string& n) { notes.push_back(n); };
  const DbBuildSummary sum = build_database(dir.path, o, ev);
  CHECK(sum.levels_built == 3);  // 7, 12, 13
  CHECK(sum.levels_reused == s + 1 - 3);
  CHECK(!std::filesystem::exists(partial));
  CHECK(all_files(dir.path, s) == reference);
  bool mentioned_rebuild = false;
  for (const auto& n : notes)
    mentioned_rebuild = mentioned_rebuild || n.find("rebuilding level 7") != std::string::npos;
  CHECK(mentioned_rebuild);
}

TEST_CASE("db files: memory limit and early end are refused up front", "[db][files]") {
  ScratchDir dir("limits");
  DbBuildOptions o;
  o.pits = 6;
  o.max_seeds = 20;
  o.memory_limit = std::uint64_t(100) << 20;
  CHECK_THROWS_WITH(build_database(dir.path, o), Catch::Contains("needs") && Catch::Contains("over the limit"));
  CHECK(!std::filesystem::exists(dbfile::level_path(dir.path, 0)));
  o.max_seeds = 4;
  o.memory_limit = 0;
  o.rules.early_end = true;
  CHECK_THROWS_WITH(build_database(dir.path, o), Catch::Contains("depend on the"));
  CHECK(db_memory_needed(6, 24) > BoardIndexer(6, 24).count_upto(24));
}

TEST_CASE("db files: --format auto keeps a directory's format, else takes the first that fits", "[db][files]") {
  ScratchDir dir("auto-format");
  const int m = 4, s = 10;
  const std::uint64_t one = db_memory_needed(m, s, dbfile::kVersion);
  const std::uint64_t two = db_memory_needed(m, s, dbfile::kPackedVersion);
  const std::uint64_t three = db_memory_needed(m, s, dbfile::kPairedVersion);
  REQUIRE(three < two);
  REQUIRE(two < one);
  // A new directory: the first format whose need fits (0: no limit).
  CHECK(db_format_for(dir.path, m, s, 0) == dbfile::kVersion);
  CHECK(db_format_for(dir.path, m, s, one) == dbfile::kVersion);
  CHECK(db_format_for(dir.path, m, s, one - 1) == dbfile::kPackedVersion);
  CHECK(db_format_for(dir.path, m, s, two - 1) == dbfile::kPairedVersion);
  CHECK(db_format_for(dir.path, m, s, three - 1) == dbfile::kPairedVersion);  // nothing fits: the least need
  // A build asking for no format gets that choice, and a later one keeps it.
  DbBuildOptions o;
  o.pits = m;
  o.max_seeds = s;
  o.threads = 2;
  o.format = DbBuildOptions::kChooseFormat;
  o.memory_limit = two - 1;
  REQUIRE(build_database(dir.path, o).levels_built == s + 1);
  CHECK(read_manifest(dir.path)->format_version == dbfile::kPairedVersion);
  CHECK(db_format_for(dir.path, m, s, 0) == dbfile::kPairedVersion);
  o.memory_limit = 0;
  o.max_seeds = s + 1;  // grown, not converted
  const DbBuildSummary grown = build_database(dir.path, o);
  CHECK(grown.levels_reused == s + 1);
  CHECK(grown.levels_built == 1);
  CHECK(read_manifest(dir.path)->format_version == dbfile::kPairedVersion);
  CHECK(db_format_for(dir.path, 3, 8, 0) == dbfile::kVersion);  // another pit count's manifest: not this build's
  // A directory of format 1 keeps it while it fits, and gives way to a format that fits.
  ScratchDir bytes_dir("auto-format-1");
  o.memory_limit = 0;
  o.max_seeds = s;
  REQUIRE(build_database(bytes_dir.path, o).levels_built == s + 1);
  CHECK(read_manifest(bytes_dir.path)->format_version == dbfile::kVersion);
  CHECK(db_format_for(bytes_dir.path, m, s, one) == dbfile::kVersion);
  CHECK(db_format_for(bytes_dir.path, m, s, two - 1) == dbfile::kPairedVersion);
  // A manifest that cannot be read counts as none.
  std::ofstream(manifest_path(dir.path), std::ios::trunc) << "{ not json";
  CHECK(db_format_for(dir.path, m, s, 0) == dbfile::kVersion);
}

// Format-2 (packed) database files: a packed build holds the values of a one-byte build (m =
// 2..6, every rule set), loads packed or unpacked, verifies, converts to and from format 1
// byte for byte, resumes, and damage is detected and named like version 1's.
#include "testing/catch.hpp"

#include <functional>

#include "solver/db/database.hpp"
#include "solver/db/format.hpp"
#include "solver/db/manifest.hpp"
#include "solver/db/raw_cache.hpp"
#include "solver/db/store.hpp"
#include "testing/database_files.hpp"
#include "testing/packed_level_access.hpp"
#include "testing/rule_sets.hpp"
#include "testing/scratch_dir.hpp"

using namespace kalah;
using kalah::test::ScratchDir;

namespace {

DbBuildSummary build(const std::filesystem::path& dir, int m, int s, const Rules& r, std::uint32_t format) {
  return test::build_db(dir, m, s, r, format);
}
std::uint64_t differences(const EndgameDatabase& a, const EndgameDatabase& b) { return test::value_differences(a, b); }

bool same_files(const std::filesystem::path& a, const std::filesystem::path& b, int s) {
  return test::same_level_files(a, b, s);
}

}  // namespace

TEST_CASE("packed files: a format-2 build holds the values of a format-1 build, m = 2..6, every rule set",
          "[db][files][packed]") {
  const int max_seeds[] = {0, 0, 14, 11, 9, 8, 8};
  for (const Rules& rules : test::all_value_rules()) {
    for (int m = 2; m <= 6; ++m) {
      CAPTURE(rules.describe(), m);
      ScratchDir bytes_dir("p1"), packed_dir("p2");
      build(bytes_dir.path, m, max_seeds[m], rules, dbfile::kVersion);
      build(packed_dir.path, m, max_seeds[m], rules, dbfile::kPackedVersion);
      for (const DbLevelInfo& l : scan_database(packed_dir.path)) {
        CHECK(l.header.version == dbfile::kPackedVersion);
        if (l.header.entries >= 4096) CHECK(l.header.bits_per_board() < 5);  // small levels are mostly weights
      }
      const EndgameDatabase reference = EndgameDatabase::load(bytes_dir.path, m, rules, -1, 0, false);
      const EndgameDatabase filed = EndgameDatabase::load(packed_dir.path, m, rules, -1, 0, false, {}, 0, 2);
      const EndgameDatabase unpacked = EndgameDatabase::load(packed_dir.path, m, rules, -1, 0, false);
      REQUIRE(filed.packed());
      REQUIRE_FALSE(unpacked.packed());
      CHECK(differences(reference, filed) == 0);
      CHECK(differences(reference, unpacked) == 0);
      CHECK(verify_database(packed_dir.path, 2).positions == reference.entries());
    }
  }
}

TEST_CASE("packed files: converting between formats gives the files a direct build gives", "[db][files][packed]") {
  const Rules rules;
  ScratchDir one("c1"), two("c2"), converted("cc");
  build(one.path, 4, 11, rules, dbfile::kVersion);
  build(two.path, 4, 11, rules, dbfile::kPackedVersion);
  build(converted.path, 4, 11, rules, dbfile::kVersion);
  DbBuildSummary s = build(converted.path, 4, 11, rules, dbfile::kPackedVersion);
  CHECK(s.levels_built == 0);
  CHECK(s.levels_reused == 12);
  CHECK(same_files(converted.path, two.path, 11));
  CHECK(read_manifest(converted.path)->format_version == dbfile::kPackedVersion);
  s = build(converted.path, 4, 11, rules, dbfile::kVersion);
  CHECK(s.levels_built == 0);
  CHECK(same_files(converted.path, one.path, 11));
  CHECK(read_manifest(converted.path)->format_version == dbfile::kVersion);

  // A packed build extended from 8 to 11 seeds reuses 0..8 and equals the direct build.
  ScratchDir grown("cg");
  build(grown.path, 4, 8, rules, dbfile::kPackedVersion);
  s = build(grown.path, 4, 11, rules, dbfile::kPackedVersion);
  CHECK(s.levels_reused == 9);
  CHECK(s.levels_built == 3);
  CHECK(same_files(grown.path, two.path, 11));
}

TEST_CASE("packed files: damage is detected and named", "[db][files][packed]") {
  Rules rules;
  rules.capture = Capture::Empty;
  ScratchDir dir("pdamage");
  build(dir.path, 3, 14, rules, dbfile::kPackedVersion);
  const auto f = dbfile::level_path(dir.path, 14);
  const auto original = test::read_bytes(f);
  REQUIRE(original.size() > 400);
  auto restore = [&] { test::write_bytes(f, original); };
  for (int width : {-1, 0}) {  // loaded unpacked and packed
    CAPTURE(width);
    auto b = original;
    b.resize(b.size() - 7);
    test::write_bytes(f, b);
    std::string e = test::load_error(dir.path, 3, rules, width);
    CHECK(e.find("level-014.kdb") != std::string::npos);
    CHECK(e.find("truncated") != std::string::npos);
    b.resize(100);  // inside the packed header
    test::write_bytes(f, b);
    CHECK(test::load_error(dir.path, 3, rules, width).find("truncated") != std::string::npos);
    restore();

    test::flip_byte(f, original.size() - 5);  // a block
    e = test::load_error(dir.path, 3, rules, width);
    CHECK(e.find("level-014.kdb") != std::string::npos);
    CHECK(e.find("corrupt") != std::string::npos);
    restore();

    test::flip_byte(f, dbfile::kHeaderSize + 17);
    CHECK(test::load_error(dir.path, 3, rules, width).find("packed header checksum") != std::string::npos);
    restore();

    test::flip_byte(f, dbfile::kPackedHeaderSize + 9);
    CHECK(test::load_error(dir.path, 3, rules, width).find("block table checksum") != std::string::npos);
    restore();

    test::flip_byte(f, 25);
    CHECK(test::load_error(dir.path, 3, rules, width).find("header checksum") != std::string::npos);
    restore();
    CHECK(test::load_error(dir.path, 3, rules, width) == "");
  }

  {  // an image whose checksums hold but whose exception offsets do not add up
    const BoardIndexer ix(3, 14);
    PackedLevel p = dbfile::read_packed_level(dir.path, 3, rules, 14);
    REQUIRE(p.lines() > 1);
    PackedLevelAccess::lines(p)[1 * PackedLevel::kLineWords] ^= std::uint64_t(1) << 8;  // line 1's first exception
    ScratchDir other("pimage");
    dbfile::write_packed_level(other.path, 3, rules, p);
    try {
      (void)dbfile::read_packed_level(other.path, 3, rules, 14);
      FAIL("an inconsistent image was read");
    } catch (const DatabaseError& e) {
      CHECK(std::string(e.what()).find("level-014.kdb: corrupt packed image") != std::string::npos);
    }
  }
}

TEST_CASE("packed files: a packed load writes packed raw caches, maps them next time, and notes a damaged one",
          "[db][files][packed][cache]") {
  Rules rules;
  ScratchDir dir("pcache"), reference_dir("pcache-ref");
  build(dir.path, 4, 11, rules, dbfile::kPackedVersion);
  build(reference_dir.path, 4, 11, rules, dbfile::kVersion);
  const EndgameDatabase reference = EndgameDatabase::load(reference_dir.path, 4, rules, -1, 0, false);
  std::vector<std::string> notes;
  auto load = [&] {
    return EndgameDatabase::load(
        dir.path, 4, rules, -1, 0, true, [&](const std::string& s) { notes.push_back(s); }, 0, 2);
  };
  const EndgameDatabase first = load();
  CHECK(notes.empty());
  for (int k = 0; k <= 11; ++k) {
    CHECK(std::filesystem::exists(dbfile::packed_raw_path(dir.path, k)));
    CHECK_FALSE(first.packed_level(k).mapped());
  }
  CHECK(differences(reference, first) == 0);
  const EndgameDatabase second = load();
  CHECK(notes.empty());
  for (int k = 0; k <= 11; ++k) CHECK(second.packed_level(k).mapped());
  CHECK(second.mapped_bytes() == second.memory_bytes());
  CHECK(differences(reference, second) == 0);

  // A private copy of the mapped packed levels (PackedLevel::make_private): the caches read and
  // kept, nothing mapped, the same bytes and values.
  const EndgameDatabase own = EndgameDatabase::load(
      dir.path, 4, rules, -1, 0, true, [&](const std::string& s) { notes.push_back(s); }, 0, 2, true);
  CHECK(notes.empty());
  for (int k = 0; k <= 11; ++k) {
    CHECK_FALSE(own.packed_level(k).mapped());
    CHECK(std::filesystem::exists(dbfile::packed_raw_path(dir.path, k)));
  }
  CHECK(own.mapped_bytes() == 0);
  CHECK(own.memory_bytes() == second.memory_bytes());
  CHECK(differences(reference, own) == 0);

  // A damaged cache: noted, the level file read instead, the cache rewritten.
  const auto cache11 = dbfile::packed_raw_path(dir.path, 11);
  test::flip_byte(cache11, dbfile::kRawHeaderSize + 100);  // in the lines
  const EndgameDatabase third = load();
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].find("level-011.praw: data checksum mismatch") != std::string::npos);
  CHECK_FALSE(third.packed_level(11).mapped());
  CHECK(differences(reference, third) == 0);
  notes.clear();
  CHECK(load().packed_level(11).mapped());
  CHECK(notes.empty());

  // A cache of another level file (rewritten at another compression) is not used, silently.
  const EndgameDatabase fresh = EndgameDatabase::load(dir.path, 4, rules, -1, 0, false, {}, 0);
  dbfile::write_packed_level(dir.path, 4, rules, fresh.packed_level(11), 2, 9);
  std::filesystem::remove(dir.path / "manifest.json");  // the manifest records the old file
  const EndgameDatabase fourth = load();
  CHECK(notes.empty());
  CHECK_FALSE(fourth.packed_level(11).mapped());
  CHECK(differences(reference, fourth) == 0);
  // Loaded one byte a board, a format-2 database keeps its own raw caches (level-KKK.raw).
  const EndgameDatabase bytes = EndgameDatabase::load(dir.path, 4, rules, -1, 0, true);
  CHECK(std::filesystem::exists(dbfile::raw_path(dir.path, 11)));
  CHECK(differences(reference, bytes) == 0);
}

TEST_CASE("packed files: levels of several blocks, and a mixed-format directory", "[db][files][packed]") {
  const Rules rules;
  ScratchDir one("mb1"), two("mb2");
  build(one.path, 6, 15, rules, dbfile::kVersion);
  build(two.path, 6, 15, rules, dbfile::kPackedVersion);
  const std::vector<DbLevelInfo> levels = scan_database(two.path);
  CHECK(levels[15].header.blocks >= 3);  // blocks cut through lines and across the image's parts
  const EndgameDatabase reference = EndgameDatabase::load(one.path, 6, rules, -1, 0, false);
  CHECK(differences(reference, EndgameDatabase::load(two.path, 6, rules, -1, 0, false, {}, 0)) == 0);
  CHECK(differences(reference, EndgameDatabase::load(two.path, 6, rules, -1, 0, false)) == 0);

  // A format-2 build to 9 seeds on a format-1 database of 15: levels 0..9 converted, 10..15
  // kept as they are (and in the manifest); every layout reads the same values.
  build(one.path, 6, 9, rules, dbfile::kPackedVersion);
  const DbScan scan = inspect_database(one.path);
  REQUIRE(scan.max_seeds() == 15);
  CHECK(scan.levels[9].header.version == dbfile::kPackedVersion);
  CHECK(scan.levels[10].header.version == dbfile::kVersion);
  CHECK(differences(reference, EndgameDatabase::load(one.path, 6, rules, -1, 0, false, {}, 0)) == 0);
  CHECK(differences(reference, EndgameDatabase::load(one.path, 6, rules, -1, 0, false)) == 0);
  CHECK(verify_database(one.path, 2).max_seeds == 15);
}

TEST_CASE("packed files: images whose checksums hold but whose content is inconsistent are refused",
          "[db][files][packed]") {
  const Rules rules;
  ScratchDir dir("pimage2");
  build(dir.path, 4, 13, rules, dbfile::kPackedVersion);
  auto refused = [&](const std::function<void(PackedLevel&)>& tamper, const std::string& what) {
    PackedLevel p = dbfile::read_packed_level(dir.path, 4, rules, 13);
    tamper(p);
    ScratchDir other("pimage3");
    dbfile::write_packed_level(other.path, 4, rules, p);
    try {
      (void)dbfile::read_packed_level(other.path, 4, rules, 13);
    } catch (const DatabaseError& e) {
      CHECK(std::string(e.what()).find(what) != std::string::npos);
      return;
    }
    FAIL("an inconsistent image was read: " << what);
  };
  {
    const PackedLevel p = dbfile::read_packed_level(dir.path, 4, rules, 13);
    REQUIRE(p.group_first().size() >= 2);
    REQUIRE(p.exceptions() > 0);
  }
  refused([](PackedLevel& p) { PackedLevelAccess::group_first(p)[1] += 1; }, "exception offsets do not add up");
  refused([](PackedLevel& p) { PackedLevelAccess::group_first(p)[0] = 1; }, "corrupt packed image");
  refused([](PackedLevel& p) { PackedLevelAccess::exceptions(p)[0] = 100; }, "out of range");
  // Anywhere in the exceptions (each group's check takes an equal share, the last the rest),
  // and before a wrong offset (the order of the checks).
  refused([](PackedLevel& p) { PackedLevelAccess::exceptions(p)[p.exceptions() / 2] = -100; }, "out of range");
  refused([](PackedLevel& p) { PackedLevelAccess::exceptions(p)[p.exceptions() - 1] = 100; }, "out of range");
  refused(
      [](PackedLevel& p) {
        PackedLevelAccess::exceptions(p)[p.exceptions() - 1] = 100;
        PackedLevelAccess::group_first(p)[1] += 1;
      },
      "out of range");
}

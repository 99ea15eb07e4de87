// Format-3 database files (levels packed by sublevel pairs): a format-3 build holds the values
// of a one-byte build (m = 2..6, every rule set), loads packed by pairs or unpacked, verifies,
// converts to and from formats 1 and 2 byte for byte, resumes, and damage is detected and named.
#include "testing/catch.hpp"

#include <algorithm>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "solver/db/crc32c.hpp"
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

// The file offsets at which this process maps `file` (from /proc/self/maps; empty where it
// maps none, or where there is no /proc).
std::vector<std::uint64_t> mapped_offsets(const std::filesystem::path& file) {
  const std::string want = std::filesystem::weakly_canonical(file).string();
  std::vector<std::uint64_t> out;
  std::ifstream maps("/proc/self/maps");
  std::string range, perms, offset, device, inode, path;
  while (maps >> range >> perms >> offset >> device >> inode) {
    std::getline(maps, path);
    path.erase(0, path.find_first_not_of(' '));
    if (path == want) out.push_back(std::stoull(offset, nullptr, 16));
  }
  return out;
}

}  // namespace

TEST_CASE("paired files: a format-3 build holds the values of a format-1 build, m = 2..6, every rule set",
          "[db][files][paired]") {
  const int max_seeds[] = {0, 0, 14, 11, 9, 8, 8};
  for (const Rules& rules : test::all_value_rules()) {
    for (int m = 2; m <= 6; ++m) {
      CAPTURE(rules.describe(), m);
      ScratchDir bytes_dir("q1"), paired_dir("q3");
      test::build_db(bytes_dir.path, m, max_seeds[m], rules, dbfile::kVersion);
      test::build_db(paired_dir.path, m, max_seeds[m], rules, dbfile::kPairedVersion);
      for (const DbLevelInfo& l : scan_database(paired_dir.path)) {
        CHECK(l.header.version == dbfile::kPairedVersion);
        CHECK(static_cast<int>(l.header.pairs.size()) == l.level / 2 + 1);
        if (l.header.entries >= 65536) CHECK(l.header.bits_per_board() < 5);  // small levels are mostly weights
      }
      const EndgameDatabase reference = EndgameDatabase::load(bytes_dir.path, m, rules, -1, 0, false);
      const EndgameDatabase filed = EndgameDatabase::load(paired_dir.path, m, rules, -1, 0, false, {}, 0, 2);
      const EndgameDatabase unpacked = EndgameDatabase::load(paired_dir.path, m, rules, -1, 0, false);
      REQUIRE(filed.packed());
      for (int k = 0; k <= max_seeds[m]; ++k) CHECK(filed.paired_level(k).complete());
      REQUIRE_FALSE(unpacked.packed());
      CHECK(test::value_differences(reference, filed) == 0);
      CHECK(test::value_differences(reference, unpacked) == 0);
      CHECK(verify_database(paired_dir.path, 2).positions == reference.entries());
    }
  }
}

TEST_CASE("paired files: converting between formats gives the files a direct build gives", "[db][files][paired]") {
  const Rules rules;
  ScratchDir one("d1"), two("d2"), three("d3"), converted("dc");
  test::build_db(one.path, 4, 11, rules, dbfile::kVersion);
  test::build_db(two.path, 4, 11, rules, dbfile::kPackedVersion);
  test::build_db(three.path, 4, 11, rules, dbfile::kPairedVersion);
  test::build_db(converted.path, 4, 11, rules, dbfile::kVersion);
  for (const std::uint32_t format :
       {dbfile::kPairedVersion, dbfile::kPackedVersion, dbfile::kPairedVersion, dbfile::kVersion}) {
    CAPTURE(format);
    const DbBuildSummary s = test::build_db(converted.path, 4, 11, rules, format);
    CHECK(s.levels_built == 0);
    CHECK(s.levels_reused == 12);
    const std::filesystem::path& direct = format == dbfile::kVersion         ? one.path
                                          : format == dbfile::kPackedVersion ? two.path
                                                                             : three.path;
    CHECK(test::same_level_files(converted.path, direct, 11));
    CHECK(read_manifest(converted.path)->format_version == format);
  }

  // A format-3 build extended from 8 to 11 seeds reuses 0..8 and equals the direct build.
  ScratchDir grown("dg");
  test::build_db(grown.path, 4, 8, rules, dbfile::kPairedVersion);
  const DbBuildSummary s = test::build_db(grown.path, 4, 11, rules, dbfile::kPairedVersion);
  CHECK(s.levels_reused == 9);
  CHECK(s.levels_built == 3);
  CHECK(test::same_level_files(grown.path, three.path, 11));
}

TEST_CASE("paired files: damage is detected and named", "[db][files][paired]") {
  Rules rules;
  rules.capture = Capture::Empty;
  ScratchDir dir("qdamage");
  test::build_db(dir.path, 3, 14, rules, dbfile::kPairedVersion);
  const auto f = dbfile::level_path(dir.path, 14);
  const auto original = test::read_bytes(f);
  const std::size_t header = dbfile::kHeaderSize + 64 * 8;  // level 14: pairs 0..7
  REQUIRE(original.size() > header + 400);
  auto restore = [&] { test::write_bytes(f, original); };
  for (int width : {-1, 0}) {  // loaded unpacked and packed
    CAPTURE(width);
    auto b = original;
    b.resize(b.size() - 7);
    test::write_bytes(f, b);
    std::string e = test::load_error(dir.path, 3, rules, width);
    CHECK(e.find("level-014.kdb") != std::string::npos);
    CHECK(e.find("truncated") != std::string::npos);
    b.resize(300);  // inside the pairs' headers
    test::write_bytes(f, b);
    CHECK(test::load_error(dir.path, 3, rules, width).find("truncated") != std::string::npos);
    restore();

    test::flip_byte(f, original.size() - 5);  // a block
    e = test::load_error(dir.path, 3, rules, width);
    CHECK(e.find("level-014.kdb") != std::string::npos);
    CHECK(e.find("corrupt") != std::string::npos);
    restore();

    test::flip_byte(f, dbfile::kHeaderSize + 64 * 5 + 17);
    CHECK(test::load_error(dir.path, 3, rules, width).find("header of pair 5 checksum mismatch") != std::string::npos);
    restore();

    test::flip_byte(f, header + 9);
    CHECK(test::load_error(dir.path, 3, rules, width).find("block table checksum") != std::string::npos);
    restore();

    test::flip_byte(f, 25);
    CHECK(test::load_error(dir.path, 3, rules, width).find("header checksum") != std::string::npos);
    restore();
    CHECK(test::load_error(dir.path, 3, rules, width) == "");
  }

  {  // a pair's image whose checksums hold but whose exception offsets do not add up
    const PairedLevel level = dbfile::read_paired_level(dir.path, 3, rules, 14);
    PairedLevel tampered(3, 14);
    for (int p = 0; p < level.pairs(); ++p) {
      PackedLevel pair = PackedLevel::with_shape(level.range(p), level.pair(p).shape());
      const auto from = level.pair(p).image();
      const auto to = pair.image_for_filling();
      for (std::size_t i = 0; i < from.size(); ++i) std::memcpy(to[i].data(), from[i].data(), from[i].size());
      if (p == 3) {
        REQUIRE(pair.exceptions() > 0);
        PackedLevelAccess::exceptions(pair)[0] = 100;
      }
      tampered.add_pair(std::move(pair));
    }
    ScratchDir other("qimage");
    dbfile::write_paired_level(other.path, 3, rules, tampered);
    try {
      (void)dbfile::read_paired_level(other.path, 3, rules, 14);
      FAIL("an inconsistent image was read");
    } catch (const DatabaseError& e) {
      CHECK(std::string(e.what()).find("level-014.kdb: corrupt packed image of pair 3") != std::string::npos);
    }
  }
}

TEST_CASE("paired files: levels of several blocks, and a mixed-format directory", "[db][files][paired]") {
  const Rules rules;
  ScratchDir one("qb1"), three("qb3");
  test::build_db(one.path, 6, 15, rules, dbfile::kVersion);
  test::build_db(three.path, 6, 15, rules, dbfile::kPairedVersion);
  const std::vector<DbLevelInfo> levels = scan_database(three.path);
  CHECK(levels[15].header.blocks >= 3);  // blocks cut through lines, arrays and pairs
  const EndgameDatabase reference = EndgameDatabase::load(one.path, 6, rules, -1, 0, false);
  CHECK(test::value_differences(reference, EndgameDatabase::load(three.path, 6, rules, -1, 0, false, {}, 0)) == 0);
  CHECK(test::value_differences(reference, EndgameDatabase::load(three.path, 6, rules, -1, 0, false)) == 0);
  // Packed at another width: repacked in index order.
  CHECK(test::value_differences(reference, EndgameDatabase::load(three.path, 6, rules, -1, 0, false, {}, 3)) == 0);

  // A format-3 build to 9 seeds on a format-1 database of 15: levels 0..9 converted, 10..15
  // kept; every layout reads the same values, and the mixed database verifies.
  test::build_db(one.path, 6, 9, rules, dbfile::kPairedVersion);
  const DbScan scan = inspect_database(one.path);
  REQUIRE(scan.max_seeds() == 15);
  CHECK(scan.levels[9].header.version == dbfile::kPairedVersion);
  CHECK(scan.levels[10].header.version == dbfile::kVersion);
  CHECK(test::value_differences(reference, EndgameDatabase::load(one.path, 6, rules, -1, 0, false, {}, 0)) == 0);
  CHECK(test::value_differences(reference, EndgameDatabase::load(one.path, 6, rules, -1, 0, false)) == 0);
  CHECK(verify_database(one.path, 2).max_seeds == 15);
}

TEST_CASE("paired files: a packed load writes paired raw caches, maps them next time, and notes a damaged one",
          "[db][files][paired][cache]") {
  const Rules rules;
  ScratchDir dir("qcache"), reference_dir("qcache-ref");
  test::build_db(dir.path, 5, 12, rules, dbfile::kPairedVersion);
  test::build_db(reference_dir.path, 5, 12, rules, dbfile::kVersion);
  const EndgameDatabase reference = EndgameDatabase::load(reference_dir.path, 5, rules, -1, 0, false);
  std::vector<std::string> notes;
  auto load = [&] {
    return EndgameDatabase::load(
        dir.path, 5, rules, -1, 0, true, [&](const std::string& s) { notes.push_back(s); }, 0, 2);
  };
  const EndgameDatabase first = load();
  CHECK(notes.empty());
  for (int k = 0; k <= 12; ++k) {
    CHECK(std::filesystem::exists(dbfile::packed_raw_path(dir.path, k)));
    CHECK_FALSE(first.paired_level(k).mapped());
  }
  CHECK(test::value_differences(reference, first) == 0);
  const EndgameDatabase second = load();
  CHECK(notes.empty());
  for (int k = 0; k <= 12; ++k) CHECK(second.paired_level(k).mapped());
  CHECK(second.mapped_bytes() == second.memory_bytes());
  // Each cache file is mapped from its first byte, the header's page kept with the first pair
  // (docs/db-format.md, "Huge pages": a page unmapped splits its huge page).
  if (std::filesystem::exists("/proc/self/maps")) {
    for (int k = 0; k <= 12; ++k) {
      CAPTURE(k);
      const std::vector<std::uint64_t> at = mapped_offsets(dbfile::packed_raw_path(dir.path, k));
      CHECK(std::find(at.begin(), at.end(), 0) != at.end());
    }
  }
  CHECK(test::value_differences(reference, second) == 0);
  // A private copy: the caches read, nothing mapped, the same values.
  const EndgameDatabase own = EndgameDatabase::load(
      dir.path, 5, rules, -1, 0, true, [&](const std::string& s) { notes.push_back(s); }, 0, 2, true);
  CHECK(notes.empty());
  for (int k = 0; k <= 12; ++k) CHECK_FALSE(own.paired_level(k).mapped());
  CHECK(own.mapped_bytes() == 0);
  CHECK(test::value_differences(reference, own) == 0);

  // Damage in a pair's lines, in the padding between pairs and in the last pair's tail: each
  // noted, the level file read instead, the cache rewritten and mapped next time.
  const auto cache12 = dbfile::packed_raw_path(dir.path, 12);
  const auto size = std::filesystem::file_size(cache12);
  // Pair 1's lines start where the cache header's entry for it says (offset 64 + 56 + 32);
  // the byte before is padding after pair 0's tail.
  std::uint64_t pair1_lines = 0;
  {
    const auto head = test::read_bytes(cache12);
    std::memcpy(&pair1_lines, head.data() + 64 + 56 + 32, 8);
    REQUIRE(pair1_lines % dbfile::kRawHeaderSize == 0);
  }
  for (const std::size_t at :
       {std::size_t(dbfile::kRawHeaderSize + 100), std::size_t(pair1_lines - 1), std::size_t(size - 3)}) {
    CAPTURE(at);
    notes.clear();
    test::flip_byte(cache12, at);
    const EndgameDatabase damaged = load();
    REQUIRE(notes.size() == 1);
    CHECK(notes[0].find("level-012.praw: data checksum mismatch") != std::string::npos);
    CHECK_FALSE(damaged.paired_level(12).mapped());
    CHECK(test::value_differences(reference, damaged) == 0);
    notes.clear();
    CHECK(load().paired_level(12).mapped());
    CHECK(notes.empty());
  }
  // Loaded one byte a board, a format-3 database keeps one-byte raw caches (level-KKK.raw).
  const EndgameDatabase bytes = EndgameDatabase::load(dir.path, 5, rules, -1, 0, true);
  CHECK(std::filesystem::exists(dbfile::raw_path(dir.path, 12)));
  CHECK(test::value_differences(reference, bytes) == 0);
}

namespace {

// Rewrite the 64-byte block of `file` at `at` (a header whose CRC-32C of its first 60 bytes is
// in its last 4) after `change`, with a valid CRC: damage no checksum catches.
void rewrite_block(const std::filesystem::path& file, std::size_t at,
                   const std::function<void(unsigned char*)>& change) {
  auto b = test::read_bytes(file);
  auto* x = reinterpret_cast<unsigned char*>(b.data()) + at;
  change(x);
  const std::uint32_t crc = crc32c(x, 60);
  std::memcpy(x + 60, &crc, 4);
  test::write_bytes(file, b);
}

}  // namespace

TEST_CASE("paired files: headers whose checksums hold but which do not fit the level are refused",
          "[db][files][paired]") {
  Rules rules;
  ScratchDir dir("qheader");
  test::build_db(dir.path, 4, 12, rules, dbfile::kPairedVersion);
  std::filesystem::remove(dir.path / "manifest.json");  // the files are rewritten below
  const auto f = dbfile::level_path(dir.path, 12);
  const auto original = test::read_bytes(f);
  auto refused = [&](const std::string& what) {
    const std::string e = test::load_error(dir.path, 4, rules, 0);
    CHECK(e.find("level-012.kdb") != std::string::npos);
    CHECK(e.find(what) != std::string::npos);
    test::write_bytes(f, original);
    CHECK(test::load_error(dir.path, 4, rules, 0) == "");
  };
  const std::size_t pair2 = dbfile::kHeaderSize + 64 * 2, pair3 = dbfile::kHeaderSize + 64 * 3;
  // A pair's shape at another width, its image size made to agree.
  rewrite_block(f, pair2, [](unsigned char* x) { x[8] = x[8] == 4 ? 3 : 4; });
  refused("inconsistent packed header");
  // Two pair headers traded (each with its own valid CRC).
  {
    auto b = test::read_bytes(f);
    std::swap_ranges(b.begin() + pair2, b.begin() + pair2 + 64, b.begin() + pair3);
    test::write_bytes(f, b);
  }
  refused("inconsistent header of pair 2 (it describes pair 3)");
  // A level beyond 127 in the main header.
  rewrite_block(f, 0, [](unsigned char* x) { x[22] = 200; });
  refused("invalid header field (level)");
}

TEST_CASE("paired files: verify finds a wrong entry in a level packed by pairs", "[db][files][paired]") {
  const Rules rules;
  ScratchDir dir("qverify");
  test::build_db(dir.path, 4, 10, rules, dbfile::kPairedVersion);
  const BoardIndexer ix(4, 10);
  LevelArray bytes = dbfile::read_level(dir.path, 4, rules, 10);
  bytes[12345] = static_cast<std::int8_t>(bytes[12345] == 10 ? 8 : bytes[12345] + 2);
  dbfile::write_paired_level(dir.path, 4, rules, PairedLevel::pack(ix, 10, bytes));
  std::filesystem::remove(dir.path / "manifest.json");  // the level file was rewritten
  try {
    (void)verify_database(dir.path, 2);
    FAIL("a wrong entry was not found");
  } catch (const DatabaseError& e) {
    CHECK(std::string(e.what()).find("1 entries differ") != std::string::npos);
    CHECK(std::string(e.what()).find("(first at index 12345)") != std::string::npos);
  }
}

TEST_CASE("paired files: a format-2 packed cache beside a level converted to format 3 is not used",
          "[db][files][paired][cache]") {
  const Rules rules;
  ScratchDir dir("qstale"), reference_dir("qstale-ref");
  test::build_db(dir.path, 4, 11, rules, dbfile::kPackedVersion);
  test::build_db(reference_dir.path, 4, 11, rules, dbfile::kVersion);
  const EndgameDatabase reference = EndgameDatabase::load(reference_dir.path, 4, rules, -1, 0, false);
  std::vector<std::string> notes;
  auto load = [&] {
    return EndgameDatabase::load(
        dir.path, 4, rules, -1, 0, true, [&](const std::string& s) { notes.push_back(s); }, 0, 2);
  };
  CHECK(load().packed_level(11).mapped() == false);  // writes the format-2 caches
  CHECK(load().packed_level(11).mapped());
  test::build_db(dir.path, 4, 11, rules, dbfile::kPairedVersion);  // converts every level
  const EndgameDatabase converted = load();                        // the old caches: silently unused
  CHECK(notes.empty());
  CHECK_FALSE(converted.paired_level(11).mapped());
  CHECK(test::value_differences(reference, converted) == 0);
  CHECK(load().paired_level(11).mapped());
  CHECK(notes.empty());
}

// Raw cache files (level-KKK.raw): written by the first load, mapped by the next; damaged,
// stale, truncated or misplaced caches are never used; a cache that cannot be written never
// fails the load; raw_cache = false reads the level files only and writes nothing.
#include "testing/catch.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "solver/db/database.hpp"
#include "solver/db/format.hpp"
#include "solver/db/raw_cache.hpp"
#include "solver/db/store.hpp"
#include "testing/database_files.hpp"
#include "testing/scratch_dir.hpp"

using namespace kalah;
using kalah::test::ScratchDir;

namespace {

namespace fs = std::filesystem;

constexpr int kPits = 3;
constexpr int kSeeds = 12;

// A database of levels 0..kSeeds written level by level (no manifest), and the same in memory.
const EndgameDatabase& reference() {
  static const EndgameDatabase db = EndgameDatabase::build_in_memory(kPits, Rules{}, kSeeds, 2);
  return db;
}
void write_levels(const fs::path& dir) {
  for (int k = 0; k <= kSeeds; ++k) dbfile::write_level(dir, kPits, Rules{}, k, reference().level(k), 2);
}

bool same_as_reference(const EndgameDatabase& db) {
  if (db.max_seeds() != kSeeds) return false;
  for (int k = 0; k <= kSeeds; ++k) {
    const LevelArray& a = db.level(k);
    const LevelArray& b = reference().level(k);
    if (a.size() != b.size() || !std::equal(a.data(), a.data() + a.size(), b.data())) return false;
  }
  return true;
}

int mapped_levels(const EndgameDatabase& db) {
  int n = 0;
  for (int k = 0; k <= db.max_seeds(); ++k) n += db.level(k).mapped() ? 1 : 0;
  return n;
}

std::vector<std::string> files_with(const fs::path& dir, const std::string& part) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().find(part) != std::string::npos) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

struct Loaded {
  EndgameDatabase db;
  std::vector<std::string> notes;
};
Loaded load(const fs::path& dir, bool raw_cache = true) {
  Loaded l;
  l.db =
      EndgameDatabase::load(dir, kPits, Rules{}, -1, 0, raw_cache, [&](const std::string& s) { l.notes.push_back(s); });
  return l;
}

}  // namespace

TEST_CASE("raw cache: the first load writes it, the next maps it, values identical", "[db][rawcache]") {
  ScratchDir dir("raw_roundtrip");
  write_levels(dir.path);
  const Loaded first = load(dir.path);
  CHECK(first.notes.empty());
  CHECK(mapped_levels(first.db) == 0);
  CHECK(same_as_reference(first.db));
  CHECK(files_with(dir.path, ".raw").size() == kSeeds + 1);
  CHECK(files_with(dir.path, ".tmp").empty());
  for (int k = 0; k <= kSeeds; ++k) {
    INFO(k);
    CHECK(fs::file_size(dbfile::raw_path(dir.path, k)) == dbfile::kRawHeaderSize + reference().level(k).size());
  }

  const Loaded second = load(dir.path);
  CHECK(second.notes.empty());
  CHECK(mapped_levels(second.db) == kSeeds + 1);
  CHECK(second.db.mapped_bytes() == second.db.memory_bytes());
  CHECK(first.db.mapped_bytes() == 0);
  CHECK(same_as_reference(second.db));
  CHECK(second.db.value(Board{}) == 0);

  // A prefix maps the levels it loads.
  const EndgameDatabase part = EndgameDatabase::load(dir.path, kPits, Rules{}, 5);
  CHECK(part.max_seeds() == 5);
  CHECK(mapped_levels(part) == 6);

  // A private copy reads the caches and maps nothing: the same values, format-1 levels at one
  // byte a board or packed as they load.
  for (const int pack_width : {-1, 0}) {
    INFO(pack_width);
    std::vector<std::string> notes;
    const EndgameDatabase own = EndgameDatabase::load(
        dir.path, kPits, Rules{}, -1, 0, true, [&](const std::string& s) { notes.push_back(s); }, pack_width, 2, true);
    CHECK(notes.empty());
    CHECK(files_with(dir.path, ".raw").size() == kSeeds + 1);
    CHECK(own.mapped_bytes() == 0);
    if (pack_width < 0) {
      CHECK(mapped_levels(own) == 0);
      CHECK(same_as_reference(own));
    } else {
      for (int k = 0; k <= kSeeds; ++k) CHECK_FALSE(own.packed_level(k).mapped());
      CHECK(test::value_differences(reference(), own) == 0);
    }
  }

  // The cache does not stand in for the level files' checks: a level file whose header is
  // damaged still fails the load.
  const auto original = test::read_bytes(dbfile::level_path(dir.path, 7));
  test::flip_byte(dbfile::level_path(dir.path, 7), 30);
  CHECK_THROWS_WITH(load(dir.path), Catch::Contains("level-007.kdb") && Catch::Contains("header checksum mismatch"));
  test::write_bytes(dbfile::level_path(dir.path, 7), original);
  CHECK(mapped_levels(load(dir.path).db) == kSeeds + 1);
}

TEST_CASE("raw cache: raw_cache = false reads the level files only and writes nothing", "[db][rawcache]") {
  ScratchDir dir("raw_off");
  write_levels(dir.path);
  const Loaded off = load(dir.path, false);
  CHECK(same_as_reference(off.db));
  CHECK(mapped_levels(off.db) == 0);
  CHECK(files_with(dir.path, ".raw").empty());
  // With caches present, it still does not map them.
  (void)load(dir.path);
  CHECK(files_with(dir.path, ".raw").size() == kSeeds + 1);
  CHECK(mapped_levels(load(dir.path, false).db) == 0);
}

TEST_CASE("raw cache: damaged entries are detected, not used, and the cache rewritten", "[db][rawcache]") {
  ScratchDir dir("raw_damage");
  write_levels(dir.path);
  (void)load(dir.path);
  const fs::path raw = dbfile::raw_path(dir.path, 10);
  const auto good = test::read_bytes(raw);
  test::flip_byte(raw, dbfile::kRawHeaderSize + 1234);

  const Loaded l = load(dir.path);
  REQUIRE(l.notes.size() == 1);
  CHECK(l.notes[0].find("level-010.raw: entries checksum mismatch") != std::string::npos);
  CHECK(l.notes[0].find("level-010.kdb") != std::string::npos);
  CHECK(same_as_reference(l.db));
  CHECK(!l.db.level(10).mapped());
  CHECK(mapped_levels(l.db) == kSeeds);
  CHECK(test::read_bytes(raw) == good);  // rewritten

  const Loaded again = load(dir.path);
  CHECK(again.notes.empty());
  CHECK(mapped_levels(again.db) == kSeeds + 1);
}

TEST_CASE("raw cache: a damaged, truncated or misplaced cache header is ignored and replaced", "[db][rawcache]") {
  ScratchDir dir("raw_header");
  write_levels(dir.path);
  (void)load(dir.path);
  const auto good9 = test::read_bytes(dbfile::raw_path(dir.path, 9));
  const auto good11 = test::read_bytes(dbfile::raw_path(dir.path, 11));
  test::flip_byte(dbfile::raw_path(dir.path, 9), 20);  // a header field: header checksum mismatch
  auto cut = good11;
  cut.resize(cut.size() - 1);
  test::write_bytes(dbfile::raw_path(dir.path, 11), cut);
  fs::copy_file(dbfile::raw_path(dir.path, 3), dbfile::raw_path(dir.path, 4), fs::copy_options::overwrite_existing);

  const Loaded l = load(dir.path);
  CHECK(l.notes.empty());  // silently ignored
  CHECK(same_as_reference(l.db));
  CHECK(!l.db.level(4).mapped());
  CHECK(!l.db.level(9).mapped());
  CHECK(!l.db.level(11).mapped());
  CHECK(mapped_levels(l.db) == kSeeds + 1 - 3);
  CHECK(test::read_bytes(dbfile::raw_path(dir.path, 9)) == good9);
  CHECK(test::read_bytes(dbfile::raw_path(dir.path, 11)) == good11);
  CHECK(mapped_levels(load(dir.path).db) == kSeeds + 1);
}

TEST_CASE("raw cache: a cache of another level file (the level rebuilt) is ignored", "[db][rawcache]") {
  ScratchDir dir("raw_stale");
  write_levels(dir.path);
  (void)load(dir.path);
  const auto old_raw = test::read_bytes(dbfile::raw_path(dir.path, 12));
  std::uint32_t old_crc = 0;
  (void)dbfile::read_header(dbfile::level_path(dir.path, 12), &old_crc);

  // Level 12 written again at another compression: the same entries, another header.
  dbfile::write_level(dir.path, kPits, Rules{}, 12, reference().level(12), 2, 1);
  std::uint32_t new_crc = 0;
  (void)dbfile::read_header(dbfile::level_path(dir.path, 12), &new_crc);
  REQUIRE(new_crc != old_crc);

  const Loaded l = load(dir.path);
  CHECK(l.notes.empty());
  CHECK(same_as_reference(l.db));
  CHECK(!l.db.level(12).mapped());
  CHECK(mapped_levels(l.db) == kSeeds);
  const auto new_raw = test::read_bytes(dbfile::raw_path(dir.path, 12));
  CHECK(new_raw != old_raw);  // rewritten for the new level file (its header names new_crc)
  CHECK(std::equal(new_raw.begin() + dbfile::kRawHeaderSize, new_raw.end(), old_raw.begin() + dbfile::kRawHeaderSize));
  CHECK(mapped_levels(load(dir.path).db) == kSeeds + 1);

  // The old cache put back beside the new level file is not used either.
  test::write_bytes(dbfile::raw_path(dir.path, 12), old_raw);
  CHECK(!load(dir.path).db.level(12).mapped());
}

TEST_CASE("raw cache: a cache that cannot be written never fails the load", "[db][rawcache]") {
  ScratchDir dir("raw_unwritable");
  write_levels(dir.path);
  // Something that is not a file where the temporary file of level 5 goes, and where the
  // cache of level 8 goes: neither can be written; the load carries on without them.
  fs::path tmp5 = dbfile::raw_path(dir.path, 5);
  tmp5 += ".tmp." + std::to_string(::getpid());
  fs::create_directory(tmp5);
  fs::create_directory(dbfile::raw_path(dir.path, 8));
  const Loaded l = load(dir.path);
  CHECK(same_as_reference(l.db));
  CHECK(l.notes.empty());  // quietly (a temporary file in the way)
  CHECK(fs::is_directory(tmp5));
  // The first failure stops the writing for the rest of the load: levels 0..4 only.
  CHECK(files_with(dir.path, ".raw").size() == 5 + 2);
  fs::remove(tmp5);
  const Loaded l2 = load(dir.path);
  CHECK(same_as_reference(l2.db));
  CHECK(mapped_levels(l2.db) == 5);
  REQUIRE(l2.notes.size() == 1);  // the rename over a directory failed: said once
  CHECK(l2.notes[0].find("level-008.raw: not written") != std::string::npos);
  CHECK(files_with(dir.path, ".tmp").empty());  // the partial file was removed
  CHECK(fs::is_directory(dbfile::raw_path(dir.path, 8)));

  // A read-only directory (permissions do not bind root, which the check then skips).
  if (::geteuid() != 0) {
    ScratchDir ro("raw_readonly");
    write_levels(ro.path);
    ::chmod(ro.path.c_str(), 0555);
    const Loaded r = load(ro.path);
    ::chmod(ro.path.c_str(), 0755);
    CHECK(same_as_reference(r.db));
    CHECK(r.notes.empty());
    CHECK(files_with(ro.path, ".raw").empty());
  }
}

TEST_CASE("raw cache: too little room writes nothing and says so once", "[db][rawcache]") {
  ScratchDir dir("raw_room");
  write_levels(dir.path);
  dbfile::RawCacheState cache;
  std::vector<std::string> notes;
  cache.note = [&](const std::string& s) { notes.push_back(s); };
  const std::uint64_t room = dbfile::kRawSpareBytes + dbfile::kRawHeaderSize + reference().level(6).size();
  cache.free_bytes = [&](const fs::path&) { return room; };  // enough for levels 0..6
  for (int k = 0; k <= kSeeds; ++k) {
    const LevelArray level = dbfile::load_level(dir.path, kPits, Rules{}, k, cache);
    CHECK(std::equal(level.data(), level.data() + level.size(), reference().level(k).data()));
  }
  CHECK(!cache.write);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].find("level-007.raw: not written") != std::string::npos);
  CHECK(notes[0].find("free") != std::string::npos);
  CHECK(files_with(dir.path, ".raw").size() == 7);
}

TEST_CASE("raw cache: leftover temporary files of dead processes are removed by the next writer", "[db][rawcache]") {
  ScratchDir dir("raw_leftover");
  write_levels(dir.path);
  const fs::path raw = dbfile::raw_path(dir.path, 3);
  const fs::path dead = raw.string() + ".tmp.999999999";                        // beyond any pid_max
  const fs::path alive = raw.string() + ".tmp." + std::to_string(::getppid());  // a live process
  const fs::path other = dbfile::raw_path(dir.path, 4).string() + ".tmp.999999999";
  for (const fs::path& p : {dead, alive, other}) test::write_bytes(p, {'x'});
  (void)load(dir.path, false);  // no cache: nothing written, nothing removed
  CHECK(fs::exists(dead));
  (void)load(dir.path);
  CHECK(!fs::exists(dead));
  CHECK(fs::exists(alive));
  CHECK(!fs::exists(other));
  CHECK(fs::exists(raw));
}

TEST_CASE("raw cache: the store ignores cache files (info, resumed build, verify)", "[db][rawcache]") {
  ScratchDir dir("raw_store");
  DbBuildOptions o;
  o.pits = kPits;
  o.max_seeds = kSeeds;
  o.threads = 2;
  REQUIRE(build_database(dir.path, o).levels_built == kSeeds + 1);
  CHECK(files_with(dir.path, ".raw").empty());  // the build writes no cache
  (void)load(dir.path);
  const fs::path leftover = dbfile::raw_path(dir.path, 2).string() + ".tmp.999999999";
  test::write_bytes(leftover, {'x'});

  const DbScan scan = inspect_database(dir.path);
  CHECK(scan.max_seeds() == kSeeds);
  CHECK(scan.unused_levels.empty());
  CHECK(scan.bytes() == [&] {
    std::uint64_t b = 0;
    for (int k = 0; k <= kSeeds; ++k) b += fs::file_size(dbfile::level_path(dir.path, k));
    return b;
  }());
  const DbBuildSummary resumed = build_database(dir.path, o);
  CHECK(resumed.levels_reused == kSeeds + 1);
  CHECK(files_with(dir.path, ".raw").size() == kSeeds + 1 + 1);  // caches and the leftover untouched
  CHECK(verify_database(dir.path, 2).max_seeds == kSeeds);
  CHECK(mapped_levels(load(dir.path).db) == kSeeds + 1);

  // A level rebuilt by the store (its file damaged): the next load replaces its stale cache.
  test::flip_byte(dbfile::level_path(dir.path, 12), 200);
  REQUIRE(build_database(dir.path, o).levels_built == 1);
  const Loaded l = load(dir.path);
  CHECK(same_as_reference(l.db));
}

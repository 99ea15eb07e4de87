// Pair files (format version 4): a format-3 build saves each pair of the level under
// construction, an interrupted build resumes at the pair and ends with the files of an
// uninterrupted build, damaged or foreign pair files are named and their pairs rebuilt, and
// level readers refuse a pair file.
#include "testing/catch.hpp"

#include <algorithm>
#include <atomic>
#include <string>
#include <vector>

#include "solver/base/sublevel_index.hpp"
#include "solver/db/format.hpp"
#include "solver/db/store.hpp"
#include "testing/database_files.hpp"
#include "testing/rule_sets.hpp"
#include "testing/scratch_dir.hpp"

using namespace kalah;
using kalah::test::ScratchDir;

namespace {

constexpr int kPits = 4;
constexpr int kTop = 11;  // level 11: pairs 0..5

DbBuildOptions paired_options(const Rules& rules, int max_seeds = kTop) {
  DbBuildOptions o;
  o.pits = kPits;
  o.max_seeds = max_seeds;
  o.rules = rules;
  o.threads = 2;
  o.format = dbfile::kPairedVersion;
  o.pair_files_from = 0;  // every level's pairs saved
  return o;
}

// Build to `top`, interrupted inside level `top` once `pairs` of its pairs are saved (the
// interrupt is raised when the last of them is saved, so the next pair is never started).
BuildInterrupted interrupted_build(const std::filesystem::path& dir, const Rules& rules, int pairs, int top = kTop) {
  std::atomic<bool> cancel{false};
  DbBuildOptions o = paired_options(rules, top);
  o.cancel = &cancel;
  DbBuildEvents ev;
  ev.pair_saved = [&](int k, int p) {
    if (k == top && p == pairs - 1) cancel = true;
  };
  try {
    build_database(dir, o, ev);
  } catch (const BuildInterrupted& e) {
    return e;
  }
  FAIL("the build was not interrupted");
  return BuildInterrupted(-1);
}

// Events that keep the build's notes in `notes`.
DbBuildEvents noting(std::vector<std::string>& notes) {
  DbBuildEvents ev;
  ev.note = [&notes](const std::string& s) { notes.push_back(s); };
  return ev;
}

std::string joined(const std::vector<std::string>& notes) {
  std::string all;
  for (const std::string& s : notes) all += s + "\n";
  return all;
}

int count_containing(const std::vector<std::string>& notes, const std::string& what) {
  int n = 0;
  for (const std::string& s : notes) n += s.find(what) != std::string::npos;
  return n;
}

}  // namespace

TEST_CASE("pair files: an interrupted format-3 build resumes at the pair, every rule set", "[db][files][paired]") {
  for (const Rules& rules : test::all_value_rules()) {
    CAPTURE(rules.describe());
    ScratchDir direct("pd"), resumed("pr");
    test::build_db(direct.path, kPits, kTop, rules, dbfile::kPairedVersion);

    const BuildInterrupted e = interrupted_build(resumed.path, rules, 3);
    CHECK(e.level == kTop);
    CHECK(e.pairs_saved == 3);
    for (int p = 0; p < SublevelIndexer::pairs(kTop); ++p)
      CHECK(std::filesystem::exists(dbfile::pair_path(resumed.path, kTop, p)) == (p < 3));
    CHECK_FALSE(std::filesystem::exists(dbfile::level_path(resumed.path, kTop)));

    std::vector<std::string> notes;
    std::uint64_t reused_boards = 0;
    DbBuildEvents ev = noting(notes);
    ev.pair_reused = [&](int k, std::uint64_t boards) {
      CHECK(k == kTop);
      reused_boards += boards;
    };
    const DbBuildSummary s = build_database(resumed.path, paired_options(rules), ev);
    CHECK(s.levels_reused == kTop);
    CHECK(s.levels_built == 1);
    CHECK(count_containing(notes, "reusing pair") == 3);
    const auto order = SublevelIndexer::shared(kPits);
    CHECK(reused_boards == order->pair_size(kTop, 0) + order->pair_size(kTop, 1) + order->pair_size(kTop, 2));
    CHECK(test::same_level_files(resumed.path, direct.path, kTop));
    for (int p = 0; p < SublevelIndexer::pairs(kTop); ++p)
      CHECK_FALSE(std::filesystem::exists(dbfile::pair_path(resumed.path, kTop, p)));
  }
}

TEST_CASE("pair files: a damaged, foreign or misplaced pair file is named and its pair rebuilt",
          "[db][files][paired]") {
  const Rules rules;
  ScratchDir direct("pdd"), dir("pdm");
  test::build_db(direct.path, kPits, kTop, rules, dbfile::kPairedVersion);
  interrupted_build(dir.path, rules, 4);
  const auto p1 = dbfile::pair_path(dir.path, kTop, 1);
  const auto p2 = dbfile::pair_path(dir.path, kTop, 2);
  const auto p3 = dbfile::pair_path(dir.path, kTop, 3);
  test::flip_byte(p1, test::read_bytes(p1).size() - 3);                                   // a block
  std::filesystem::copy_file(p3, p2, std::filesystem::copy_options::overwrite_existing);  // pair 3 named pair 2
  {  // pair 0 of another rule set's level 11 in place of pair 3
    Rules empty;
    empty.capture = Capture::Empty;
    ScratchDir other("pdo");
    interrupted_build(other.path, empty, 1);
    std::filesystem::copy_file(dbfile::pair_path(other.path, kTop, 0), p3,
                               std::filesystem::copy_options::overwrite_existing);
  }

  std::vector<std::string> notes;
  DbBuildEvents ev = noting(notes);
  build_database(dir.path, paired_options(rules), ev);
  INFO(joined(notes));
  CHECK(count_containing(notes, "reusing pair 0 ") == 1);
  CHECK(count_containing(notes, "level-011-pair-001.kdb: block") == 1);
  CHECK(count_containing(notes, "rebuilding pair 1 of level 11") == 1);
  CHECK(count_containing(notes, "level-011-pair-002.kdb: holds pair 3, expected 2") == 1);
  CHECK(count_containing(notes, "level-011-pair-003.kdb: built under rules") == 1);
  CHECK(count_containing(notes, "reusing pair") == 1);
  CHECK(test::same_level_files(dir.path, direct.path, kTop));
}

TEST_CASE("pair files: read back as written, and refused as level files", "[db][files][paired]") {
  const Rules rules;
  ScratchDir dir("pf");
  interrupted_build(dir.path, rules, 2);
  const PackedLevel pair = dbfile::read_pair_file(dir.path, kPits, rules, kTop, 1);
  CHECK(pair.size() == SublevelIndexer::shared(kPits)->pair_size(kTop, 1));
  const dbfile::Header h = dbfile::read_header(dbfile::pair_path(dir.path, kTop, 1), nullptr, true);
  CHECK(h.version == dbfile::kPairFileVersion);
  CHECK(h.pair == 1);
  CHECK(h.entries == pair.size());

  // Rewritten from what was read: the same bytes.
  ScratchDir again("pf2");
  dbfile::write_pair_file(again.path, kPits, rules, kTop, 1, pair);
  CHECK(test::read_bytes(dbfile::pair_path(again.path, kTop, 1)) ==
        test::read_bytes(dbfile::pair_path(dir.path, kTop, 1)));

  // A pair file in a level file's place: refused, named, by every level reader.
  std::filesystem::copy_file(dbfile::pair_path(dir.path, kTop, 0), dbfile::level_path(again.path, 0));
  for (auto read : {+[](const std::filesystem::path& d) { (void)dbfile::read_level(d, kPits, Rules{}, 0); },
                    +[](const std::filesystem::path& d) { (void)dbfile::read_packed_level(d, kPits, Rules{}, 0); },
                    +[](const std::filesystem::path& d) { (void)dbfile::read_paired_level(d, kPits, Rules{}, 0); }}) {
    std::string error;
    try {
      read(again.path);
    } catch (const DatabaseError& e) {
      error = e.what();
    }
    INFO(error);
    CHECK(error.find("level-000.kdb") != std::string::npos);
    CHECK(error.find("not a level file") != std::string::npos);
  }

  // A level's pair files go once its level file is there, also when a build finds it complete.
  ScratchDir done("pf3");
  test::build_db(done.path, kPits, kTop, rules, dbfile::kPairedVersion);
  dbfile::write_pair_file(done.path, kPits, rules, kTop, 1, pair);
  std::vector<std::string> notes;
  DbBuildEvents ev = noting(notes);
  build_database(done.path, paired_options(rules), ev);
  CHECK(count_containing(notes, "removed the pair files") == 1);
  CHECK_FALSE(std::filesystem::exists(dbfile::pair_path(done.path, kTop, 1)));

  // Levels below pair_files_from keep no pair files (they are quicker to compute again).
  for (const std::uint64_t from : {std::uint64_t(0), std::uint64_t(20'000)}) {  // level 11: 31,824 boards
    CAPTURE(from);
    ScratchDir small("pf4");
    DbBuildOptions o = paired_options(rules);
    o.pair_files_from = from;
    std::vector<int> saved_levels;
    DbBuildEvents saving;
    saving.pair_saved = [&](int k, int) { saved_levels.push_back(k); };
    build_database(small.path, o, saving);
    const BoardIndexer ix(kPits, kTop);
    for (const int k : saved_levels) CHECK(ix.count(k) >= from);
    CHECK(std::count(saved_levels.begin(), saved_levels.end(), kTop) == SublevelIndexer::pairs(kTop));
    if (from != 0) CHECK(saved_levels.size() == std::size_t(SublevelIndexer::pairs(kTop)));  // level 11's only
    CHECK(find_pair_files(small.path).empty());
  }
}

TEST_CASE("pair files: every pair saved but no level file, a truncated one, one of another level, a leftover",
          "[db][files][paired]") {
  const Rules rules;
  ScratchDir direct("pad"), dir("pam");
  test::build_db(direct.path, kPits, kTop, rules, dbfile::kPairedVersion);
  // Every pair of level 11 saved (killed while writing the level file, say), and a temporary
  // file of a pair file being written.
  const int last = SublevelIndexer::pairs(kTop) - 1;
  interrupted_build(dir.path, rules, last);
  dbfile::write_pair_file(dir.path, kPits, rules, kTop, last,
                          dbfile::read_paired_level(direct.path, kPits, rules, kTop).pair(last));
  CHECK_FALSE(std::filesystem::exists(dbfile::level_path(dir.path, kTop)));
  {
    const std::vector<DbScan::SavedPairs> saved = find_pair_files(dir.path);
    REQUIRE(saved.size() == 1);
    CHECK(saved[0].level == kTop);
    CHECK(saved[0].pairs == SublevelIndexer::pairs(kTop));
    CHECK(inspect_database(dir.path).saved_pairs.size() == 1);
  }
  auto tmp = dbfile::pair_path(dir.path, kTop, 5);
  tmp += ".tmp";
  test::write_bytes(tmp, std::vector<char>(100, 'x'));
  // Pair 4 truncated; pair 2 replaced by pair 2 of level 10.
  const auto p4 = dbfile::pair_path(dir.path, kTop, 4);
  auto bytes = test::read_bytes(p4);
  bytes.resize(bytes.size() - 10);
  test::write_bytes(p4, bytes);
  {
    ScratchDir lower("pal");
    interrupted_build(lower.path, rules, 3, kTop - 1);
    std::filesystem::copy_file(dbfile::pair_path(lower.path, kTop - 1, 2), dbfile::pair_path(dir.path, kTop, 2),
                               std::filesystem::copy_options::overwrite_existing);
  }

  std::vector<std::string> notes;
  std::vector<int> saved;
  DbBuildEvents ev = noting(notes);
  ev.pair_saved = [&](int, int p) { saved.push_back(p); };
  const DbBuildSummary s = build_database(dir.path, paired_options(rules), ev);
  INFO(joined(notes));
  CHECK(s.levels_built == 1);
  CHECK(count_containing(notes, "level-011-pair-005.kdb.tmp") == 1);
  CHECK(count_containing(notes, "level-011-pair-004.kdb: truncated") == 1);
  CHECK(count_containing(notes, "level-011-pair-002.kdb: holds level 10, expected 11") == 1);
  CHECK(count_containing(notes, "reusing pair") == SublevelIndexer::pairs(kTop) - 2);
  CHECK(saved == std::vector<int>{2, 4});
  CHECK(test::same_level_files(dir.path, direct.path, kTop));
  CHECK(find_pair_files(dir.path).empty());
}

TEST_CASE("pair files: the free-space check counts the pairs already saved; kept above --max-seeds and listed",
          "[db][files][paired]") {
  const Rules rules;
  ScratchDir dir("pfs");
  interrupted_build(dir.path, rules, 5);  // pairs 0..4 of 6 saved
  const auto order = SublevelIndexer::shared(kPits);
  std::uint64_t unsaved = order->pair_size(kTop, 5);
  const BoardIndexer ix(kPits, kTop);
  const std::uint64_t prev_bytes = std::filesystem::file_size(dbfile::level_path(dir.path, kTop - 1));
  const std::uint64_t file_need = level_bytes_estimate(ix.count(kTop), ix.count(kTop - 1), prev_bytes);
  const std::uint64_t need =
      file_need + static_cast<std::uint64_t>(static_cast<double>(file_need) * static_cast<double>(unsaved) /
                                             static_cast<double>(ix.count(kTop)));
  DbBuildOptions o = paired_options(rules);
  o.free_bytes = [&](const std::filesystem::path&) { return need - 1; };
  std::string error;
  try {
    build_database(dir.path, o);
  } catch (const DatabaseError& e) {
    error = e.what();
  }
  INFO(error);
  CHECK(error.find("not enough free space to build level 11: its file and the pair files still to write need about " +
                   std::to_string(need) + " bytes") != std::string::npos);
  CHECK(find_pair_files(dir.path).at(0).pairs == 5);
  o.free_bytes = [&](const std::filesystem::path&) { return need; };
  CHECK(build_database(dir.path, o).levels_built == 1);

  // A build to 12 seeds stopped inside level 12, then one to 11: the level-12 pair files stay,
  // named, and info lists them.
  ScratchDir over("pfo");
  interrupted_build(over.path, rules, 2, kTop + 1);
  std::vector<std::string> notes;
  DbBuildEvents ev = noting(notes);
  build_database(over.path, paired_options(rules), ev);
  INFO(joined(notes));
  CHECK(count_containing(notes, "kept 2 pair files of level 12") == 1);
  const DbScan scan = inspect_database(over.path);
  REQUIRE(scan.saved_pairs.size() == 1);
  CHECK(scan.saved_pairs[0].level == kTop + 1);
  CHECK(scan.saved_pairs[0].pairs == 2);
  // and a build to 12 seeds reuses them.
  notes.clear();
  build_database(over.path, paired_options(rules, kTop + 1), ev);
  CHECK(count_containing(notes, "reusing pair") == 2);
  CHECK(find_pair_files(over.path).empty());
}

TEST_CASE("pair files: a directory without a manifest whose level file is a pair file is refused by info",
          "[db][files][paired]") {
  const Rules rules;
  ScratchDir dir("pfl");
  interrupted_build(dir.path, rules, 1);
  std::filesystem::remove(dir.path / "manifest.json");
  std::filesystem::copy_file(dbfile::pair_path(dir.path, kTop, 0), dbfile::level_path(dir.path, kTop));
  std::string error;
  try {
    (void)inspect_database(dir.path);
  } catch (const DatabaseError& e) {
    error = e.what();
  }
  CHECK(error.find("level-011.kdb: a pair file") != std::string::npos);
  CHECK(test::load_error(dir.path, kPits, rules, -1).find("not a level file") != std::string::npos);
}

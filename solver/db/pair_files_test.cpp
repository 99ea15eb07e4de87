// Pair files (format version 4): a format-3 build saves each pair of the level under
// construction, an interrupted build resumes at the pair and ends with the files of an
// uninterrupted build, damaged or foreign pair files are named and their pairs rebuilt, and
// level readers refuse a pair file.
#include "testing/catch.hpp"

#include <atomic>
#include <string>
#include <vector>

#include "solver/base/sublevel_index.hpp"
#include "solver/db/format.hpp"
#include "solver/db/manifest.hpp"
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

// Build to kTop, interrupted inside level kTop once `pairs` of its pairs are done (the
// interrupt is raised by the progress report that ends a pair, so the pair is saved).
BuildInterrupted interrupted_build(const std::filesystem::path& dir, const Rules& rules, int pairs,
                                   std::vector<std::string>* notes = nullptr) {
  std::atomic<bool> cancel{false};
  DbBuildOptions o = paired_options(rules);
  o.cancel = &cancel;
  const auto order = SublevelIndexer::shared(kPits);
  std::uint64_t boundary = 0;
  for (int p = 0; p < pairs; ++p) boundary += order->pair_size(kTop, p);
  DbBuildEvents ev;
  ev.progress = [&](int k, std::uint64_t done, std::uint64_t) {
    if (k == kTop && done >= boundary) cancel = true;
  };
  if (notes) ev.note = [&](const std::string& s) { notes->push_back(s); };
  try {
    build_database(dir, o, ev);
  } catch (const BuildInterrupted& e) {
    return e;
  }
  FAIL("the build was not interrupted");
  return BuildInterrupted(-1);
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
    DbBuildEvents ev;
    ev.note = [&](const std::string& s) { notes.push_back(s); };
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
  test::flip_byte(p1, test::read_bytes(p1).size() - 3);            // a block
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
  DbBuildEvents ev;
  ev.note = [&](const std::string& s) { notes.push_back(s); };
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
  const dbfile::Header h = dbfile::read_header(dbfile::pair_path(dir.path, kTop, 1));
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
  DbBuildEvents ev;
  ev.note = [&](const std::string& s) { notes.push_back(s); };
  build_database(done.path, paired_options(rules), ev);
  CHECK(count_containing(notes, "removed the pair files") == 1);
  CHECK_FALSE(std::filesystem::exists(dbfile::pair_path(done.path, kTop, 1)));

  // Levels below pair_files_from keep no pair files (they are quicker to compute again).
  ScratchDir small("pf4");
  std::atomic<bool> cancel{false};
  DbBuildOptions o = paired_options(rules);
  o.pair_files_from = std::uint64_t(1) << 20;  // above level 11's 31,824 boards
  o.cancel = &cancel;
  DbBuildEvents stop;
  stop.progress = [&](int k, std::uint64_t boards_done, std::uint64_t) {
    if (k == kTop && boards_done > 0) cancel = true;
  };
  CHECK_THROWS_AS(build_database(small.path, o, stop), BuildInterrupted);
  CHECK_FALSE(std::filesystem::exists(dbfile::pair_path(small.path, kTop, 0)));
}

// `kalah db` through the built binary: build, info, probe (against `kalah solve`), verify,
// and the error paths (exit 1 with a one-line message naming the file, exit 2 for usage).
#include "testing/catch.hpp"

#include <nlohmann/json.hpp>

#include "solver/db/bound_level.hpp"
#include "solver/db/database.hpp"
#include "solver/db/format.hpp"
#include "solver/db/store.hpp"
#include "testing/run_cli.hpp"
#include "testing/scratch_dir.hpp"

using kalah::test::json_int;
using kalah::test::run_kalah;
using kalah::test::run_kalah_after;
using kalah::test::ScratchDir;

namespace {

bool one_line(const std::string& s) { return !s.empty() && s.find('\n') == s.size() - 1; }

}  // namespace

TEST_CASE("db cli: build, info, probe agrees with solve, verify", "[db][cli]") {
  ScratchDir dir("cli");
  const std::string d = dir.path.string();
  auto r = run_kalah("db build --pits 4 --max-seeds 12 --out " + d + " --rules empty-capture --threads 2");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("positions") != std::string::npos);
  CHECK(r.out.find("compression ratio") != std::string::npos);
  CHECK(r.err.find("memory needed") != std::string::npos);

  r = run_kalah("db info " + d);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("levels       0..12") != std::string::npos);
  CHECK(r.out.find("capture=empty") != std::string::npos);

  for (const std::string pos : {"2,1,0,3/1,0,2,1/5/4/S", "0,0,4,1/3,0,0,2/10/6/N", "1,1,1,1/1,1,1,1/8/8/S",
                                "4,4,4,0/0,0,0,0/2/1/N", "3,0,0,0/0,0,0,0/10/11/S"}) {
    INFO(pos);
    const auto p = run_kalah("db probe " + d + " --position " + pos + " --json");
    const auto s = run_kalah("solve --rules empty-capture --position " + pos + " --json");
    REQUIRE(p.exit_code == 0);
    REQUIRE(s.exit_code == 0);
    CHECK(json_int(p.out, "value") == json_int(s.out, "value"));
    const auto best = [](const std::string& j) {
      return j.substr(j.find("\"best\":"), j.find(']', j.find("\"best\":")) - j.find("\"best\":"));
    };
    CHECK(best(p.out) == best(s.out));
  }
  // A search over the database: the value of one without, with and without the near table
  // (--near-table 64: four entries) and the shared table's bypass.
  const auto plain = run_kalah("solve --rules empty-capture --pits 4 --seeds 4 --value-only --json");
  REQUIRE(plain.exit_code == 0);
  for (const std::string opts : {"", " --near-table 0", " --near-table 64 --tt-above-db 2", " --tt-above-db 0"}) {
    INFO(opts);
    const auto w = run_kalah("solve --rules empty-capture --pits 4 --seeds 4 --value-only --json --db " + d +
                             " --db-seeds 8" + opts);
    REQUIRE(w.exit_code == 0);
    CHECK(json_int(w.out, "value") == json_int(plain.out, "value"));
  }
  r = run_kalah("db verify " + d);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("every checksum and every entry correct") != std::string::npos);
  r = run_kalah("db verify " + d + " --sample 300 --seed 3");
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("entries drawn and re-derived from their successors, all equal") != std::string::npos);
  CHECK(r.err.find("300 random entries a level") != std::string::npos);
  r = run_kalah("db verify " + d + " --seed 3");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--seed needs --sample") != std::string::npos);
  r = run_kalah("db verify " + d + " --sample 0");
  CHECK(r.exit_code == 2);

  // Resuming a complete build reuses everything (the directory given as the positional
  // argument this time).
  r = run_kalah("db build " + d + " --pits 4 --max-seeds 12 --rules empty-capture");
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("0 built, 13 reused") != std::string::npos);
}

TEST_CASE("db cli: errors name the file and the problem", "[db][cli]") {
  ScratchDir dir("clierr");
  const std::string d = dir.path.string();
  REQUIRE(run_kalah("db build -m 3 -S 10 --out " + d).exit_code == 0);

  auto r = run_kalah("db probe " + d + "/missing --position 1,1,1/1,1,1/0/0/S");
  CHECK(r.exit_code == 1);
  CHECK(one_line(r.err));
  CHECK(r.err.find("missing") != std::string::npos);

  r = run_kalah("db probe " + d + " --position 1,1,1/1,1,1/0/0/S --rules empty-capture");
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("different values") != std::string::npos);

  r = run_kalah("db probe " + d + " --position 1,1,1,1/1,1,1,1/0/0/S");
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("pits") != std::string::npos);

  r = run_kalah("db probe " + d + " --position 5,5,1/1,0,0/0/0/S");
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("at most 10") != std::string::npos);

  const auto f = kalah::dbfile::level_path(dir.path, 10);
  kalah::test::flip_byte(f, kalah::test::read_bytes(f).size() - 2);
  r = run_kalah("db verify " + d);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("level-010.kdb") != std::string::npos);
  CHECK(r.err.find("corrupt") != std::string::npos);
  r = run_kalah("db probe " + d + " --position 2,2,2/2,1,1/0/0/S");
  CHECK(r.exit_code == 1);
  CHECK(one_line(r.err));
  CHECK(r.err.find("level-010.kdb") != std::string::npos);

  r = run_kalah("db build -m 3 -S 4 --out " + d + "/e --rules bga");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("early end") != std::string::npos);
  CHECK(r.err.find("depend on the stores") != std::string::npos);

  r = run_kalah("db build -m 6 -S 30 --out " + d + "/big --memory 1G");
  CHECK(r.exit_code == 2);  // a budget the build cannot serve: a usage error, like a solve's
  CHECK(r.err.find("over the limit") != std::string::npos);
  CHECK(r.err.find("--format 3") == std::string::npos);  // 5.9 GiB: no format fits in 1 GiB
  r = run_kalah("db build -m 6 -S 30 --out " + d + "/big --memory 8G --format 1");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("over the limit of 8.00 GiB (--memory); --format 3 needs 5.91 GiB") != std::string::npos);
  CHECK(!std::filesystem::exists(d + "/big"));

  r = run_kalah("db build -m 3 -S 4 --out " + d + "/x --memory lots");
  CHECK(r.exit_code == 2);
  r = run_kalah("db frobnicate");
  CHECK(r.exit_code == 2);
}

TEST_CASE("db cli: verify re-derives entries (a wrong value with valid checksums)", "[db][cli]") {
  ScratchDir dir("cliverify");
  const std::string d = dir.path.string();
  REQUIRE(run_kalah("db build -m 3 -S 9 --out " + d + " --rules relay --no-early-end").exit_code == 0);
  // Rewrite level 8 with one entry changed, checksums recomputed.
  kalah::Rules relay = kalah::Rules::preset("relay");
  relay.early_end = false;
  kalah::LevelArray lv = kalah::dbfile::read_level(dir.path, 3, relay, 8);
  lv[1234] = static_cast<std::int8_t>(lv[1234] + 2);
  kalah::dbfile::write_level(dir.path, 3, relay, 8, lv);
  // The manifest records the old file: a build reuses the new one (its checksums are valid)
  // and records it.
  REQUIRE(run_kalah("db build -m 3 -S 9 --out " + d + " --rules relay --no-early-end").exit_code == 0);
  auto r = run_kalah("db verify " + d);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("level-008.kdb") != std::string::npos);
  CHECK(r.err.find("index 1234") != std::string::npos);
  // A sample as large as the level re-derives all of it: the changed entry is found there too.
  r = run_kalah("db verify " + d + " --sample 100000");
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("level-008.kdb: 1 of ") != std::string::npos);  // the whole level: no repeats
  CHECK(r.err.find("index 1234") != std::string::npos);
}

// Ctrl-C during a build: the level under way is abandoned, the command says where it will
// resume, exits 130, and the levels already written are recorded and reused.
TEST_CASE("db cli: an interrupted build says where it resumes, exits 130", "[db][cli]") {
  const ScratchDir dir("interrupted");
  const std::string out = " --pits 6 --max-seeds 21 --threads 1 --out " + dir.path.string();
  const auto r = run_kalah_after("timeout --preserve-status -s INT 2", "db build" + out);
  INFO(r.err);
  REQUIRE(r.exit_code == 130);
  const auto at = r.err.find("run the same command again to resume from level ");
  REQUIRE(at != std::string::npos);
  const int resume = std::stoi(r.err.substr(at + 48));
  CHECK(resume > 0);
  const auto info = run_kalah("db info " + dir.path.string());
  REQUIRE(info.exit_code == 0);
  CHECK(info.out.find("levels       0.." + std::to_string(resume - 1)) != std::string::npos);
  CHECK(info.out.find("manifest     manifest.json") != std::string::npos);
  for (const auto& entry : std::filesystem::directory_iterator(dir.path)) CHECK(entry.path().extension() != ".tmp");
}

// Raw cache files: a solve or a probe with --db writes level-KKK.raw files on its first load
// and maps them on the next (the same nodes); --no-db-cache neither maps nor writes them;
// info and verify are unaffected by them and write none.
TEST_CASE("db cli: --no-db-cache writes no raw cache, and the cache leaves results unchanged", "[db][cli]") {
  ScratchDir dir("clirawcache");
  const std::string d = dir.path.string();
  REQUIRE(run_kalah("db build -m 4 -S 10 --out " + d + " --threads 2").exit_code == 0);
  const auto raw_files = [&] {
    int n = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir.path))
      n += entry.path().filename().string().find(".raw") != std::string::npos ? 1 : 0;
    return n;
  };
  const std::string solve = "solve -m 4 -n 3 --threads 1 --tt-memory 16M --json --db " + d;
  const auto off = run_kalah(solve + " --no-db-cache");
  REQUIRE(off.exit_code == 0);
  CHECK(off.err.empty());
  CHECK(raw_files() == 0);
  CHECK(run_kalah("db probe " + d + " --position 2,1,0,3/1,0,2,1/5/4/S --no-db-cache").exit_code == 0);
  CHECK(run_kalah("db verify " + d).exit_code == 0);
  CHECK(raw_files() == 0);

  const auto packed = run_kalah(solve + " --no-db-cache --db-packed");
  REQUIRE(packed.exit_code == 0);
  CHECK(json_int(packed.out, "value") == json_int(off.out, "value"));
  CHECK(json_int(packed.out, "nodes") == json_int(off.out, "nodes"));  // the same search
  CHECK(json_int(off.out, "db_bits_per_board") == 8);
  CHECK(json_int(packed.out, "db_bits_per_board") < 5);
  CHECK(run_kalah("solve -m 4 -n 3 --db-packed").exit_code == 2);  // needs --db

  const auto first = run_kalah(solve);  // writes the caches
  REQUIRE(first.exit_code == 0);
  CHECK(first.err.empty());
  CHECK(raw_files() == 11);
  const auto second = run_kalah(solve);  // maps them
  REQUIRE(second.exit_code == 0);
  CHECK(second.err.empty());
  for (const auto& r : {first, second}) {
    CHECK(json_int(r.out, "value") == json_int(off.out, "value"));
    CHECK(json_int(r.out, "nodes") == json_int(off.out, "nodes"));
    CHECK(json_int(r.out, "db_max_seeds") == 10);
  }
  CHECK(json_int(second.out, "db_mapped_bytes") == json_int(second.out, "db_memory_bytes"));
  CHECK(json_int(off.out, "db_mapped_bytes") == 0);
  const auto probe = run_kalah("db probe " + d + " --position 2,1,0,3/1,0,2,1/5/4/S --json");
  CHECK(probe.exit_code == 0);
  CHECK(probe.err.empty());
  const auto info = run_kalah("db info " + d);
  CHECK(info.exit_code == 0);
  CHECK(info.out.find("unused") == std::string::npos);
  CHECK(run_kalah("db verify " + d).exit_code == 0);

  // A damaged cache: a note on stderr, the same result, the cache rewritten.
  const auto raw10 = dir.path / "level-010.raw";
  kalah::test::flip_byte(raw10, kalah::test::read_bytes(raw10).size() - 5);
  const auto damaged = run_kalah(solve);
  REQUIRE(damaged.exit_code == 0);
  CHECK(damaged.err.find("note: ") == 0);
  CHECK(damaged.err.find("level-010.raw: entries checksum mismatch") != std::string::npos);
  CHECK(json_int(damaged.out, "nodes") == json_int(off.out, "nodes"));
  CHECK(run_kalah(solve).err.empty());

  const auto usage = run_kalah("solve -m 4 -n 3 --no-db-cache");
  CHECK(usage.exit_code == 2);
  CHECK(usage.err.find("--no-db-cache needs --db") != std::string::npos);

  // --db-private: the levels copied out of the caches, the same search.
  for (const char* layout : {"", " --db-packed"}) {
    const auto own = run_kalah(solve + " --db-private" + layout);
    REQUIRE(own.exit_code == 0);
    CHECK(own.err.empty());
    CHECK(json_int(own.out, "value") == json_int(off.out, "value"));
    CHECK(json_int(own.out, "nodes") == json_int(off.out, "nodes"));
    CHECK(json_int(own.out, "db_mapped_bytes") == 0);
    CHECK(json_int(own.out, "db_memory_bytes") > 0);
  }
  const auto no_db = run_kalah("solve -m 4 -n 3 --db-private");
  CHECK(no_db.exit_code == 2);
  CHECK(no_db.err.find("--db-private needs --db") != std::string::npos);
  const auto both = run_kalah(solve + " --db-private --no-db-cache");
  CHECK(both.exit_code == 2);
  CHECK(both.err.find("--db-private and --no-db-cache exclude each other") != std::string::npos);
}

TEST_CASE("db cli: packed builds (formats 2 and 3): info, solve packed or unpacked, probe, verify",
          "[db][cli][packed]") {
  ScratchDir bytes_dir("cli-f1");
  const std::string d1 = bytes_dir.path.string();
  REQUIRE(run_kalah("db build --pits 4 --max-seeds 12 --out " + d1 + " --threads 2").exit_code == 0);
  CHECK(nlohmann::json::parse(run_kalah("db info --json " + d1).out)["bits_per_board"].get<double>() == 8);
  const std::string solve = "solve -m 4 -n 3 --threads 1 --tt-memory 16M --json --db ";
  const auto reference = run_kalah(solve + d1);
  for (const int format : {2, 3}) {
    CAPTURE(format);
    ScratchDir packed_dir("cli-f" + std::to_string(format));
    const std::string d2 = packed_dir.path.string(), version = std::to_string(format);
    auto r = run_kalah("db build --pits 4 --max-seeds 12 --out " + d2 + " --threads 2 --format " + version);
    REQUIRE(r.exit_code == 0);
    CHECK(r.err.find(format == 2 ? "format 2 (packed)" : "format 3 (packed by sublevel pairs)") != std::string::npos);

    r = run_kalah("db info " + d2);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("(format version " + version + ")") != std::string::npos);
    CHECK(r.out.find(format == 2 ? "bits a board, packed)" : "bits a board, packed by sublevel pairs)") !=
          std::string::npos);
    const auto info = nlohmann::json::parse(run_kalah("db info --json " + d2).out);
    CHECK(info["format_version"] == format);
    CHECK(info["bits_per_board"].get<double>() < 5);
    CHECK(info["levels"][12]["format_version"] == format);

    const auto filed = run_kalah(solve + d2);  // packed, as filed
    const auto unpacked = run_kalah(solve + d2 + " --db-bytes");
    for (const auto& x : {reference, filed, unpacked}) {
      REQUIRE(x.exit_code == 0);
      CHECK(json_int(x.out, "value") == json_int(reference.out, "value"));
      CHECK(json_int(x.out, "nodes") == json_int(reference.out, "nodes"));  // the same search
    }
    CHECK(json_int(filed.out, "db_bits_per_board") < 5);
    CHECK(json_int(unpacked.out, "db_bits_per_board") == 8);
    CHECK(run_kalah("db probe " + d2 + " --position 2,1,0,3/1,0,2,1/5/4/S --json").out ==
          run_kalah("db probe " + d1 + " --position 2,1,0,3/1,0,2,1/5/4/S --json").out);
    CHECK(run_kalah("db verify " + d2).exit_code == 0);

    const auto bad = run_kalah("db build --pits 4 --max-seeds 3 --out " + d2 + " --format 4");
    CHECK(bad.exit_code == 2);
    CHECK(bad.err.find("--format must be 1, 2, 3 or auto, not '4'") != std::string::npos);
    const auto both = run_kalah(solve + d2 + " --db-packed --db-bytes");
    CHECK(both.exit_code == 2);
    CHECK(both.err.find("exclude each other") != std::string::npos);
  }
  CHECK(run_kalah("solve -m 4 -n 3 --db-bytes").exit_code == 2);  // needs --db
}

TEST_CASE("db cli: probe-rate reads the same values in every layout", "[db][cli][packed]") {
  ScratchDir dir("cli-rate");
  const std::string d = dir.path.string();
  REQUIRE(run_kalah("db build --pits 4 --max-seeds 10 --out " + d + " --threads 2 --format 2").exit_code == 0);
  const std::string rate = "db probe-rate " + d + " --boards 5000 --probes 20000 --json --layout ";
  const auto packed = nlohmann::json::parse(run_kalah(rate + "filed").out);
  const auto bytes = nlohmann::json::parse(run_kalah(rate + "bytes").out);
  CHECK(packed["layout"] == "packed");
  CHECK(bytes["layout"] == "bytes");
  CHECK(packed["value_sum"] == bytes["value_sum"]);
  CHECK(packed["bits_per_board"].get<double>() < 5);
  CHECK(packed["ns_single"].get<double>() > 0);
  const auto bad = run_kalah("db probe-rate " + d + " --layout sideways");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--layout must be filed, bytes or packed, not 'sideways'") != std::string::npos);
}

TEST_CASE("db cli: solve loads the deepest levels that fit in --memory and says so", "[db][cli]") {
  ScratchDir dir("cli-memory");
  const std::string d = dir.path.string();
  REQUIRE(run_kalah("db build --pits 4 --max-seeds 12 --out " + d + " --threads 2").exit_code == 0);
  // (No near tables: the budget below is the table and the levels alone.)
  const std::string solve = "solve -m 4 -n 3 --threads 1 --tt-memory 16M --near-table 0 --json --no-db-cache --db " + d;
  const auto full = run_kalah(solve);
  REQUIRE(full.exit_code == 0);
  CHECK(json_int(full.out, "db_max_seeds") == 12);
  const long long table = json_int(full.out, "table_max_bytes");
  // Levels 0..10 take C(18, 8) = 43,758 bytes, 0..11 75,582: room for 60,000 holds 0..10.
  const auto part = run_kalah(solve + " --memory " + std::to_string(table + 60000));
  REQUIRE(part.exit_code == 0);
  CHECK(json_int(part.out, "db_max_seeds") == 10);
  CHECK(json_int(part.out, "value") == json_int(full.out, "value"));
  CHECK(part.err.find("note: loading database levels 0..10 of 0..12") != std::string::npos);
  CHECK(part.err.find("--db-packed") != std::string::npos);
  // Packed (about 4.2 bits a board planned), the same room holds more levels.
  const auto packed = run_kalah(solve + " --db-packed --memory " + std::to_string(table + 60000));
  REQUIRE(packed.exit_code == 0);
  CHECK(json_int(packed.out, "db_max_seeds") > 10);
  CHECK(json_int(packed.out, "value") == json_int(full.out, "value"));
}

TEST_CASE("db cli: solve --db-bounds holds levels of bounds above the exact ones, within --db-memory",
          "[db][cli][bounds]") {
  ScratchDir dir("cli-db-bounds");
  const std::string d = dir.path.string();
  REQUIRE(run_kalah("db build --pits 4 --max-seeds 13 --format 3 --threads 2 " + d).exit_code == 0);
  std::uint64_t levels = 0;
  for (const std::uint64_t b : kalah::level_memory_bytes(dir.path, 4, 9, 0)) levels += b;
  const std::uint64_t bounds = kalah::BoundLevel::bytes_for(4, 10) + kalah::BoundLevel::bytes_for(4, 11);
  const std::uint64_t middle = kalah::BoundLevel::pair_offset(4, 12, 7) - kalah::BoundLevel::pair_offset(4, 12, 6);
  const auto plain = run_kalah("solve -m 4 -n 3 --threads 2 --json");
  REQUIRE(plain.exit_code == 0);
  const std::string solve = "solve -m 4 -n 3 --threads 2 --json --db " + d + " --db-bounds 2";
  for (const std::string extra : {"", " --db-private", " --no-db-cache", ""}) {  // caches written, then mapped
    CAPTURE(extra);
    const auto r = run_kalah(solve + extra + " --db-memory " + std::to_string(levels + bounds + middle));
    REQUIRE(r.exit_code == 0);
    CHECK(json_int(r.out, "value") == json_int(plain.out, "value"));
    CHECK(json_int(r.out, "db_max_seeds") == 9);
    CHECK(json_int(r.out, "db_bound_first") == 10);
    CHECK(json_int(r.out, "db_bound_last") == 12);
    CHECK(json_int(r.out, "db_bound_pairs") == 1);
    CHECK(json_int(r.out, "db_memory_bytes") == static_cast<long long>(levels + bounds + middle));
    CHECK(r.err.find("note: loading database levels 0..9 and levels 10..12 as bounds (1 of the 7 pairs of level 12)") !=
          std::string::npos);
  }
  CHECK(std::filesystem::exists(dir.path / "level-011.bnd"));
  // Without --db-memory: the levels of bounds above the exact levels asked for (or the top ones).
  const auto seeds = run_kalah("solve -m 4 -n 3 --threads 2 --value-only --db " + d + " --db-seeds 8 --db-bounds 3");
  REQUIRE(seeds.exit_code == 0);
  CHECK(seeds.out.find("boards with at most 8 seeds, bounds of levels 9..11 (6 of the 6 pairs of the last)") !=
        std::string::npos);
  const auto top = run_kalah("solve -m 4 -n 3 --threads 2 --json --db " + d + " --db-bounds 2");
  REQUIRE(top.exit_code == 0);
  CHECK(json_int(top.out, "db_max_seeds") == 11);
  CHECK(json_int(top.out, "db_bound_last") == 13);
  CHECK(json_int(top.out, "value") == json_int(plain.out, "value"));
  // Without --db-bounds: five levels of bounds where --db-memory leaves levels out (with
  // --db-seeds S, within levels 0..S); none where every level fits (all, or the 0..S asked
  // for), or with --db-bounds 0 (then a partial exact level).
  const std::string budget = " --db-memory " + std::to_string(levels + bounds + middle);
  const auto automatic = run_kalah("solve -m 4 -n 3 --threads 2 --json --db " + d + budget);
  REQUIRE(automatic.exit_code == 0);
  CHECK(json_int(automatic.out, "value") == json_int(plain.out, "value"));
  CHECK(json_int(automatic.out, "db_bound_first") == json_int(automatic.out, "db_max_seeds") + 1);
  CHECK(json_int(automatic.out, "db_bound_last") <= json_int(automatic.out, "db_max_seeds") + 5);
  CHECK(automatic.err.find(" as bounds") != std::string::npos);
  const auto capped = run_kalah("solve -m 4 -n 3 --threads 2 --json --db " + d + budget + " --db-seeds 12");
  REQUIRE(capped.exit_code == 0);
  CHECK(json_int(capped.out, "value") == json_int(plain.out, "value"));
  CHECK(json_int(capped.out, "db_bound_first") == json_int(capped.out, "db_max_seeds") + 1);
  CHECK(json_int(capped.out, "db_bound_last") <= 12);
  for (const std::string& exact :
       {std::string(" --db-memory 1G"), budget + " --db-bounds 0", budget + " --db-seeds 9"}) {
    CAPTURE(exact);
    const auto r = run_kalah("solve -m 4 -n 3 --threads 2 --json --db " + d + exact);
    REQUIRE(r.exit_code == 0);
    CHECK(json_int(r.out, "value") == json_int(plain.out, "value"));
    CHECK(json_int(r.out, "db_bound_first") == -1);
    CHECK(r.err.find(" as bounds") == std::string::npos);
  }
  // Too many levels of bounds for the directory, a bad count, a directory of another format.
  const auto many = run_kalah("solve -m 4 -n 3 --db " + d + " --db-seeds 12 --db-bounds 2");
  CHECK(many.exit_code == 2);
  CHECK(one_line(many.err));
  CHECK(many.err.find("--db-bounds") != std::string::npos);
  for (const std::string bad : {"-1", "17", "x"}) {
    const auto r = run_kalah("solve -m 4 -n 3 --db " + d + " --db-bounds " + bad);
    CHECK(r.exit_code == 2);
    CHECK(one_line(r.err));
  }
  ScratchDir bytes_dir("cli-db-bounds-bytes");
  REQUIRE(run_kalah("db build --pits 4 --max-seeds 9 --threads 2 " + bytes_dir.path.string()).exit_code == 0);
  const auto bytes = run_kalah("solve -m 4 -n 2 --db " + bytes_dir.path.string() + " --db-bounds 1");
  CHECK(bytes.exit_code == 2);
  CHECK(one_line(bytes.err));
}

TEST_CASE("db cli: solve --db-memory fills it with whole levels, then pairs of the next from the middle out",
          "[db][cli][partial]") {
  ScratchDir dir("cli-db-memory");
  const std::string d = dir.path.string();
  REQUIRE(run_kalah("db build --pits 4 --max-seeds 12 --format 3 --threads 2 " + d).exit_code == 0);
  std::uint64_t levels = 0;
  for (const std::uint64_t b : kalah::level_memory_bytes(dir.path, 4, 10, 0)) levels += b;
  const std::vector<std::uint64_t> pairs = kalah::pair_memory_bytes(dir.path, 11);
  REQUIRE(pairs.size() == 6);
  // Exact levels only (without --db-bounds 0, levels of bounds would take the room: above).
  const std::string solve = "solve -m 4 -n 3 --threads 2 --json --db-bounds 0 --db " + d;
  const auto plain = run_kalah("solve -m 4 -n 3 --threads 2 --json");
  REQUIRE(plain.exit_code == 0);
  for (const std::string extra : {"", " --db-private", " --no-db-cache"}) {
    CAPTURE(extra);
    const auto part = run_kalah(solve + extra + " --db-memory " + std::to_string(levels + pairs[5] + pairs[4]));
    REQUIRE(part.exit_code == 0);
    CHECK(json_int(part.out, "value") == json_int(plain.out, "value"));
    CHECK(json_int(part.out, "db_max_seeds") == 10);
    CHECK(json_int(part.out, "db_partial_level") == 11);
    CHECK(json_int(part.out, "db_partial_pairs") == 2);
    CHECK(json_int(part.out, "db_memory_bytes") == static_cast<long long>(levels + pairs[5] + pairs[4]));
    CHECK(part.err.find("note: loading database levels 0..10 and 2 of the 6 pairs of level 11") != std::string::npos);
  }
  const auto text = run_kalah("solve -m 4 -n 3 --threads 2 --value-only --db-bounds 0 --db " + d + " --db-memory " +
                              std::to_string(levels + pairs[5]));
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("boards with at most 10 seeds and 1 of the 6 sublevel pairs of level 11") != std::string::npos);
  // The budget of tables and database together (--memory) is filled the same way: the shared
  // table, the two threads' near tables (256 KiB each by default), then the database.
  const long long table = json_int(run_kalah(solve).out, "table_max_bytes");
  const long long near_tables = 2 * (256 << 10);
  const auto budget =
      run_kalah(solve + " --memory " + std::to_string(table + near_tables + levels + pairs[5] + pairs[4]));
  REQUIRE(budget.exit_code == 0);
  CHECK(json_int(budget.out, "db_partial_pairs") == 2);
  CHECK(json_int(budget.out, "value") == json_int(plain.out, "value"));
  CHECK(budget.err.find("note: loading database levels 0..10 of 0..12 and 2 of the 6 pairs of level 11") !=
        std::string::npos);
  // The same budget without --db-bounds 0: levels of bounds above fewer exact levels.
  const auto bounded = run_kalah("solve -m 4 -n 3 --threads 2 --json --db " + d + " --memory " +
                                 std::to_string(table + near_tables + levels + pairs[5] + pairs[4]));
  REQUIRE(bounded.exit_code == 0);
  CHECK(json_int(bounded.out, "value") == json_int(plain.out, "value"));
  CHECK(json_int(bounded.out, "db_bound_first") == json_int(bounded.out, "db_max_seeds") + 1);
  CHECK(bounded.err.find(" as bounds") != std::string::npos);
  // Room for everything: every level, no note, no partial level.
  const auto all = run_kalah(solve + " --db-memory 1G");
  REQUIRE(all.exit_code == 0);
  CHECK(json_int(all.out, "db_max_seeds") == 12);
  CHECK(json_int(all.out, "db_partial_level") == -1);
  CHECK(all.err.find("note: loading") == std::string::npos);
  // Bad sizes: usage (2), one line; too little for level 0: a configuration the session refuses (2).
  for (const std::string bad : {"abc", "0", "-5M"}) {
    const auto r = run_kalah(solve + " --db-memory " + bad);
    CHECK(r.exit_code == 2);
    CHECK(one_line(r.err));
  }
  const auto tiny = run_kalah(solve + " --db-memory 1");
  CHECK(tiny.exit_code == 2);
  CHECK(tiny.err.find("not even level 0") != std::string::npos);
  CHECK(run_kalah("solve -m 4 -n 3 --db-memory 1G").exit_code == 2);  // needs --db
}

TEST_CASE("db cli: without --format a build takes the first format that fits in --memory and keeps it",
          "[db][cli][packed]") {
  ScratchDir dir("cli-auto");
  const std::string d = dir.path.string();
  // Room for format 3's need, not format 2's nor format 1's.
  const std::uint64_t room = kalah::db_memory_needed(4, 10, kalah::dbfile::kPairedVersion);
  REQUIRE(room < kalah::db_memory_needed(4, 10, kalah::dbfile::kPackedVersion));
  auto r = run_kalah("db build --pits 4 --max-seeds 10 --threads 2 " + d + " --memory " + std::to_string(room));
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("format 3 (packed by sublevel pairs; --format auto)") != std::string::npos);
  CHECK(nlohmann::json::parse(run_kalah("db info --json " + d).out)["format_version"] == 3);
  // Grown without a cap: the directory's format is kept, nothing converted.
  r = run_kalah("db build --pits 4 --max-seeds 11 --threads 2 " + d);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("format 3 (packed by sublevel pairs; --format auto)") != std::string::npos);
  CHECK(r.err.find("converted") == std::string::npos);
  CHECK(r.out.find("(1 built, 11 reused)") != std::string::npos);
  // A new directory without a cap below its need: one byte a board.
  ScratchDir small("cli-auto-small");
  r = run_kalah("db build --pits 3 --max-seeds 6 " + small.path.string());
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("format 1 (one byte a board; --format auto)") != std::string::npos);
  r = run_kalah("db build --pits 3 --max-seeds 6 --format auto " + small.path.string());
  CHECK(r.exit_code == 0);
}

// kalah db: endgame databases (solver/db/). Subcommands:
//   build   --pits M --max-seeds S --out DIR [rule options] [--threads T] [--memory SIZE]
//   info    DIR [--json]
//   probe   DIR --position POS [--json] [rule options: checked against the database's]
//   verify  DIR [--threads T]
//   stats   --db DIR [--levels A..B] [--json] [--threads T] [--compression L] [--no-zstd] [--no-db-cache]
//   probe-rate DIR [--layout filed|bytes|packed] [--db-seeds S] [--boards N] [--probes N] [--json]
// Progress goes to stderr (a bar on a terminal, plain lines otherwise); results to stdout.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "engine/notation.hpp"
#include "engine/text.hpp"
#include "solver/analysis/analysis.hpp"
#include "solver/api/db_stats.hpp"
#include "solver/api/probe.hpp"
#include "solver/api/probe_rate.hpp"
#include "solver/api/report_json.hpp"
#include "solver/api/session.hpp"
#include "solver/cli/commands.hpp"
#include "solver/cli/common.hpp"
#include "solver/cli/interrupt.hpp"
#include "solver/db/builder.hpp"
#include "solver/db/database.hpp"
#include "solver/db/format.hpp"
#include "solver/db/manifest.hpp"
#include "solver/db/store.hpp"

namespace kalah::cli {

namespace {

std::string group(std::uint64_t n) {
  std::string s = std::to_string(n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<std::size_t>(i), ",");
  return s;
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string clock_text(double seconds) {
  const long s = std::lround(seconds);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  return buf;
}

bool rules_given(const po::variables_map& vm) {
  for (const char* o : {"capture", "end", "sowing", "early-end", "no-early-end", "pie"})
    if (vm.count(o)) return true;
  return !vm["rules"].defaulted();
}

// Progress display: a redrawn bar on a terminal, a line per level otherwise.
class Progress {
 public:
  Progress(const BoardIndexer& ix, int max_seeds) : ix_(ix), max_seeds_(max_seeds), tty_(::isatty(2) != 0) {
    t0_ = std::chrono::steady_clock::now();
  }
  void level_skipped(int k) { skipped_ += ix_.count(k); }
  // Boards of the level under construction taken from its pair files: not counted in the rate.
  void pair_skipped(std::uint64_t boards) {
    skipped_ += boards;
    level_reused_ += boards;
  }
  void update(int k, std::uint64_t done, std::uint64_t size) {
    if (!tty_) return;
    const double el = elapsed();
    const std::uint64_t finished = built_ + done - std::min(done, level_reused_);
    const double rate = el > 0 ? static_cast<double>(finished) / el : 0;
    const std::uint64_t remaining = ix_.count_upto(max_seeds_) - skipped_ - finished;
    const double frac = static_cast<double>(finished + skipped_) / static_cast<double>(ix_.count_upto(max_seeds_));
    const int width = 30, filled = static_cast<int>(frac * width);
    std::string bar(static_cast<std::size_t>(filled), '#');
    bar.resize(width, '.');
    std::fprintf(stderr, "\r  level %d/%d [%s] %5.1f%%  %7.2f M pos/s  ETA %s   ", k, max_seeds_, bar.c_str(),
                 100 * frac, rate / 1e6, rate > 0 ? clock_text(static_cast<double>(remaining) / rate).c_str() : "?");
    (void)size;
    std::fflush(stderr);
  }
  // End a progress bar being redrawn on the terminal (before another message).
  void clear_line() {
    if (tty_) std::fprintf(stderr, "\r%100s\r", "");
  }
  void level_done(int k, double seconds, std::uint64_t bytes) {
    const std::uint64_t computed = ix_.count(k) - level_reused_;
    built_ += computed;
    if (tty_) std::fprintf(stderr, "\r%100s\r", "");
    const std::string from_pairs = level_reused_ ? "  (" + group(level_reused_) + " from pair files)" : "";
    std::fprintf(stderr, "  level %2d: %15s positions  %8.2f s  %8.2f M pos/s  %10s on disk%s\n", k,
                 group(ix_.count(k)).c_str(), seconds,
                 seconds > 0 ? static_cast<double>(computed) / seconds / 1e6 : 0.0, byte_text(bytes).c_str(),
                 from_pairs.c_str());
    level_reused_ = 0;
  }
  double elapsed() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count(); }

 private:
  const BoardIndexer& ix_;
  int max_seeds_;
  bool tty_;
  std::uint64_t built_ = 0, skipped_ = 0, level_reused_ = 0;
  std::chrono::steady_clock::time_point t0_;
};

int run_build(const Args& args) {
  po::options_description options("db build options");
  // clang-format off
  options.add_options()
      ("pits,m", po::value<int>()->default_value(6), "pits a side (1..8)")
      ("max-seeds,S", po::value<int>()->required(), "largest number of seeds in the pits (levels 0..S)")
      ("out,o", po::value<std::string>()->required(), "database directory (created; resumed if it holds levels); also the one positional argument")
      ("threads,t", po::value<int>()->default_value(0), "threads (0: all cores)")
      ("memory", po::value<std::string>(), "memory cap, e.g. 4G: refuse to start when the build needs more")
      ("compression", po::value<int>()->default_value(3), "zstd level (1..19)")
      ("format", po::value<std::string>()->default_value("auto"), "level file format: 1 (one byte a board), 2 (packed, 2-4 bits a board: the build holds lower levels packed and needs about half the memory), 3 (packed by sublevel pairs: as 2, and the level being built is held a pair at a time; the format for the largest databases) or auto (the directory's own format when it has levels, else the first of 1, 2, 3 that fits in the memory cap)");
  // clang-format on
  options.add(rule_options());
  po::variables_map vm;
  po::positional_options_description pos;  // `db build DIR`, as `job init DIR`
  pos.add("out", 1);
  if (!parse_command(
          "db build",
          "[--out] DIR --pits M --max-seeds S [rule options] [--threads T] [--memory SIZE] [--format 1|2|3|auto]",
          options, args, vm, &pos))
    return 0;
  DbBuildOptions o;
  o.pits = vm["pits"].as<int>();
  o.max_seeds = vm["max-seeds"].as<int>();
  o.rules = rules_from(vm);
  o.threads = vm["threads"].as<int>();
  o.compression = vm["compression"].as<int>();
  const std::string format = vm["format"].as<std::string>();
  if (format != "auto" && format != "1" && format != "2" && format != "3")
    throw UsageError("--format must be 1, 2, 3 or auto, not " + kalah::quoted(format));
  o.format = format == "auto" ? DbBuildOptions::kChooseFormat : static_cast<std::uint32_t>(format[0] - '0');
  if (o.pits < 1 || o.pits > kMaxPits) throw UsageError("--pits must be 1..8");
  if (o.max_seeds < 0 || o.max_seeds > 127) throw UsageError("--max-seeds must be 0..127");
  if (o.threads < 0 || o.threads > 1024) throw UsageError("--threads must be between 0 and 1024");
  if (o.compression < 1 || o.compression > 19) throw UsageError("--compression must be 1..19");
  // Without --memory the cap is the machine's physical memory: a build that cannot fit is
  // refused up front instead of failing hours later.
  o.memory_limit =
      vm.count("memory") ? parse_byte_size(vm["memory"].as<std::string>(), "memory") : api::physical_memory_bytes();
  try {
    check_database_rules(o.rules);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  const std::string dir = vm["out"].as<std::string>();
  // Sizes the build cannot serve are usage errors, like a solve's (exit 2).
  BoardIndexer ix;
  try {
    ix = BoardIndexer(o.pits, o.max_seeds);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string(e.what()) + ": lower --max-seeds");
  }
  const bool chosen = o.format == DbBuildOptions::kChooseFormat;
  if (chosen) o.format = db_format_for(dir, o.pits, o.max_seeds, o.memory_limit);
  const std::uint64_t need = db_memory_needed(o.pits, o.max_seeds, o.format);
  std::cerr << "kalah db build: " << o.pits << " pits, levels 0.." << o.max_seeds << " ("
            << group(ix.count_upto(o.max_seeds)) << " positions), rules " << rules_text(o.rules) << ", format "
            << o.format
            << (o.format == dbfile::kPairedVersion   ? " (packed by sublevel pairs"
                : o.format == dbfile::kPackedVersion ? " (packed"
                                                     : " (one byte a board")
            << (chosen ? "; --format auto)" : ")") << "\n"
            << "  memory needed: " << byte_text(need)
            << (o.memory_limit ? " (limit " + byte_text(o.memory_limit) + ")" : std::string()) << "\n";
  if (o.rules.pie) std::cerr << "  note: the pie rule does not affect endgame values; it is ignored\n";

  Progress progress(ix, o.max_seeds);
  DbBuildEvents ev;
  ev.note = [&](const std::string& s) { std::cerr << "  " << s << "\n"; };
  ev.level_reused = [&](int k) { progress.level_skipped(k); };
  ev.pair_reused = [&](int, std::uint64_t boards) { progress.pair_skipped(boards); };
  ev.progress = [&](int k, std::uint64_t done, std::uint64_t size) { progress.update(k, done, size); };
  ev.level_done = [&](int k, double s, std::uint64_t b) { progress.level_done(k, s, b); };
  o.cancel = interrupt_flag();
  catch_interrupts();
  DbBuildSummary sum;
  try {
    sum = build_database(dir, o, ev);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());  // a size or memory need the build cannot serve: exit 2, nothing touched
  } catch (const BuildInterrupted& e) {
    progress.clear_line();
    std::cerr << "interrupted while building level " << e.level << ": "
              << (e.level > 0 ? "levels 0.." + std::to_string(e.level - 1) + " are complete on disk; "
                              : std::string("no level is complete yet; "))
              << (e.pairs_saved > 0
                      ? std::to_string(e.pairs_saved) + " of its " + std::to_string(SublevelIndexer::pairs(e.level)) +
                            " sublevel pairs are saved; "
                      : std::string())
              << "run the same command again to resume from level " << e.level << "\n";
    return interrupt_exit_code();
  }

  const double bpp = static_cast<double>(sum.bytes_on_disk) / static_cast<double>(sum.positions);
  std::cout << "database     " << dir << "\n"
            << "pits         " << o.pits << "\n"
            << "rules        " << rules_text(o.rules) << "\n"
            << "levels       0.." << o.max_seeds << " (" << sum.levels_built << " built, " << sum.levels_reused
            << " reused)\n"
            << "positions    " << group(sum.positions) << "\n"
            << "on disk      " << group(sum.bytes_on_disk) << " bytes (" << byte_text(sum.bytes_on_disk) << "), "
            << fixed(bpp, 3) << " bytes a position, compression ratio " << fixed(1 / bpp, 2) << "\n"
            << "memory       " << byte_text(need) << "\n"
            << "time         " << fixed(sum.seconds, 2) << " s ("
            << fixed(static_cast<double>(sum.positions) / sum.seconds / 1e6, 2) << " M positions/s)\n";
  return 0;
}

// How the levels of `scan` are held once loaded as filed.
std::string format_text(const DbScan& scan) {
  int count[4] = {0, 0, 0, 0};
  for (const DbLevelInfo& l : scan.levels) ++count[std::min<std::uint32_t>(l.header.version, 3)];
  const int levels = static_cast<int>(scan.levels.size());
  if (count[1] == levels) return ", one byte a board";
  if (count[2] == levels) return ", packed";
  if (count[3] == levels) return ", packed by sublevel pairs";
  std::string text = ", mixed:";
  const char* what[] = {"", "one byte a board (format 1)", "packed (format 2)", "packed by pairs (format 3)"};
  for (int v = 1; v <= 3; ++v)
    if (count[v]) text += " " + std::to_string(count[v]) + " levels " + what[v] + ",";
  text.pop_back();
  return text;
}

int run_info(const Args& args) {
  po::options_description options("db info options");
  options.add_options()("dir", po::value<std::string>()->required(), "database directory")(
      "json", "print one JSON object instead of text");
  po::variables_map vm;
  const auto pos = dir_positional();
  if (!parse_command("db info", "DIR [--json]", options, args, vm, &pos)) return 0;
  const std::string dir = vm["dir"].as<std::string>();
  const DbScan scan = inspect_database(dir);
  const auto& levels = scan.levels;
  const auto& h0 = levels.front().header;
  const int max_seeds = scan.max_seeds();
  const std::uint64_t bytes = scan.bytes();
  const std::uint64_t positions = scan.positions();
  if (vm.count("json")) {
    std::cout << api::json_text(api::database_json(dir, scan)) << "\n";
    return 0;
  }
  std::cout << "database     " << dir << "  (format version " << h0.version << ")\n";
  if (scan.incomplete())
    std::cout << "manifest     " << manifest_path(dir).filename().string() << ": levels 0.." << max_seeds << " of 0.."
              << scan.target_max_seeds << ": incomplete (a build stopped part way); finish it with: "
              << db_build_command(dir, h0.pits, scan.target_max_seeds, h0.rules) << "\n";
  else if (scan.has_manifest)
    std::cout << "manifest     " << manifest_path(dir).filename().string() << ": levels 0.." << max_seeds
              << ", every level file as it records\n";
  else
    std::cout << "manifest     none (built before manifests); add one with: "
              << db_build_command(dir, h0.pits, max_seeds, h0.rules) << "  (it reuses every level)\n";
  if (!scan.unused_levels.empty()) {
    std::string list;
    for (const int k : scan.unused_levels) list += (list.empty() ? "" : ", ") + std::to_string(k);
    std::cout << "unused       level " << list << ": above the manifest's levels 0.." << max_seeds
              << " (an interrupted or unfinished extension), not used\n";
  }
  for (const DbScan::SavedPairs& s : scan.saved_pairs)
    std::cout << "pair files   level " << s.level << ": " << s.pairs << " of " << SublevelIndexer::pairs(s.level)
              << " pairs saved by a build stopped inside it ("
              << (s.level > max_seeds ? "a build to " + std::to_string(s.level) + " seeds reuses them"
                                      : std::string("left over; a build removes them"))
              << ")\n";
  std::vector<std::pair<int, std::string>> built_by;
  for (const DbLevelInfo& l : levels) built_by.emplace_back(l.level, l.program);
  std::cout << "built by     " << programs_text(built_by, "level", "..") << "\n";
  std::cout << "pits         " << h0.pits << "\n"
            << "rules        " << rules_text(h0.rules) << "\n"
            << "levels       0.." << max_seeds << "\n"
            << "positions    " << group(positions) << "\n"
            << "on disk      " << group(bytes) << " bytes (" << byte_text(bytes) << "), "
            << fixed(static_cast<double>(bytes) / static_cast<double>(positions), 3) << " bytes a position\n"
            << "memory       " << byte_text(scan.memory_bytes()) << " to load every level as filed ("
            << fixed(scan.bits_per_board(), 2) << " bits a board" << format_text(scan) << ")\n\n"
            << "level          entries       bytes  blocks  bytes/entry  bits in memory\n";
  for (const auto& l : levels)
    std::cout << std::string(l.level < 10 ? 4 : 3, ' ') << l.level << std::string(1, ' ')
              << std::string(16 - std::min<std::size_t>(16, group(l.header.entries).size()), ' ')
              << group(l.header.entries) << std::string(12 - std::min<std::size_t>(12, group(l.bytes).size()), ' ')
              << group(l.bytes) << "  "
              << std::string(6 - std::min<std::size_t>(6, std::to_string(l.header.blocks).size()), ' ')
              << l.header.blocks << "  "
              << fixed(static_cast<double>(l.bytes) / static_cast<double>(l.header.entries), 4) << "  "
              << std::string(14 - fixed(l.header.bits_per_board(), 2).size(), ' ')
              << fixed(l.header.bits_per_board(), 2) << "\n";
  return 0;
}

int run_probe(const Args& args) {
  po::options_description options("db probe options");
  options.add_options()("dir", po::value<std::string>()->required(), "database directory")(
      "position", po::value<std::string>()->required(), "S1,..,Sm/N1,..,Nm/storeS/storeN/S|N")(
      "json", "print one JSON object instead of text")(
      "no-db-cache", "read the level files only: neither map nor write raw cache files (level-KKK.raw)");
  options.add(rule_options("the database's, when no rule option is given"));
  po::variables_map vm;
  const auto pos = dir_positional();
  if (!parse_command("db probe", "DIR --position POS [--json] [--no-db-cache] [rule options]", options, args, vm, &pos))
    return 0;
  const std::string dir = vm["dir"].as<std::string>();
  Position p;
  try {
    p = Position::parse(vm["position"].as<std::string>());
  } catch (const PositionError& e) {
    throw UsageError(e.what());
  }
  const api::ProbeReport r = api::probe_database(
      dir, p, rules_given(vm) ? std::optional<Rules>(rules_from(vm)) : std::nullopt, !vm.count("no-db-cache"),
      [](const std::string& line) { std::cerr << "note: " << line << "\n"; });
  if (vm.count("json")) {
    std::cout << api::json_text(api::to_json(r)) << "\n";
    return 0;
  }
  const PositionSolution& sol = r.play;
  const Rules& rules = r.rules;
  const int rem = r.remainder;
  const std::string best = pits_text(sol.best);
  std::cout << "position  " << p.to_text() << "\n"
            << "rules     " << rules_text(rules) << "\n"
            << "value     " << signed_value(sol.value) << " (" << outcome_text(sol.value)
            << ", South minus North with perfect play)\n"
            << "remainder " << signed_value(rem) << " (" << side_name(p.to_move)
            << "'s future store gain minus the opponent's)\n";
  if (rules.early_end) std::cout << "note      " << kEarlyEndNote << "\n";
  std::cout << "best      " << (best.empty() ? "(game over)" : best) << "  (pits of " << side_name(p.to_move)
            << ", 1 = leftmost)\n"
            << "pv        " << format_finnish(sol.pv, p.to_move) << "  (Finnish notation)\n"
            << "final     " << sol.final_position.to_text() << "\n";
  return 0;
}

int run_verify(const Args& args) {
  po::options_description options("db verify options");
  options.add_options()("dir", po::value<std::string>()->required(), "database directory")(
      "threads,t", po::value<int>()->default_value(0), "threads (0: all cores)")(
      "sample", po::value<std::uint64_t>(),
      "re-derive N random entries a level (all of a smaller level) from the database as a solve "
      "loads it (raw caches mapped, shared with a running search) instead of every entry from the "
      "level files: a quick check, not a proof")("seed", po::value<std::uint64_t>()->default_value(1),
                                                 "--sample: the draw's seed");
  po::variables_map vm;
  const auto pos = dir_positional();
  if (!parse_command("db verify", "DIR [--threads T] [--sample N [--seed S]]", options, args, vm, &pos)) return 0;
  const std::string dir = vm["dir"].as<std::string>();
  const int threads = vm["threads"].as<int>();
  if (threads < 0 || threads > 1024) throw UsageError("--threads must be between 0 and 1024");
  const bool sample = vm.count("sample") > 0;
  const std::uint64_t samples = sample ? vm["sample"].as<std::uint64_t>() : 0;
  if (sample && (samples < 1 || samples > (std::uint64_t(1) << 40)))
    throw UsageError("--sample must be between 1 and 2^40");
  if (!sample && !vm["seed"].defaulted()) throw UsageError("--seed needs --sample");
  const auto started = [&](const DbScan& scan) {
    const dbfile::Header& h0 = scan.levels.front().header;
    std::cerr << "kalah db verify: " << dir << ", " << h0.pits << " pits, levels 0.." << scan.levels.back().level
              << ", rules " << rules_text(h0.rules)
              << (sample ? ", " + group(samples) + " random entries a level" : std::string()) << "\n";
  };
  const auto level_ok = [&](int k, std::uint64_t entries) {
    if (sample)
      std::cerr << "  level " << k << ": " << group(entries) << " entries drawn and re-derived, all equal\n";
    else
      std::cerr << "  level " << k << ": " << group(entries) << " entries re-derived, checksums ok\n";
  };
  if (sample) {
    const std::uint64_t seed = vm["seed"].as<std::uint64_t>();
    const auto note = [](const std::string& text) { std::cerr << "note: " << text << "\n"; };
    const DbVerifySummary sum = verify_database_sample(dir, samples, seed, threads, started, level_ok, note);
    std::cout << "sampled      " << dir << ": levels 0.." << sum.max_seeds << ", " << group(sum.positions)
              << " entries drawn and re-derived from their successors, all equal; checksums ok as loaded (a "
              << "sample, seed " << seed << ": the full verify re-derives every entry) (" << fixed(sum.seconds, 2)
              << " s)\n";
    return 0;
  }
  const DbVerifySummary sum = verify_database(dir, threads, started, level_ok);
  std::cout << "verified     " << dir << ": levels 0.." << sum.max_seeds << ", " << group(sum.positions)
            << " positions, every checksum and every entry correct (" << fixed(sum.seconds, 2) << " s)\n";
  return 0;
}

// "A..B" or "K" (one level); a missing end after ".." is the database's top level (-1).
std::pair<int, int> parse_level_range(const std::string& text) {
  const auto bad = [&]() { return UsageError("--levels wants A..B or K (level numbers), not " + kalah::quoted(text)); };
  const auto number = [&](const std::string& t) {
    if (t.empty() || t.size() > 3 || t.find_first_not_of("0123456789") != std::string::npos) throw bad();
    return std::stoi(t);
  };
  const auto dots = text.find("..");
  if (dots == std::string::npos) {
    const int k = number(text);
    return {k, k};
  }
  const int first = number(text.substr(0, dots));
  const std::string rest = text.substr(dots + 2);
  const int last = rest.empty() ? -1 : number(rest);
  if (last >= 0 && last < first) throw bad();
  return {first, last};
}

std::string percent(std::uint64_t part, std::uint64_t whole) {
  return fixed(whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0, 1);
}

// One row of the stats table (the columns of stats_legend).
std::string stats_row(const LevelStats& st, std::uint64_t file_bytes, bool compressed) {
  const double boards = static_cast<double>(st.boards);
  const auto per_board = [&](std::uint64_t bytes) {
    return compressed ? fixed(static_cast<double>(bytes) / boards, 3) : std::string("-");
  };
  char row[512];
  std::snprintf(row, sizeof row, "%5d %15s %6s %6s %6.3f %6.3f %6.3f %6.3f %6.3f %6s %6s %6s %7s %7s %7s %7s", st.level,
                group(st.boards).c_str(), percent(st.terminal(), st.boards).c_str(),
                percent(st.no_leaving(), st.boards).c_str(), st.h_value(), st.h_value_given_side(), st.h_excess(),
                st.h_value_given_p(), st.h_value_given_class_side(), percent(st.value_equals_p(), st.boards).c_str(),
                percent(st.escapes(3), st.boards).c_str(), percent(st.escapes(4), st.boards).c_str(),
                fixed(static_cast<double>(file_bytes) / boards, 3).c_str(), per_board(st.raw_bytes).c_str(),
                per_board(st.code_bytes).c_str(), per_board(st.nibble_bytes + st.escape_bytes).c_str());
  return row;
}

const char* const kStatsHeader =
    "level          boards  term%  noP%     H0    H|s  H(v-P) H(v|P) H|P,s   v=P%  esc3%  esc4%    disk     raw    "
    "code  nibble";

const char* const kStatsLegend =
    "columns: term% boards whose game is over; noP% boards with no sowing that leaves the level (no P); H0 = H(v), "
    "H|s = H(v | seeds on the mover's side), H(v-P) and H(v|P) over boards with P, H|P,s = H(v | P or no P or over, s) "
    "over all boards, in bits a board; v=P% boards whose value is P (of all boards); esc3%/esc4% boards whose code "
    "(v-P)/2, or the value zigzagged from 0 without P, needs an escape in 3/4 bits; bytes a board: disk the level "
    "file, raw/code/"
    "nibble the zstd-compressed packings (nibble with its escaped values); docs/json.md";

int run_stats(const Args& args) {
  po::options_description options("db stats options");
  // clang-format off
  options.add_options()
      ("db", po::value<std::string>()->required(), "database directory (also the first argument)")
      ("levels", po::value<std::string>(), "levels to measure: A..B, A.. or K (default: every level)")
      ("json", "print one JSON object instead of text")
      ("threads,t", po::value<int>()->default_value(0), "threads (0: all cores)")
      ("compression", po::value<int>()->default_value(3), "zstd level of the packings (1..19; level files: 3)")
      ("no-zstd", "leave out the compressed sizes (the entropies alone, faster)")
      ("no-db-cache", "read the level files only: neither map nor write raw cache files (level-KKK.raw)");
  // clang-format on
  po::variables_map vm;
  po::positional_options_description pos;
  pos.add("db", 1);
  if (!parse_command("db stats", "--db DIR [--levels A..B] [--json] [--threads T] [--compression L] [--no-zstd]",
                     options, args, vm, &pos))
    return 0;
  LevelStatsOptions o;
  o.threads = vm["threads"].as<int>();
  o.compression = vm["compression"].as<int>();
  o.compress = !vm.count("no-zstd");
  if (o.threads < 0 || o.threads > 1024) throw UsageError("--threads must be between 0 and 1024");
  if (o.compression < 1 || o.compression > 19) throw UsageError("--compression must be 1..19");
  const auto [first, last] = vm.count("levels") ? parse_level_range(vm["levels"].as<std::string>()) : std::pair{0, -1};
  const std::string dir = vm["db"].as<std::string>();
  const bool json = vm.count("json") > 0;
  bool header_printed = false;
  const api::DbStatsReport r = api::database_stats(
      dir, first, last, o, !vm.count("no-db-cache"),
      [](const std::string& line) { std::cerr << "note: " << line << "\n"; },
      [&](const LevelStats& st, std::uint64_t file_bytes) {
        if (json) return;
        if (!header_printed) {
          std::cout << kStatsHeader << "\n";
          header_printed = true;
        }
        std::cout << stats_row(st, file_bytes, o.compress) << std::endl;  // a level can take minutes
      });
  if (json) {
    std::cout << api::json_text(api::to_json(r)) << "\n";
    return 0;
  }
  std::cout << "\ndatabase     " << dir << "\n"
            << "pits         " << r.pits << "\n"
            << "rules        " << rules_text(r.rules) << "\n"
            << "levels       " << r.levels.front().level << ".." << r.levels.back().level << " of 0.." << r.max_seeds
            << "\n"
            << "packings     "
            << (o.compress ? "zstd level " + std::to_string(o.compression) + ", blocks of " + group(o.block_entries) +
                                 " boards"
                           : std::string("not compressed (--no-zstd)"))
            << "\n"
            << "time         " << fixed(r.seconds, 2) << " s\n"
            << kStatsLegend << "\n";
  return 0;
}

int run_probe_rate(const Args& args) {
  po::options_description options("db probe-rate options");
  // clang-format off
  options.add_options()
      ("dir", po::value<std::string>()->required(), "database directory")
      ("layout", po::value<std::string>()->default_value("filed"), "levels in memory: filed (as the files hold them), bytes (one byte a board) or packed")
      ("db-seeds", po::value<int>(), "load levels 0..S only (default: all)")
      ("boards", po::value<std::uint64_t>()->default_value(std::uint64_t(1) << 20), "distinct random boards")
      ("probes", po::value<std::uint64_t>()->default_value(std::uint64_t(1) << 24), "reads timed each way")
      ("batch", po::value<int>()->default_value(8), "reads prefetched together in the batched way (1..64)")
      ("seed", po::value<std::uint64_t>()->default_value(1), "random seed of the boards")
      ("json", "print one JSON object instead of text")
      ("no-db-cache", "read the level files only: neither map nor write raw cache files (level-KKK.raw)");
  // clang-format on
  po::variables_map vm;
  const auto pos = dir_positional();
  if (!parse_command("db probe-rate",
                     "DIR [--layout filed|bytes|packed] [--db-seeds S] [--boards N] [--probes N] [--json]", options,
                     args, vm, &pos))
    return 0;
  const std::string layout = vm["layout"].as<std::string>();
  if (layout != "filed" && layout != "bytes" && layout != "packed")
    throw UsageError("--layout must be filed, bytes or packed, not " + kalah::quoted(layout));
  api::ProbeRateOptions o;
  o.boards = vm["boards"].as<std::uint64_t>();
  o.probes = vm["probes"].as<std::uint64_t>();
  o.batch = vm["batch"].as<int>();
  o.seed = vm["seed"].as<std::uint64_t>();
  if (o.boards < 1 || o.boards > (std::uint64_t(1) << 30)) throw UsageError("--boards must be 1..2^30");
  if (o.probes < 1) throw UsageError("--probes must be positive");
  if (o.batch < 1 || o.batch > 64) throw UsageError("--batch must be 1..64");
  using Layout = api::SessionConfig::DatabaseLayout;
  const Layout held = layout == "packed" ? Layout::packed : layout == "bytes" ? Layout::bytes : Layout::as_filed;
  const std::string dir = vm["dir"].as<std::string>();
  const int seeds = vm.count("db-seeds") ? vm["db-seeds"].as<int>() : -1;
  if (vm.count("db-seeds") && seeds < 0) throw UsageError("--db-seeds must not be negative");
  api::ProbeRateReport r;
  try {
    r = api::measure_database_probe_rate(dir, held, seeds, o, !vm.count("no-db-cache"),
                                         [](const std::string& line) { std::cerr << "note: " << line << "\n"; });
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  if (vm.count("json")) {
    std::cout << api::json_text(api::to_json(r)) << "\n";
    return 0;
  }
  std::cout << "database     " << dir << " (levels 0.." << r.max_seeds << ", "
            << (r.packed ? "packed" : "one byte a board") << ", " << byte_text(r.memory_bytes) << ", "
            << fixed(r.bits_per_board, 2) << " bits a board; loaded in " << fixed(r.load_seconds, 2) << " s)\n"
            << "boards       " << group(r.boards) << " random boards of levels 0.." << r.max_seeds << " (value sum "
            << r.value_sum << ")\n"
            << "one by one   " << fixed(r.ns_single, 1) << " ns a read (" << group(r.probes) << " reads, 1 thread)\n"
            << "batched      " << fixed(r.ns_batched, 1) << " ns a read (" << r.batch << " prefetched together)\n";
  return 0;
}

}  // namespace

int run_db(const Args& args) {
  static const char* usage =
      "usage: kalah db <build|info|probe|verify|stats|probe-rate> ...   (kalah db <subcommand> --help)";
  if (args.empty()) throw UsageError(usage);
  const std::string& sub = args[0];
  const Args rest(args.begin() + 1, args.end());
  if (sub == "build") return run_build(rest);
  if (sub == "info") return run_info(rest);
  if (sub == "probe") return run_probe(rest);
  if (sub == "verify") return run_verify(rest);
  if (sub == "stats") return run_stats(rest);
  if (sub == "probe-rate") return run_probe_rate(rest);
  if (sub == "--help" || sub == "-h") {
    std::cout << usage << "\n"
              << "  build   build (or resume) a database: --pits M --max-seeds S --out DIR [rules] [--threads T]\n"
              << "          [--memory SIZE] [--format 1|2|3|auto]\n"
              << "  info    what a database directory holds\n"
              << "  probe   exact value and best move of a position: DIR --position POS [--json]\n"
              << "  verify  re-derive every entry from its successors and check every checksum: DIR\n"
              << "  stats   per level: value entropies against cheap predictors, zstd sizes of packings: --db DIR\n"
              << "          [--levels A..B] [--json]\n"
              << "  probe-rate  ns a random read in the levels as held in memory: DIR [--layout filed|bytes|packed]\n";
    return 0;
  }
  throw UsageError("unknown db subcommand " + kalah::quoted(sub) + "; " + usage);
}

}  // namespace kalah::cli

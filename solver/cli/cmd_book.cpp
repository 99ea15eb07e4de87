// kalah book: the opening book (solver/book, docs/book.md). `build` solves every board within
// P sowings of a start position into an SQLite file (resumable; Ctrl-C keeps what is done),
// `info` says what a book holds, `verify` reads every entry back against its checksum.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <thread>

#include "engine/text.hpp"
#include "solver/api/report_json.hpp"
#include "solver/book/book.hpp"
#include "solver/book/build.hpp"
#include "solver/cli/commands.hpp"
#include "solver/cli/common.hpp"
#include "solver/cli/interrupt.hpp"
#include "solver/cli/session_options.hpp"

namespace kalah::cli {

namespace {

po::positional_options_description file_positional() {
  po::positional_options_description p;
  p.add("file", 1);
  return p;
}

std::string duration_text(double seconds) {
  const long long s = static_cast<long long>(seconds + 0.5);
  return s >= 60 ? std::to_string(s / 60) + " min " + std::to_string(s % 60) + " s" : std::to_string(s) + " s";
}

// Boards a second: whole above 10, else to a tenth.
std::string rate_text(double rate) {
  char text[32];
  std::snprintf(text, sizeof text, rate >= 10 ? "%.0f" : "%.1f", rate);
  return text;
}

// Progress on stderr: a line rewritten in place on a terminal, a plain line every 10 s in a log.
class Progress {
 public:
  Progress() : tty_(::isatty(STDERR_FILENO) != 0) {}
  void update(const book::BookBuildProgress& p, bool last) {
    if (!last && p.seconds - shown_ < (tty_ ? 1.0 : 10.0)) return;
    shown_ = p.seconds;
    const double rate = p.seconds > 0 ? static_cast<double>(p.solved) / p.seconds : 0;
    std::string text = "book: ply " + std::to_string(p.ply) + ", " + std::to_string(p.solved) + " of " +
                       std::to_string(p.to_solve) + " boards solved, " + rate_text(rate) + " a second";
    if (rate > 0 && p.solved < p.to_solve)
      text += ", about " + duration_text(static_cast<double>(p.to_solve - p.solved) / rate) + " left";
    if (tty_ && !last)
      std::cerr << "\r" << text << "\033[K" << std::flush;
    else if (!tty_)
      std::cerr << text << "\n";
    else
      std::cerr << "\r\033[K" << std::flush;
  }

 private:
  bool tty_;
  double shown_ = 0;
};

int run_build(const Args& args) {
  po::options_description options("book build options");
  // clang-format off
  options.add_options()
      ("file", po::value<std::string>(), "the book (an SQLite file; created, or extended and resumed; default "
       "kalahMN-RULES.book in the current directory, e.g. kalah64-standard.book)")
      ("pits,m", po::value<int>()->default_value(6), "pits a side")
      ("seeds,n", po::value<int>()->default_value(4), "seeds a pit at the start")
      ("plies", po::value<int>()->required(), "solve every board within this many sowings of the start (an extra "
       "turn's sowing counts as one)");
  // clang-format on
  options.add(rule_options()).add(search_options());
  po::variables_map vm;
  const auto pos = file_positional();
  if (!parse_command("book build", "[FILE] --plies P [--pits M --seeds N] [rule options] [--db DIR] [--threads T]",
                     options, args, vm, &pos))
    return 0;
  const Rules rules = rules_from(vm);
  const int pits = vm["pits"].as<int>();
  const int seeds = vm["seeds"].as<int>();
  if (seeds < 1) throw UsageError("--seeds must be at least 1");
  try {
    check_size(pits, seeds);
  } catch (const PositionError& e) {
    throw UsageError(e.what());
  }
  book::BookBuildOptions build;
  build.file = vm.count("file") ? vm["file"].as<std::string>()
                                : "kalah" + std::to_string(pits) + std::to_string(seeds) + "-" +
                                      rules.value_rules().preset_name() + ".book";
  build.seeds = seeds;
  build.plies = vm["plies"].as<int>();
  if (build.plies < 0 || build.plies > book::kMaxPlies)
    throw UsageError("--plies must be between 0 and " + std::to_string(book::kMaxPlies));
  api::SessionConfig config = session_config(vm, pits, rules, 2 * pits * seeds);
  config.progress = nullptr;
  build.workers.count =
      config.threads > 0 ? config.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  build.workers.share_table = true;
  catch_interrupts();
  Progress progress;
  const book::BookBuildReport r =
      book::build_book(config, build, [&](const book::BookBuildProgress& p) { progress.update(p, p.done); });
  std::uint64_t boards = 0;
  for (const std::uint64_t n : r.boards_by_ply) boards += n;
  std::cout << "book      " << build.file << "  (Kalah(" << pits << "," << seeds << "), "
            << rules_text(rules.value_rules()) << ")\n"
            << "boards    " << boards << " within " << build.plies << " plies: " << r.reused << " already in the book, "
            << r.solved << " solved now (" << r.nodes << " nodes, " << duration_text(r.seconds) << ")\n";
  if (r.repaired > 0)
    std::cout << "repaired  " << r.repaired
              << " damaged entries deleted, those within the plies solved again (the first: " << r.first_damage
              << ")\n";
  if (r.interrupted) {
    std::cout << "interrupted: the " << r.solved << " boards solved are kept; run the same command to resume\n";
    return interrupt_exit_code() ? interrupt_exit_code() : 1;
  }
  std::cout << "complete  every board within " << r.plies << " plies\n";
  return 0;
}

int run_info(const Args& args, bool verify) {
  po::options_description options(verify ? "book verify options" : "book info options");
  options.add_options()("file", po::value<std::string>()->required(), "the book")(
      "json", "print one JSON object instead of text");
  po::variables_map vm;
  const auto pos = file_positional();
  if (!parse_command(verify ? "book verify" : "book info", "FILE [--json]", options, args, vm, &pos)) return 0;
  const book::Book b(vm["file"].as<std::string>());
  const book::BookInfo& info = b.info();
  std::vector<std::uint64_t> by_ply;
  if (verify) {
    try {
      by_ply = b.verify();
    } catch (const book::BookError& e) {  // exit 1, with the way to repair it
      throw book::BookError(std::string(e.what()) +
                            "; kalah book build on it with its game and plies deletes the damaged entries and solves "
                            "their boards again");
    }
  }
  if (vm.count("json")) {
    api::Json j;
    j["file"] = b.name();
    j["format"] = info.format;
    j["pits"] = info.pits;
    j["seeds"] = info.seeds;
    j["rules"] = api::rules_json(info.rules);
    j["plies"] = info.plies;
    j["boards"] = b.boards();
    if (verify) {
      j["verified"] = true;
      j["boards_by_ply"] = by_ply;
    }
    std::cout << api::json_text(j) << "\n";
    return 0;
  }
  std::cout << "book      " << b.name() << "  (format " << info.format << ")\n"
            << "game      Kalah(" << info.pits << "," << info.seeds << "), " << rules_text(info.rules) << "\n"
            << "boards    " << b.boards() << "\n"
            << "complete  "
            << (info.plies >= 0 ? "every board within " + std::to_string(info.plies) + " plies of the start"
                                : std::string("no depth yet (a build is running, or stopped part way: run it again "
                                              "to finish)"))
            << "\n";
  if (verify) {
    std::cout << "verified  every entry's checksum and SQLite's integrity check\n";
    for (std::size_t ply = 0; ply < by_ply.size(); ++ply)
      std::cout << "  ply " << ply << ": " << by_ply[ply] << " boards\n";
  }
  return 0;
}

}  // namespace

int run_book(const Args& args) {
  static const char* usage = "usage: kalah book <build|info|verify> ...   (kalah book <subcommand> --help)";
  if (args.empty()) throw UsageError(usage);
  const std::string& sub = args[0];
  const Args rest(args.begin() + 1, args.end());
  if (sub == "build") return run_build(rest);
  if (sub == "info") return run_info(rest, false);
  if (sub == "verify") return run_info(rest, true);
  if (sub == "--help" || sub == "-h") {
    std::cout << usage << "\n"
              << "  build   solve every board within P sowings of the start into FILE (resumable):\n"
              << "          [FILE] --plies P [--pits M --seeds N] [rules] [--db DIR] [--threads T] [--memory SIZE]\n"
              << "          (FILE: kalahMN-RULES.book by default)\n"
              << "  info    what a book holds: FILE [--json]\n"
              << "  verify  every entry read back against its checksum: FILE [--json]\n";
    return 0;
  }
  throw UsageError("unknown book subcommand " + kalah::quoted(sub) + "; " + usage);
}

}  // namespace kalah::cli

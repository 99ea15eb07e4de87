// The `kalah` command-line tool: dispatches to the subcommands of commands.hpp.
#include <exception>
#include <iostream>
#include <new>
#include <string>

#include "engine/text.hpp"
#include "solver/api/session.hpp"
#include "solver/base/program_version.hpp"
#include "solver/cli/commands.hpp"
#include "solver/cli/common.hpp"
#include "solver/cli/interrupt.hpp"

namespace {

struct Command {
  const char* name;
  int (*run)(const kalah::cli::Args&);
  const char* summary;
};

const Command kCommands[] = {
    {"solve", kalah::cli::run_solve, "exact value, best move and principal variation of a position"},
    {"openings", kalah::cli::run_openings, "value of every first sowing and first turn; pie rule"},
    {"replay", kalah::cli::run_replay, "replay a game record (Finnish or Irving notation)"},
    {"analyze", kalah::cli::run_analyze, "every turn of a game record: value, best turns, mistakes"},
    {"label", kalah::cli::run_label, "every sowing's exact value for many positions, JSON lines"},
    {"sample", kalah::cli::run_sample, "random reachable positions with a given number of seeds in the pits"},
    {"db", kalah::cli::run_db, "endgame databases: build, info, probe, verify, stats"},
    {"book", kalah::cli::run_book, "the opening book: every board within P sowings of a start solved (SQLite)"},
    {"serve", kalah::cli::run_serve, "the explorer: a web page and a JSON API with every move's exact value"},
    {"job", kalah::cli::run_job,
     "resumable proof jobs: init, run (threads or MPI ranks), status, verify, estimate, history"},
    {"bench", kalah::cli::run_bench, "fixed search benchmark; prints a node-count signature"},
};

// Every error is printed through here: one line, whatever a lower layer put in the message.
void print_error(const std::string& message) { std::cerr << kalah::one_line(message, 512) << "\n"; }

void print_usage(std::ostream& out) {
  out << "Usage: kalah <command> [options]   (kalah <command> --help for its options; kalah --version)\n\n"
         "Commands:\n";
  for (const auto& c : kCommands)
    out << "  " << c.name << std::string(10 - std::string(c.name).size(), ' ') << c.summary << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    print_usage(std::cerr);
    return 2;
  }
  const std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    print_usage(std::cout);
    return 0;
  }
  if (name == "--version" || name == "version") {
    std::cout << "kalah " << kalah::program_version() << " (" << kalah::program_build() << ")\n";
    return 0;
  }
  const kalah::cli::Args args(argv + 2, argv + argc);
  for (const auto& c : kCommands) {
    if (name != c.name) continue;
    try {
      return c.run(args);
    } catch (const kalah::cli::UsageError& e) {
      print_error("kalah " + name + ": " + e.what());
      return 2;
    } catch (const kalah::api::ConfigError& e) {  // a size or memory split the library cannot serve
      print_error("kalah " + name + ": " + e.what());
      return 2;
    } catch (const std::bad_alloc&) {
      print_error("kalah " + name + ": out of memory");
      return 1;
    } catch (const std::exception& e) {
      print_error("kalah " + name + ": " + e.what());
      return 1;
    }
  }
  print_error("kalah: unknown command " + kalah::quoted(name) + " (see 'kalah --help')");
  return 2;
}

// kalah openings: the exact value of every first sowing and every complete first turn of a
// position (the start by default), the first player's advantage, and the pie-rule value
// with the most balanced opening(s). Parses the options, calls api::openings (one session
// answers every query, so its table carries over from one opening to the next) and renders
// its report.
#include <iostream>

#include "solver/api/report_json.hpp"
#include "solver/api/reports.hpp"
#include "solver/cli/commands.hpp"
#include "solver/cli/common.hpp"
#include "solver/cli/interrupt.hpp"
#include "solver/cli/session_options.hpp"

namespace kalah::cli {

namespace {

void print_text(const api::OpeningsReport& r) {
  const Openings& o = r.openings;
  const char* mover = side_name(r.position.to_move);
  std::cout << "position  " << r.position.to_text() << "\n"
            << "rules     " << rules_text(r.rules) << "\n";
  if (r.rules.early_end) std::cout << "note      " << kEarlyEndNote << "\n";
  if (r.interrupted && r.lower < r.upper)
    std::cout << "value     between " << signed_value(r.lower) << " and " << signed_value(r.upper)
              << " (interrupted: the bounds proven so far, South minus North)\n";
  else
    std::cout << "value     " << signed_value(r.lower) << " (" << outcome_text(r.lower)
              << "; the first player's advantage, South minus North)\n";
  std::cout << "\nfirst sowings of " << mover << " (pit: value South minus North)\n";
  for (const SowingValue& m : o.moves)
    std::cout << "  " << m.pit + 1 << ": " << signed_value(m.value) << (m.extra_turn ? "  (extra turn)" : "") << "\n";
  std::cout << "\ncomplete first turns (pits: value)\n";
  for (const TurnValue& t : o.turns)
    std::cout << "  " << pits_text(t.pits, "-") << ": " << signed_value(t.value) << "\n";
  std::cout << "\n";
  if (o.pie_value) {
    std::cout << "pie value " << signed_value(*o.pie_value)
              << (r.rules.pie ? " (pie rule on: " : " (if the pie rule were on: ")
              << "the first player's margin when North may swap after the first turn)\n"
              << "balanced  ";
    for (std::size_t i = 0; i < o.balanced.size(); ++i) std::cout << (i ? ", " : "") << pits_text(o.balanced[i], "-");
    std::cout << "  (most balanced first turns)\n";
  } else if (!r.interrupted) {
    std::cout << "pie value (only defined from a start position)\n";
  }
  std::cout << "nodes     " << r.stats.nodes << "  (" << r.stats.threads << " threads)\n"
            << "time      " << r.stats.seconds << " s\n";
  if (r.interrupted) std::cout << "interrupted: the sowings and turns listed are the ones finished\n";
}

}  // namespace

int run_openings(const Args& args) {
  po::options_description options("Openings options");
  options.add_options()("json", "print one JSON object instead of text");
  options.add(board_options(6, 4)).add(rule_options()).add(search_options()).add(book_options());
  po::variables_map vm;
  if (!parse_command(
          "openings",
          "[--pits M --seeds N | --position POS] [rule options] [--pie] [--db DIR] [--book FILE] [--threads T] "
          "[--tt-memory SIZE] [--json]",
          options, args, vm))
    return 0;
  const Rules rules = rules_from(vm);
  const Position start = position_from(vm);
  const int seeds = start.pit_seeds(Side::South) + start.pit_seeds(Side::North);
  api::SessionConfig config = session_config(vm, start.pits, rules, seeds);
  config.book = book_from(vm);
  api::Session session(config);
  note_database(session);
  catch_interrupts();  // from here on Ctrl-C stops the search and reports
  const api::OpeningsReport report = api::openings(session, start);
  if (vm.count("json"))
    std::cout << api::json_text(api::to_json(report)) << "\n";
  else
    print_text(report);
  return report.interrupted ? interrupt_exit_code() : 0;
}

}  // namespace kalah::cli

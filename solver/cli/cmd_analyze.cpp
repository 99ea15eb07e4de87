// kalah analyze: a game record turn by turn, each turn's value before and after, the best
// turns, the margin lost, mistakes and where the result changed; a summary per side.
// Parses the options and the record, calls api::analyze on one session and renders it.
#include <unistd.h>

#include <iostream>

#include "engine/ascii.hpp"
#include "solver/api/analyze.hpp"
#include "solver/api/report_json.hpp"
#include "solver/cli/commands.hpp"
#include "solver/cli/common.hpp"
#include "solver/cli/interrupt.hpp"
#include "solver/cli/session_options.hpp"

namespace kalah::cli {

namespace {

std::string turns_text(const std::vector<std::vector<int>>& turns) {
  std::string text;
  for (const auto& t : turns) text += (text.empty() ? "" : ", ") + pits_text(t, "-");
  return text;
}

void print_text(const api::GameAnalysis& a, Notation notation, const std::string& record) {
  std::cout << "rules     " << rules_text(a.rules) << "\n"
            << "start     " << a.game.start.to_text() << "\n"
            << "record    " << record << "  (" << to_string(notation) << " notation)\n"
            << "values    South minus North with perfect play to the natural end; lost: how much worse than "
               "the best turn for the side that played\n";
  if (a.rules.early_end) std::cout << "note      " << kEarlyEndNote << "\n";
  std::cout << "\n";
  // The record's own warnings (a capture not marked '*', ...), as `kalah replay` gives them.
  // Counted as printed: an interrupted analysis shows the analysed turns' warnings only.
  std::size_t warnings = 0;
  const auto warn = [&a, &warnings](int number) {
    for (const ReplayedTurn& played : a.game.turns)
      if (played.number == number)
        for (const std::string& w : played.warnings) {
          std::cout << "warning   " << w << "\n";
          ++warnings;
        }
  };
  for (const api::TurnAnalysis& t : a.turns) {
    std::cout << "turn " << t.number << "  " << side_name(t.side) << "  " << t.text;
    if (t.swap) {
      std::cout << "  (pie rule swap, not valued)\n";
      warn(t.number);
      continue;
    }
    std::cout << "  value " << signed_value(t.value_before) << " -> " << signed_value(t.value_after);
    if (t.mistake)
      std::cout << "  lost " << t.margin_lost << "  MISTAKE" << (t.result_changed ? ", the result changed" : "")
                << "; best " << turns_text(t.best) << "\n";
    else
      std::cout << "  best\n";
    warn(t.number);
    if (t.mistake) std::cout << ascii_board(t.before) << "\n";
  }
  std::cout << "\n";
  for (const Side side : {Side::South, Side::North}) {
    const api::PlayerSummary& p = side == Side::South ? a.south : a.north;
    std::cout << side_name(side) << "     " << p.turns << " turns, " << p.mistakes << " mistake"
              << (p.mistakes == 1 ? "" : "s") << ", margin lost " << p.margin_lost << "\n";
  }
  for (const api::TurnAnalysis& t : a.turns)
    if (t.result_changed)
      std::cout << "result    changed at turn " << t.number << " (" << side_name(t.side) << " " << t.text
                << "): " << outcome_text(t.value_before) << " -> " << outcome_text(t.value_after) << "\n";
  const Position& f = a.game.final_position;
  std::cout << "final     " << (a.game.over ? outcome_text(f.margin()) : "unfinished") << " (stores "
            << f.store_of(Side::South) << "-" << f.store_of(Side::North) << ")\n"
            << "nodes     " << a.nodes << "\n"
            << "time      " << a.seconds << " s\n";
  if (warnings > 0) std::cout << "warnings  " << warnings << " (see above)\n";
  if (a.interrupted)
    std::cout << "interrupted: " << a.turns.size() << " of " << a.game.turns.size() << " turns analysed\n";
}

}  // namespace

int run_analyze(const Args& raw_args) {
  po::options_description options("Analyze options");
  options.add_options()("json", "print one JSON object instead of text");
  options.add(record_options()).add(board_options(6, 4)).add(rule_options()).add(search_options()).add(book_options());
  po::options_description known = options;
  add_help_option(known);
  const Args args = protect_records(raw_args, known);
  const po::positional_options_description positional = record_positional();
  po::variables_map vm;
  if (!parse_command(
          "analyze",
          "[--pits M --seeds N | --position POS] [rule options] [--notation finnish|irving] [--db DIR] [--book FILE] "
          "[--threads T] [--json] RECORD",
          options, args, vm, &positional))
    return 0;
  const Rules rules = rules_from(vm);
  const Position start = position_from(vm);
  const auto [notation, record] = record_from(vm, "analyze");
  const Replay game = replay(start, rules, notation, record);  // RecordError -> exit 1

  api::SessionConfig config =
      session_config(vm, start.pits, rules, start.pit_seeds(Side::South) + start.pit_seeds(Side::North));
  config.progress = nullptr;
  config.book = book_from(vm);
  api::Session session(config);
  note_database(session);
  catch_interrupts();
  const bool tty = ::isatty(STDERR_FILENO) != 0;
  auto progress = [tty](int done, int total) {
    if (tty) std::cerr << "\ranalyze: turn " << done << " of " << total << "\033[K" << std::flush;
  };
  const api::GameAnalysis analysis = api::analyze(session, game, progress);
  if (tty) std::cerr << "\r\033[K" << std::flush;
  if (vm.count("json"))
    std::cout << api::json_text(api::to_json(analysis, notation)) << "\n";
  else
    print_text(analysis, notation, record);
  return analysis.interrupted ? interrupt_exit_code() : 0;
}

}  // namespace kalah::cli

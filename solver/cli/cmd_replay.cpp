// kalah replay: replay a game record (Finnish or Irving notation) and show the board after
// every turn, then the final score and winner; --json gives one object instead.
#include <cctype>
#include <iostream>

#include "engine/ascii.hpp"
#include "engine/notation.hpp"
#include "solver/api/report_json.hpp"
#include "solver/cli/commands.hpp"
#include "solver/cli/common.hpp"

namespace kalah::cli {

namespace {

// What a turn did, for the line above its board: "+5 to South's store, capture".
std::string turn_summary(const ReplayedTurn& t) {
  if (t.swap) return "pie rule: the players swap sides";
  int stored = 0, captures = 0, relays = 0;
  for (const auto& s : t.sowings) {
    stored += s.outcome.stored;
    captures += s.outcome.capture ? 1 : 0;
    relays += s.outcome.relays;
  }
  std::string text = "+" + std::to_string(stored) + " to " + side_name(t.side) + "'s store";
  if (t.sowings.size() > 1)
    text += ", " + std::to_string(t.sowings.size() - 1) + " extra turn" + (t.sowings.size() > 2 ? "s" : "");
  if (relays) text += ", " + std::to_string(relays) + " relay" + (relays > 1 ? "s" : "");
  if (captures) text += ", capture";
  return text;
}

std::string ending_text(const Replay& r) {
  if (!r.over) return "the record stops before the end of the game (stores only; seeds remain in the pits)";
  if (r.ended_early) return "the game ended early: a store holds more than half of the seeds";
  return "the game is over";
}

void print_text(const Replay& r, const Rules& rules, Notation notation, const std::string& record) {
  std::cout << "rules     " << rules_text(rules) << "\n"
            << "start     " << r.start.to_text() << "\n"
            << "record    " << record << "  (" << to_string(notation) << " notation"
            << (notation == Notation::Irving ? ": holes 0.." + std::to_string(r.start.pits - 1) + " are pits 1.." +
                                                   std::to_string(r.start.pits) + " on the boards"
                                             : std::string())
            << ")\n\n"
            << ascii_board(r.start, r.turns.empty() && r.over) << "\n";
  for (std::size_t i = 0; i < r.turns.size(); ++i) {
    const ReplayedTurn& t = r.turns[i];
    std::cout << "turn " << t.number << "  " << side_name(t.side) << "  " << t.text << "  (" << turn_summary(t)
              << ")\n";
    for (const auto& w : t.warnings) std::cout << "warning   " << w << "\n";
    std::cout << ascii_board(t.after, r.over && i + 1 == r.turns.size()) << "\n";
  }
  const Position& f = r.final_position;
  std::cout << "final     South " << f.store_of(Side::South) << ", North " << f.store_of(Side::North) << "  (margin "
            << signed_value(f.margin()) << ", South minus North)\n"
            << "result    " << (r.over ? outcome_text(f.margin()) : "unfinished") << "; " << ending_text(r) << "\n";
  if (r.swapped) std::cout << "note      North took the pie swap: the player who began now plays North\n";
  if (!r.warnings.empty()) std::cout << "warnings  " << r.warnings.size() << " (see above)\n";
}

po::options_description replay_options() {
  po::options_description options("Replay options");
  // clang-format off
  options.add_options()
      ("json", "print one JSON object instead of boards");
  // clang-format on
  options.add(record_options()).add(board_options(6, 4)).add(rule_options());
  return options;
}

}  // namespace

int run_replay(const Args& raw_args) {
  const po::options_description options = replay_options();
  po::options_description known = options;
  add_help_option(known);
  const Args args = protect_records(raw_args, known);
  const po::positional_options_description positional = record_positional();
  po::variables_map vm;
  if (!parse_command("replay",
                     "[--pits M --seeds N | --position POS] [rule options] [--notation finnish|irving] "
                     "[--json] RECORD",
                     options, args, vm, &positional))
    return 0;
  const Rules rules = rules_from(vm);
  const Position start = position_from(vm);
  const auto [notation, record] = record_from(vm, "replay");
  const Replay r = replay(start, rules, notation, record);  // RecordError -> exit 1
  if (vm.count("json"))
    std::cout << api::json_text(api::replay_json(r, rules, notation)) << "\n";
  else
    print_text(r, rules, notation, record);
  return 0;
}

}  // namespace kalah::cli

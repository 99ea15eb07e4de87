// kalah openings: the exact value of every first sowing and every complete first turn of a
// position (the start by default), the first player's advantage, and the pie-rule value
// with the most balanced opening(s). One search object answers every query, so its table
// carries over from one opening to the next.
#include <chrono>
#include <iostream>

#include "solver/analysis.hpp"
#include "solver/cli/commands.hpp"
#include "solver/cli/common.hpp"
#include "solver/cli/search_setup.hpp"

namespace kalah::cli {

int run_openings(const Args& args) {
  po::options_description options("Openings options");
  options.add_options()("json", "print one JSON object instead of text");
  options.add(board_options(6, 4)).add(rule_options()).add(search_options());
  po::variables_map vm;
  if (!parse_command("openings",
                     "[--pits M --seeds N | --position POS] [rule options] [--pie] [--db DIR] [--threads T] "
                     "[--tt-memory SIZE] [--json]",
                     options, args, vm))
    return 0;
  const Rules rules = rules_from(vm);
  const Position start = position_from(vm);

  const auto t0 = std::chrono::steady_clock::now();
  SearchSetup setup =
      make_search(vm, start.pits, rules, start.pit_seeds(Side::South) + start.pit_seeds(Side::North), true);
  const auto t1 = std::chrono::steady_clock::now();
  // The pie value is computed whether or not the pie rule is on (it is only defined from a
  // start position).
  Rules with_pie = rules;
  with_pie.pie = true;
  with_pie.early_end = false;
  const Openings o = analyse_openings(start, with_pie, setup.solver->oracle());
  const auto t2 = std::chrono::steady_clock::now();
  const double seconds = std::chrono::duration<double>(t2 - t0).count();
  const double search_seconds = std::chrono::duration<double>(t2 - t1).count();
  const unsigned long long nodes = setup.solver->nodes();

  if (vm.count("json")) {
    JsonWriter json;
    json.begin_object();
    json.field("position", start.to_text());
    json.field("pits", start.pits);
    write_rules_json(json, rules);
    json.field("value", o.value);
    json.field("to_move", std::string(1, side_letter(start.to_move)));
    json.key("moves").begin_array();
    for (const SowingValue& m : o.moves) {
      json.begin_object();
      json.field("pit", m.pit + 1);
      json.field("value", m.value);
      json.field("extra_turn", m.extra_turn);
      json.end_object();
    }
    json.end_array();
    json.key("turns").begin_array();
    for (const TurnValue& t : o.turns) {
      json.begin_object();
      json.key("pits").begin_array();
      for (int p : t.pits) json.value(p + 1);
      json.end_array();
      json.field("value", t.value);
      json.end_object();
    }
    json.end_array();
    json.key("pie_value");
    if (o.pie_value)
      json.value(*o.pie_value);
    else
      json.null();
    json.key("balanced").begin_array();
    for (const auto& t : o.balanced) {
      json.begin_array();
      for (int p : t) json.value(p + 1);
      json.end_array();
    }
    json.end_array();
    json.field("margin_is_natural_end", true);
    json.field("nodes", nodes);
    json.field("seconds", seconds);
    json.field("search_seconds", search_seconds);
    json.field("threads", setup.solver->threads());
    json.field("db_max_seeds", setup.db_max_seeds);
    json.end_object();
    std::cout << json.str() << "\n";
    return 0;
  }
  const char* mover = side_name(start.to_move);
  std::cout << "position  " << start.to_text() << "\n"
            << "rules     " << rules_text(rules) << "\n";
  if (rules.early_end) std::cout << "note      " << kEarlyEndNote << "\n";
  std::cout << "value     " << signed_value(o.value) << " (" << outcome_text(o.value)
            << "; the first player's advantage, South minus North)\n\n"
            << "first sowings of " << mover << " (pit: value South minus North)\n";
  for (const SowingValue& m : o.moves)
    std::cout << "  " << m.pit + 1 << ": " << signed_value(m.value) << (m.extra_turn ? "  (extra turn)" : "")
              << "\n";
  std::cout << "\ncomplete first turns (pits: value)\n";
  for (const TurnValue& t : o.turns) std::cout << "  " << pits_text(t.pits, "-") << ": " << signed_value(t.value) << "\n";
  std::cout << "\n";
  if (o.pie_value) {
    std::cout << "pie value " << signed_value(*o.pie_value)
              << (rules.pie ? " (pie rule on: " : " (if the pie rule were on: ")
              << "the first player's margin when North may swap after the first turn)\n"
              << "balanced  ";
    for (std::size_t i = 0; i < o.balanced.size(); ++i) std::cout << (i ? ", " : "") << pits_text(o.balanced[i], "-");
    std::cout << "  (most balanced first turns)\n";
  } else {
    std::cout << "pie value (only defined from a start position)\n";
  }
  std::cout << "nodes     " << nodes << "  (" << setup.solver->threads() << " threads)\n"
            << "time      " << seconds << " s\n";
  return 0;
}

}  // namespace kalah::cli

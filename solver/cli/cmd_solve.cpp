// kalah solve: the exact value of a position (the start by default), the best sowings and a
// principal variation to the end of the game.
#include <chrono>
#include <iostream>

#include "engine/notation.hpp"
#include "solver/analysis.hpp"
#include "solver/cli/commands.hpp"
#include "solver/cli/common.hpp"
#include "solver/reference/reference_solver.hpp"

namespace kalah::cli {

namespace {

std::string pits_text(const std::vector<int>& pits) {
  std::string s;
  for (int p : pits) s += (s.empty() ? "" : " ") + std::to_string(p + 1);
  return s;
}

}  // namespace

int run_solve(const Args& args) {
  po::options_description options("Solve options");
  options.add_options()("json", "print one JSON object instead of text");
  options.add(board_options(4, 3)).add(rule_options());
  po::variables_map vm;
  if (!parse_command("solve", "[--pits M --seeds N | --position POS] [rule options] [--json]", options, args, vm))
    return 0;
  const Rules rules = rules_from(vm);
  const Position start = position_from(vm);

  const auto t0 = std::chrono::steady_clock::now();
  ReferenceSolver solver(start.pits, rules);
  const Oracle oracle = [&](const Board& b) { return solver.value(b); };
  const PositionSolution sol = solve_position(start, rules, oracle);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  if (vm.count("json")) {
    JsonWriter json;
    json.begin_object();
    json.field("position", start.to_text());
    json.field("pits", start.pits);
    write_rules_json(json, rules);
    json.field("value", sol.value);
    json.field("result", sol.value > 0 ? "win" : sol.value < 0 ? "loss" : "draw");
    json.field("to_move", std::string(1, side_letter(start.to_move)));
    json.key("best").begin_array();
    for (int p : sol.best) json.value(p + 1);
    json.end_array();
    json.field("pv", format_irving(sol.pv));
    json.field("pv_finnish", format_finnish(sol.pv, start.to_move));
    json.field("final_position", sol.final_position.to_text());
    json.field("margin_is_natural_end", true);
    json.field("solver", "reference");
    json.field("nodes", static_cast<unsigned long long>(solver.nodes()));
    json.field("seconds", seconds);
    json.end_object();
    std::cout << json.str() << "\n";
    return 0;
  }
  std::cout << "position  " << start.to_text() << "\n"
            << "rules     " << rules_text(rules) << "\n"
            << "value     " << signed_value(sol.value) << " (" << outcome_text(sol.value)
            << ", South minus North with perfect play)\n";
  if (rules.early_end) std::cout << "note      " << kEarlyEndNote << "\n";
  std::cout << "best      " << (sol.best.empty() ? "(game over)" : pits_text(sol.best)) << "  (pits of "
            << side_name(start.to_move) << ", 1 = leftmost)\n"
            << "pv        " << format_finnish(sol.pv, start.to_move) << "  (Finnish notation)\n"
            << "pv        " << format_irving(sol.pv) << "  (Irving notation)\n"
            << "final     " << sol.final_position.to_text() << "\n"
            << "nodes     " << solver.nodes() << "  (reference solver)\n"
            << "time      " << seconds << " s\n";
  return 0;
}

}  // namespace kalah::cli

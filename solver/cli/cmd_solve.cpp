// kalah solve: the exact value of a position (the start by default), the best sowings and a
// principal variation to the end of the game, by the parallel alpha-beta search
// (solver/search) or, with --reference, the brute-force reference solver.
#include <chrono>
#include <iostream>
#include <optional>

#include "engine/notation.hpp"
#include "solver/analysis.hpp"
#include "solver/cli/commands.hpp"
#include "solver/cli/common.hpp"
#include "solver/cli/search_setup.hpp"
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
  options.add_options()("json", "print one JSON object instead of text")(
      "reference", "use the brute-force reference solver (small boards only)");
  options.add(board_options(4, 3)).add(rule_options()).add(search_options());
  po::variables_map vm;
  if (!parse_command("solve",
                     "[--pits M --seeds N | --position POS] [rule options] [--db DIR] [--threads T] "
                     "[--tt-memory SIZE] [--reference] [--json]",
                     options, args, vm))
    return 0;
  const Rules rules = rules_from(vm);
  const Position start = position_from(vm);
  const bool reference = vm.count("reference") > 0;
  const bool json_out = vm.count("json") > 0;

  const auto t0 = std::chrono::steady_clock::now();
  std::optional<ReferenceSolver> ref;
  SearchSetup setup;
  Oracle oracle;
  if (reference) {
    ref.emplace(start.pits, rules);
    oracle = [&](const Board& b) { return ref->value(b); };
  } else {
    setup = make_search(vm, start.pits, rules, start.pit_seeds(Side::South) + start.pit_seeds(Side::North),
                        true);
    oracle = setup.solver->oracle();
  }
  const auto t1 = std::chrono::steady_clock::now();
  // The root's value first (timed alone: the figure benchmarks compare), then the best
  // sowings and the principal variation, which reuse the table.
  double value_seconds = 0;
  unsigned long long value_nodes = 0;
  if (!reference) {
    (void)oracle(start.board());
    value_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
    value_nodes = setup.solver->nodes();
  }
  const PositionSolution sol = reference ? solve_position(start, rules, oracle) : solve_position(start, rules, oracle, setup.solver->best_sowings_function());
  const auto t2 = std::chrono::steady_clock::now();
  const double seconds = std::chrono::duration<double>(t2 - t0).count();
  const double search_seconds = std::chrono::duration<double>(t2 - t1).count();
  const unsigned long long nodes = reference ? ref->nodes() : setup.solver->nodes();
  const double nps = search_seconds > 0 ? static_cast<double>(nodes) / search_seconds : 0.0;
  const int threads = reference ? 1 : setup.solver->threads();
  const std::size_t used = reference ? 0 : setup.solver->table_used();
  const std::size_t capacity = reference ? 0 : setup.solver->table_capacity();

  if (json_out) {
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
    json.field("solver", reference ? "reference" : "search");
    json.field("nodes", nodes);
    json.field("seconds", seconds);
    json.field("search_seconds", search_seconds);
    if (!reference) {
      json.field("value_seconds", value_seconds);
      json.field("value_nodes", value_nodes);
    }
    json.field("nodes_per_second", nps);
    json.field("threads", threads);
    if (!reference) {
      json.field("passes", static_cast<unsigned long long>(setup.solver->passes()));
      json.field("table_bytes", static_cast<unsigned long long>(setup.solver->table_bytes()));
      json.field("table_entries", static_cast<unsigned long long>(capacity));
      json.field("table_used", static_cast<unsigned long long>(used));
      json.field("table_capped", setup.solver->table_capped());
      json.field("db_max_seeds", setup.db_max_seeds);
      json.field("db_seconds", setup.db_seconds);
    }
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
            << "final     " << sol.final_position.to_text() << "\n";
  if (reference) {
    std::cout << "nodes     " << nodes << "  (reference solver)\n";
  } else {
    std::cout << "nodes     " << nodes << "  (" << static_cast<unsigned long long>(nps) << " nodes/s, "
              << setup.solver->passes() << " MTD(f) passes; the value alone: " << value_nodes << " nodes, "
              << value_seconds << " s)\n"
              << "threads   " << threads << "\n"
              << "table     " << used << " of " << capacity << " entries used ("
              << byte_text(static_cast<double>(setup.solver->table_bytes()))
              << (setup.solver->table_capped() ? ", smaller than --tt-memory: enough for every board of the problem"
                                               : "")
              << ")\n"
              << "database  "
              << (setup.db_max_seeds >= 0 ? setup.db_dir + " (boards with at most " +
                                                std::to_string(setup.db_max_seeds) + " seeds)"
                                          : std::string("none"))
              << "\n";
  }
  std::cout << "time      " << seconds << " s\n";
  return 0;
}

}  // namespace kalah::cli

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

int run_solve(const Args& args) {
  po::options_description options("Solve options");
  options.add_options()("json", "print one JSON object instead of text")(
      "value-only", "the value alone: no best sowings, no principal variation (about half the time)")(
      "reference", "use the brute-force reference solver (small boards only)");
  options.add(board_options(4, 3)).add(rule_options()).add(search_options());
  po::variables_map vm;
  if (!parse_command("solve",
                     "[--pits M --seeds N | --position POS] [rule options] [--db DIR] [--threads T] "
                     "[--tt-memory SIZE] [--value-only] [--reference] [--json]",
                     options, args, vm))
    return 0;
  const Rules rules = rules_from(vm);
  const Position start = position_from(vm);
  const bool reference = vm.count("reference") > 0;
  const bool json_out = vm.count("json") > 0;
  const bool value_only = vm.count("value-only") > 0;

  const auto t0 = std::chrono::steady_clock::now();
  std::optional<ReferenceSolver> ref;
  SearchSetup setup;
  Oracle oracle;
  if (reference) {
    // The oracle memoises every board it reaches in a hash map: refuse boards whose
    // configurations (C(k+2m-1, 2m-1) with k seeds in the pits) would not fit in memory.
    const int k = start.pit_seeds(Side::South) + start.pit_seeds(Side::North);
    double boards = 1;
    for (int i = 1; i < 2 * start.pits; ++i) boards = boards * (k + i) / i;
    if (boards > 2e8)
      throw UsageError("the reference solver is for small boards: " + std::to_string(k) + " seeds on " +
                       std::to_string(2 * start.pits) + " pits allow " + std::to_string(static_cast<long long>(boards)) +
                       " configurations (limit 200000000); drop --reference to use the search");
    ref.emplace(start.pits, rules);
    oracle = [&](const Board& b) { return ref->value(b); };
  } else {
    setup = make_search(vm, start.pits, rules, start.pit_seeds(Side::South) + start.pit_seeds(Side::North),
                        true);
    oracle = setup.solver->oracle();
  }
  const auto t1 = std::chrono::steady_clock::now();
  // The root's value first (timed alone: the figure benchmarks compare), then, unless
  // --value-only, the best sowings and the principal variation, which reuse the table.
  double value_seconds = 0;
  unsigned long long value_nodes = 0;
  search::Estimate first_guess;
  PositionSolution sol;
  sol.value = position_value(start, rules, oracle);
  if (!reference) {
    value_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
    value_nodes = setup.solver->nodes();
    first_guess = setup.solver->first_guess();
  }
  if (!value_only)
    sol = reference ? solve_position(start, rules, oracle)
                    : solve_position(start, rules, oracle, setup.solver->best_sowings_function());
  // The pie rule acts at a start position: North keeps or swaps after South's first turn,
  // so the game's value is the best first turn's -|value| (needs every first turn's value).
  std::optional<Openings> pie;
  if (rules.pie) {
    Openings o = analyse_openings(start, rules, oracle);
    if (o.pie_value) pie = std::move(o);
  }
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
    // Under the pie rule `value` is the first player's margin with the swap decision;
    // best and pv describe play without it (value_without_pie).
    write_solution_json(json, start, rules, sol, pie ? pie->pie_value : std::nullopt, !value_only);
    json.field("value_only", value_only);
    if (pie) {
      json.field("value_without_pie", sol.value);
      json.key("balanced").begin_array();
      for (const auto& turn : pie->balanced) {
        json.begin_array();
        for (int pit : turn) json.value(pit + 1);
        json.end_array();
      }
      json.end_array();
    }
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
      json.field("first_guess", first_guess.value);
      json.field("estimate_depth", first_guess.depth);
      json.field("estimate_nodes", static_cast<unsigned long long>(first_guess.nodes));
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
            << ", South minus North with perfect play" << (pie ? ", without the pie rule" : "") << ")\n";
  if (pie) {
    std::string balanced;
    for (const auto& turn : pie->balanced) balanced += (balanced.empty() ? "" : ", ") + pits_text(turn, "-");
    std::cout << "pie value " << signed_value(*pie->pie_value)
              << " (the game's value under the pie rule, for the first player: North swaps after South's "
                 "first turn whenever that turn leaves South ahead)\n"
              << "balanced  " << balanced << "  (most balanced first turns; best and pv below are play without the swap)\n";
  }
  if (rules.early_end) std::cout << "note      " << kEarlyEndNote << "\n";
  if (!value_only)
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
              << "guess     " << signed_value(first_guess.value) << "  (MTD(f)'s first guess for the root's remainder value"
              << (first_guess.depth ? ": an estimate " + std::to_string(first_guess.depth) + " sowings deep, " +
                                          std::to_string(first_guess.nodes) + " nodes"
                                    : "")
              << ")\n"
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

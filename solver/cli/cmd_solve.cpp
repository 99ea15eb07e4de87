// kalah solve: the exact value of a position (the start by default), the best sowings and a
// principal variation to the end of the game, by the parallel alpha-beta search
// (solver/search) or, with --reference, the brute-force reference solver. Parses the
// options, calls api::solve and renders its report.
#include <cstdio>
#include <iostream>

#include "engine/notation.hpp"
#include "engine/text.hpp"
#include "solver/api/report_json.hpp"
#include "solver/api/reports.hpp"
#include "solver/cli/commands.hpp"
#include "solver/cli/common.hpp"
#include "solver/cli/interrupt.hpp"
#include "solver/cli/session_options.hpp"

namespace kalah::cli {

namespace {

std::string two_decimals(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", x);
  return text;
}

// The report's database line: which boards, their memory and how much of it maps raw caches.
std::string database_text(const api::SearchStats& s) {
  if (s.db_max_seeds < 0) return "none";
  const std::string mapped = s.db_mapped_bytes == 0 ? std::string()
                             : s.db_mapped_bytes == s.db_memory_bytes
                                 ? std::string(" mapped from its raw caches")
                                 : " (" + byte_text(s.db_mapped_bytes) + " mapped from its raw caches)";
  const std::string partial = s.db_partial_level < 0
                                  ? std::string()
                                  : " and " + std::to_string(s.db_partial_pairs) + " of the " +
                                        std::to_string(s.db_partial_level / 2 + 1) + " sublevel pairs of level " +
                                        std::to_string(s.db_partial_level);
  const std::string bounds = s.db_bound_first < 0
                                 ? std::string()
                                 : ", bounds of levels " + std::to_string(s.db_bound_first) + ".." +
                                       std::to_string(s.db_bound_last) + " (" + std::to_string(s.db_bound_pairs) +
                                       " of the " + std::to_string(s.db_bound_last / 2 + 1) + " pairs of the last)";
  return s.db_dir + " (boards with at most " + std::to_string(s.db_max_seeds) + " seeds" + partial + bounds + ", " +
         byte_text(s.db_memory_bytes) + " in memory" + mapped + ", " + two_decimals(s.db_bits_per_board) +
         " bits a board)";
}

void print_text(const api::SolveReport& r) {
  const api::SearchStats& s = r.stats;
  std::cout << "position  " << r.position.to_text() << "\n"
            << "rules     " << rules_text(r.rules) << "\n";
  const bool bounds_only = r.interrupted && r.lower < r.upper;
  if (bounds_only && !r.value_without_pie) {
    std::cout << "value     between " << signed_value(r.lower) << " and " << signed_value(r.upper)
              << " (interrupted: the bounds proven so far, South minus North"
              << (r.rules.pie ? ", without the pie rule" : "") << ")\n";
  } else {
    const int value = r.value_without_pie.value_or(r.value);
    std::cout << "value     " << signed_value(value) << " (" << outcome_text(value)
              << ", South minus North with perfect play" << (r.value_without_pie ? ", without the pie rule" : "")
              << ")\n";
  }
  if (r.value_without_pie && bounds_only) {
    std::cout << "pie value between " << signed_value(r.lower) << " and " << signed_value(r.upper)
              << " (interrupted before every first turn was valued)\n";
  } else if (r.value_without_pie) {
    std::string balanced;
    for (const auto& turn : r.balanced) balanced += (balanced.empty() ? "" : ", ") + pits_text(turn, "-");
    std::cout << "pie value " << signed_value(r.value)
              << " (the game's value under the pie rule, for the first player: North swaps after South's "
                 "first turn whenever that turn leaves South ahead)\n"
              << "balanced  " << balanced << "  (most balanced first turns"
              << (r.value_only ? ")\n" : "; best and pv below are play without the swap)\n");
  }
  if (r.rules.early_end) std::cout << "note      " << kEarlyEndNote << "\n";
  if (!r.value_only && !r.interrupted)
    std::cout << "best      " << (r.play.best.empty() ? "(game over)" : pits_text(r.play.best)) << "  (pits of "
              << side_name(r.position.to_move) << ", 1 = leftmost)\n"
              << "pv        " << format_finnish(r.play.pv, r.position.to_move) << "  (Finnish notation)\n"
              << "pv        " << format_irving(r.play.pv) << "  (Irving notation)\n"
              << "final     " << r.play.final_position.to_text() << "\n";
  if (s.solver == "reference") {
    std::cout << "nodes     " << s.nodes << "  (reference solver)\n";
  } else {
    std::cout << "nodes     " << s.nodes << "  (" << static_cast<unsigned long long>(s.nodes_per_second())
              << " nodes/s, " << s.passes << " MTD(f) passes";
    if (!(r.interrupted && r.lower < r.upper))
      std::cout << "; the value alone: " << s.value_nodes << " nodes, " << s.value_seconds << " s";
    std::cout << ")\n";
    if (const std::optional<search::Estimate>& guess = s.first_guess)
      std::cout << "guess     " << signed_value(guess->value)
                << "  (MTD(f)'s first guess for the root's remainder value"
                << (s.deepening_depth ? ": iterative deepening to " + std::to_string(s.deepening_depth) + " sowings"
                    : guess->depth    ? ": an estimate " + std::to_string(guess->depth) + " sowings deep, " +
                                         std::to_string(guess->nodes) + " nodes"
                                   : "")
                << ")\n";
    else
      std::cout << "guess     none  (no MTD(f) pass ran: the game is over, or the book, the database or the table knew "
                   "the value)\n";
    std::cout << "threads   " << s.threads;
    if (s.split_points > 0)
      std::cout << "  (" << s.split_points << " split points, " << s.discarded_nodes << " nodes discarded by cuts, "
                << s.idle_seconds << " s idle in all)";
    std::cout << "\n"
              << "table     " << s.table_used << " of " << s.table_entries << " entries used ("
              << byte_text(s.table_bytes)
              << (s.table_bytes < s.table_max_bytes ? ", grown as needed, at most " + byte_text(s.table_max_bytes) : "")
              << (s.table_capped ? ", smaller than --tt-memory: enough for every board of the problem" : "") << ")\n"
              << "database  " << database_text(s) << "\n";
    if (!s.book.empty())
      std::cout << "book      " << s.book << " (" << s.book_hits << " board" << (s.book_hits == 1 ? "" : "s")
                << " answered from it)\n";
  }
  std::cout << "time      " << s.seconds << " s\n";
  if (r.interrupted)
    std::cout << "interrupted"
              << (r.lower < r.upper
                      ? ": the value is not proven yet"
                      : ": the value is proven; the best sowings and the principal variation were cut short")
              << "\n";
}

}  // namespace

int run_solve(const Args& args) {
  po::options_description options("Solve options");
  options.add_options()("json", "print one JSON object instead of text")(
      "value-only",
      "the value alone: no best sowings, no principal variation (a full solve tests every first sowing: 6% more "
      "search on Kalah(6,4), four times as much on Kalah(5,6))")(
      "reference", "use the brute-force reference solver (small boards only)");
  options.add(board_options(4, 3)).add(rule_options()).add(search_options()).add(book_options());
  po::variables_map vm;
  if (!parse_command("solve",
                     "[--pits M --seeds N | --position POS] [rule options] [--db DIR] [--book FILE] [--threads T] "
                     "[--tt-memory SIZE] [--value-only] [--reference] [--json]",
                     options, args, vm))
    return 0;
  const Rules rules = rules_from(vm);
  const Position start = position_from(vm);
  const bool value_only = vm.count("value-only") > 0;
  const int seeds = start.pit_seeds(Side::South) + start.pit_seeds(Side::North);

  api::SolveReport report;
  if (vm.count("reference")) {
    report = api::solve_with_reference(start, rules, value_only);
  } else {
    api::SessionConfig config = session_config(vm, start.pits, rules, seeds);
    config.book = book_from(vm);
    api::Session session(config);
    note_database(session);
    catch_interrupts();  // from here on Ctrl-C stops the search and reports
    report = api::solve(session, start, value_only);
  }
  if (vm.count("json"))
    std::cout << api::json_text(api::to_json(report)) << "\n";
  else
    print_text(report);
  return report.interrupted ? interrupt_exit_code() : 0;
}

}  // namespace kalah::cli

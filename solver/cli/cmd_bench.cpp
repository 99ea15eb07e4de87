// kalah bench: the search benchmark of solver/api/bench.hpp; prints each position's value,
// nodes and time, and the total node count, the signature.
#include <cstdio>
#include <iostream>

#include "solver/api/bench.hpp"
#include "solver/api/report_json.hpp"
#include "solver/cli/commands.hpp"
#include "solver/cli/common.hpp"

namespace kalah::cli {

int run_bench(const Args& args) {
  po::options_description options("Bench options");
  options.add_options()("threads,t", po::value<int>()->default_value(1),
                        "threads (node counts are deterministic with 1 only)")("json", "print one JSON object");
  po::variables_map vm;
  if (!parse_command("bench", "[--threads T] [--json]", options, args, vm)) return 0;
  const int threads = vm["threads"].as<int>();
  if (threads < 1 || threads > 1024) throw UsageError("--threads must be between 1 and 1024");
  const bool json = vm.count("json") > 0;
  const api::BenchReport report = api::run_bench(threads, [&](const api::BenchResult& r) {
    if (json) return;
    char line[160];
    std::snprintf(line, sizeof line, "%-44s value %+4d  nodes %12llu  %7.3f s\n", r.name.c_str(), r.value,
                  static_cast<unsigned long long>(r.nodes), r.seconds);
    std::cout << line << std::flush;
  });
  if (json) {
    std::cout << api::json_text(api::to_json(report)) << "\n";
    return 0;
  }
  const double nps = report.seconds > 0 ? static_cast<double>(report.total_nodes) / report.seconds : 0;
  std::cout << "total nodes " << report.total_nodes << " (signature)\n"
            << "time        " << report.seconds << " s, " << static_cast<unsigned long long>(nps) << " nodes/s, "
            << threads << " thread" << (threads == 1 ? "" : "s") << "\n";
  return 0;
}

}  // namespace kalah::cli

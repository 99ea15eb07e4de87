// kalah sample: random reachable positions (engine/sample.hpp), one a line in the position
// text format, for `kalah label`, benchmarks and tests. Reproducible from its options.
#include <iostream>
#include <random>

#include "engine/sample.hpp"
#include "engine/text.hpp"
#include "solver/cli/commands.hpp"
#include "solver/cli/common.hpp"

namespace kalah::cli {

namespace {

// "K" or "K-L" (K <= L): the seeds in the pits of each sample (uniform over the range).
std::pair<int, int> parse_range(const std::string& text) {
  const auto dash = text.find('-');
  try {
    std::size_t used = 0;
    const int lo = std::stoi(text.substr(0, dash), &used);
    if (used != (dash == std::string::npos ? text.size() : dash)) throw std::invalid_argument("");
    int hi = lo;
    if (dash != std::string::npos) {
      hi = std::stoi(text.substr(dash + 1), &used);
      if (used != text.size() - dash - 1) throw std::invalid_argument("");
    }
    if (lo < 0 || hi < lo) throw std::invalid_argument("");
    return {lo, hi};
  } catch (const std::exception&) {
    throw UsageError("--pit-seeds must be a count or a range K-L with K <= L, not " + kalah::quoted(text));
  }
}

}  // namespace

int run_sample(const Args& args) {
  po::options_description options("Sample options");
  // clang-format off
  options.add_options()
      ("pits,m", po::value<int>()->default_value(6), "pits a side")
      ("seeds,n", po::value<int>()->default_value(4), "seeds a pit at the start")
      ("pit-seeds", po::value<std::string>(), "seeds left in the pits: K, or K-L for a count drawn uniformly from K..L")
      ("count", po::value<int>()->default_value(10), "positions to print")
      ("seed", po::value<std::uint64_t>()->default_value(1), "random seed (the same options give the same positions)");
  // clang-format on
  options.add(rule_options());
  po::variables_map vm;
  if (!parse_command("sample", "[--pits M --seeds N] [rule options] --pit-seeds K[-L] [--count C] [--seed S]", options,
                     args, vm))
    return 0;
  const Rules rules = rules_from(vm);
  const int pits = vm["pits"].as<int>(), seeds = vm["seeds"].as<int>(), count = vm["count"].as<int>();
  if (seeds < 1) throw UsageError("--seeds must be at least 1");
  try {
    check_size(pits, seeds);
  } catch (const PositionError& e) {
    throw UsageError(e.what());
  }
  if (!vm.count("pit-seeds")) throw UsageError("--pit-seeds is needed (see 'kalah sample --help')");
  if (count < 0) throw UsageError("--count must be at least 0");
  const auto [lo, hi] = parse_range(vm["pit-seeds"].as<std::string>());
  if (hi > 2 * pits * seeds)
    throw UsageError("--pit-seeds goes up to " + std::to_string(hi) + ", the game has " +
                     std::to_string(2 * pits * seeds) + " seeds");
  std::mt19937_64 rng(vm["seed"].as<std::uint64_t>());
  for (int i = 0; i < count; ++i) {
    const int k = std::uniform_int_distribution<int>(lo, hi)(rng);
    const auto p = random_position(pits, seeds, k, rules, rng);
    if (!p)
      throw std::runtime_error("no random game reached " + std::to_string(k) +
                               " seeds in the pits in 10000 tries (too close to the start's count?)");
    std::cout << p->to_text() << "\n";
  }
  return 0;
}

}  // namespace kalah::cli

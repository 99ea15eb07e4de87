#include "solver/cli/commands.hpp"
#include "solver/cli/common.hpp"

namespace kalah::cli {

int run_bench(const Args&) { throw std::runtime_error("'bench' is not implemented yet"); }

}  // namespace kalah::cli

#include "solver/cli/commands.hpp"
#include "solver/cli/common.hpp"

namespace kalah::cli {

int run_openings(const Args&) { throw std::runtime_error("'openings' is not implemented yet"); }

}  // namespace kalah::cli

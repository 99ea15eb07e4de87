#include "solver/cli/commands.hpp"
#include "solver/cli/common.hpp"

namespace kalah::cli {

int run_replay(const Args&) { throw std::runtime_error("'replay' is not implemented yet"); }

}  // namespace kalah::cli

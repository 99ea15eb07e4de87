#include "solver/cli/commands.hpp"
#include "solver/cli/common.hpp"

namespace kalah::cli {

int run_db(const Args&) { throw std::runtime_error("'db' is not implemented yet"); }

}  // namespace kalah::cli

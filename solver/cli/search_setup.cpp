#include "solver/cli/search_setup.hpp"

#include <chrono>
#include <cstdio>
#include <iostream>

#include "solver/db/database.hpp"

namespace kalah::cli {

po::options_description search_options() {
  po::options_description o("Search options");
  o.add_options()
      ("threads,t", po::value<int>()->default_value(0), "threads (0 = all cores)")
      ("tt-memory", po::value<std::string>()->default_value("1G"), "transposition table size (e.g. 256M, 2G)")
      ("db", po::value<std::string>(), "endgame database directory (kalah db build) to probe")
      ("db-seeds", po::value<int>(), "load the database only up to this many seeds")
      ("tt-above-db", po::value<int>()->default_value(8),
       "boards fewer than this many seeds above the database bypass the table (0: none)");
  return o;
}

SearchSetup make_search(const po::variables_map& vm, int pits, const Rules& rules, int max_seeds, bool progress) {
  SearchSetup setup;
  search::SolverOptions options;
  const int threads = vm["threads"].as<int>();
  if (threads < 0 || threads > 1024) throw UsageError("--threads must be between 0 and 1024");
  options.threads = threads;
  options.table_bytes = static_cast<std::size_t>(parse_byte_size(vm["tt-memory"].as<std::string>(), "tt-memory"));
  if (options.table_bytes < 1024) throw UsageError("--tt-memory must be at least 1K");
  options.table_seeds_above_db = vm["tt-above-db"].as<int>();
  if (options.table_seeds_above_db < 0 || options.table_seeds_above_db > 255)
    throw UsageError("--tt-above-db must be between 0 and 255");
  // The table's pages are touched as it fills (all of them on a long solve), so the table and
  // the database must fit in memory together: refuse before loading and searching for minutes.
  const std::size_t physical = physical_memory_bytes();
  const std::size_t table_bytes = search::Solver::table_bytes_for(pits, max_seeds, options.table_bytes);
  if (physical > 0 && table_bytes >= physical)
    throw UsageError("a table of " + byte_text(static_cast<double>(table_bytes)) + " does not fit in this machine's " +
                     byte_text(static_cast<double>(physical)) + " of memory: lower --tt-memory");
  if (vm.count("db")) {
    const int db_seeds = vm.count("db-seeds") ? vm["db-seeds"].as<int>() : -1;
    if (vm.count("db-seeds") && db_seeds < 0) throw UsageError("--db-seeds must be >= 0");
    const auto t0 = std::chrono::steady_clock::now();
    auto db = std::make_shared<EndgameDatabase>(
        EndgameDatabase::load(vm["db"].as<std::string>(), pits, rules, db_seeds, physical > 0 ? physical - table_bytes : 0));
    setup.db_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    setup.db_max_seeds = db->max_seeds();
    setup.db_dir = vm["db"].as<std::string>();
    options.probe = search::database_probe(*db);
    setup.database = db;
  } else if (vm.count("db-seeds")) {
    throw UsageError("--db-seeds needs --db DIR");
  }
  if (progress) {
    options.progress = [](const std::string& line) { std::cerr << "progress: " << line << std::endl; };
    options.progress_after = 1.0;
  }
  try {
    setup.solver = std::make_unique<search::Solver>(pits, rules, max_seeds, std::move(options));
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());  // a board or table size the search cannot handle
  }
  return setup;
}

std::string byte_text(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, u ? "%.1f %s" : "%.0f %s", bytes, units[u]);
  return buf;
}

}  // namespace kalah::cli

// kalah serve: the explorer, a web page and a JSON API (docs/api.md) over HTTP, bound to
// 127.0.0.1 by default. solver/serve does the work; this parses the options, says where it
// listens and stops on Ctrl-C or SIGTERM.
#include <atomic>
#include <chrono>
#include <iostream>
#include <thread>

#include "solver/cli/commands.hpp"
#include "solver/cli/common.hpp"
#include "solver/cli/interrupt.hpp"
#include "solver/cli/session_options.hpp"
#include "solver/serve/explorer.hpp"
#include "solver/serve/server.hpp"

namespace kalah::cli {

int run_serve(const Args& args) {
  po::options_description options("serve options");
  // clang-format off
  options.add_options()
      ("db", po::value<std::string>(), "endgame database directory (kalah db build): positions of its pits and rules probe it")
      ("db-seeds", po::value<int>(), "load the database only up to this many seeds")
      ("book", po::value<std::string>(), "opening book (kalah book build): positions of its pits and rules are answered from it first")
      ("bind", po::value<std::string>()->default_value("127.0.0.1"), "address to listen on (0.0.0.0: every interface)")
      ("port", po::value<int>()->default_value(8080), "port (0: any free port, printed)")
      ("threads,t", po::value<int>()->default_value(0), "searches at once for one rule set (0: all cores)")
      ("tt-memory", po::value<std::string>()->default_value("256M"), "each rule set's table, shared by its searches")
      ("memory", po::value<std::string>(), "memory for everything: the database and every rule set's table (default: physical memory)")
      ("near-table", po::value<std::string>()->default_value("256K"), "each search's own table for the boards that bypass the shared one (0: none; as in kalah solve)")
      ("max-seconds", po::value<double>()->default_value(3.0), "a request's search budget: past it the answer holds bounds")
      ("max-rule-sets", po::value<int>()->default_value(8), "rule sets (pits and rules) with sessions open at once")
      ("queue", po::value<int>()->default_value(64), "connections waiting for a thread; past them the server stops accepting until one frees");
  // clang-format on
  po::variables_map vm;
  if (!parse_command("serve", "[--db DIR] [--book FILE] [--bind ADDR] [--port P] [--threads T] [--max-seconds S]",
                     options, args, vm))
    return 0;
  serve::ExplorerConfig config;
  if (vm.count("db")) config.database_dir = vm["db"].as<std::string>();
  if (vm.count("db-seeds")) {
    config.database_seeds = vm["db-seeds"].as<int>();
    if (config.database_seeds < 0 || config.database_seeds > 127) throw UsageError("--db-seeds must be 0..127");
  }
  config.book = book_from(vm);
  const int threads = vm["threads"].as<int>();
  if (threads < 0 || threads > 256) throw UsageError("--threads must be between 0 and 256");
  config.workers = threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  config.table_bytes = parse_byte_size(vm["tt-memory"].as<std::string>(), "tt-memory");
  if (vm.count("memory")) config.memory_bytes = parse_byte_size(vm["memory"].as<std::string>(), "memory");
  config.near_table_bytes = near_table_bytes_from(vm);
  config.max_seconds = vm["max-seconds"].as<double>();
  if (!(config.max_seconds > 0) || config.max_seconds > 86400)
    throw UsageError("--max-seconds must be above 0 and at most 86400");
  config.max_pools = vm["max-rule-sets"].as<int>();
  if (config.max_pools < 1 || config.max_pools > 64) throw UsageError("--max-rule-sets must be 1..64");
  const int queue = vm["queue"].as<int>();
  if (queue < 1 || queue > 65536) throw UsageError("--queue must be 1..65536");
  const int port = vm["port"].as<int>();
  if (port < 0 || port > 65535) throw UsageError("--port must be 0..65535");
  const std::string address = vm["bind"].as<std::string>();

  serve::Explorer explorer(config);
  // Connection threads: the searches of a few rule sets at once, plus room for page loads.
  serve::HttpServer server(explorer, 2 * config.workers + 4, queue);
  const int bound = server.bind(address, port);
  std::cerr << "kalah serve: listening on http://" << address << ":" << bound << "/ ("
            << (config.database_dir.empty() ? std::string("no database") : "database " + config.database_dir) << ", "
            << (config.book ? "book " + config.book->name() + ", " : std::string()) << config.workers
            << " searches a rule set, " << config.max_seconds << " s a request; Ctrl-C stops)" << std::endl;
  catch_interrupts();
  std::atomic<bool> done{false};
  std::thread watcher([&] {  // until run() returns: a signal before it listens is not lost
    while (!done.load()) {
      if (interrupt_flag()->load()) server.stop();
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
  server.run();
  done = true;
  watcher.join();
  std::cerr << "kalah serve: stopped\n";
  return interrupt_exit_code();
}

}  // namespace kalah::cli

#include "solver/cli/session_options.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <mutex>

#include "engine/text.hpp"
#include "solver/api/report_json.hpp"
#include "solver/book/book.hpp"
#include "solver/cli/interrupt.hpp"

namespace kalah::cli {

po::options_description search_options() {
  po::options_description o("Search options");
  // clang-format off
  o.add_options()
      ("threads,t", po::value<int>()->default_value(0), "threads (0 = all cores)")
      ("parallel", po::value<std::string>()->default_value("split"), "how threads share a search: split (one walks the tree, the others take the children of its nodes after the first, docs/search.md) or marks (each walks it from the root, putting off the children others are in)")
      ("tt-memory", po::value<std::string>()->default_value("1G"), "transposition table size: the most it grows to from 16M, doubling when an eighth full (e.g. 256M, 2G)")
      ("memory", po::value<std::string>(), "memory for the tables (shared and, with a database, each thread's near table) and the database together (default: physical memory)")
      ("db", po::value<std::string>(), "endgame database directory (kalah db build) to probe")
      ("db-seeds", po::value<int>(), "load the database only up to this many seeds")
      ("db-memory", po::value<std::string>(), "the most memory the database takes (e.g. 215M): the complete levels that fit, then the sublevel pairs of the next level (format 3) from the middle out that fit in what is left (docs/db-format.md, partial levels)")
      ("db-bounds", po::value<int>(), "hold this many levels above the exact ones as bounds, a bit a board (whether the value is above its sublevel's median; format 3, cached as level-KKK.bnd): with a memory limit (--db-memory, or --memory the database does not fit in) the exact levels and bounds that fit, the last level of bounds from the middle pairs out (docs/search.md, levels of bounds). Default: 5 where a memory limit leaves levels of a format-3 database out (with --db-seeds S, all within levels 0..S), else none; 0: none")
      ("no-db-cache", "read the database's level files only: neither map nor write its raw cache files (level-KKK.raw)")
      ("db-private", "copy the database's levels from their raw cache files into this process's own memory, on huge pages: faster probes on machines where TLB misses are dear, not shared with other processes (docs/search.md)")
      ("db-packed", "hold every database level packed, 2-4 bits a board (format-1 levels are packed as they load: about half the memory, the same values; format-2 levels are so already)")
      ("db-bytes", "hold every database level at one byte a board (format-2 levels are unpacked as they load: the fastest probes, twice the memory)")
      ("tt-above-db", po::value<int>(),
       "boards fewer than this many seeds above the database bypass the table (0: none; default 12, 8 without a near table)")
      ("near-table", po::value<std::string>()->default_value("256K"),
       "each thread's own table for the boards that bypass the shared one, sized to stay in a core's cache (0: none; not for 8 pits)")
      ("trace-passes", po::value<std::string>(),
       "write a JSON line to this file (-: stderr) as each pass of the search ends: what it tested, where, and what it cost (docs/json.md)");
  // clang-format on
  return o;
}

std::uint64_t near_table_bytes_from(const po::variables_map& vm) {
  const std::string near = vm["near-table"].as<std::string>();
  const std::uint64_t bytes = near == "0" ? 0 : parse_byte_size(near, "near-table");
  if (bytes > (std::uint64_t(1) << 40)) throw UsageError("--near-table must be at most 1T");
  return bytes;
}

std::function<void(const search::PassRecord&)> pass_trace(const std::string& path) {
  // One file for every thread that searches (the test helpers of a full solve's tests side by
  // side, a labeller's workers): a line at a time, under a lock, flushed, so a long search's
  // trace can be read while it runs.
  struct Trace {
    std::mutex lock;
    std::string path;
    std::FILE* file = nullptr;
    ~Trace() {
      if (file && file != stderr) std::fclose(file);
    }
  };
  auto trace = std::make_shared<Trace>();
  trace->path = path;
  trace->file = path == "-" ? stderr : std::fopen(path.c_str(), "w");
  if (!trace->file) throw std::runtime_error("cannot open " + kalah::quoted(path) + ": " + std::strerror(errno));
  return [trace](const search::PassRecord& record) {
    const std::string line = api::json_text(api::to_json(record)) + "\n";
    const std::lock_guard guard(trace->lock);
    if (std::fputs(line.c_str(), trace->file) < 0 || std::fflush(trace->file) != 0)
      throw std::runtime_error("cannot write " + kalah::quoted(trace->path) + ": " + std::strerror(errno));
  };
}

api::SessionConfig session_config(const po::variables_map& vm, int pits, const Rules& rules, int max_seeds) {
  api::SessionConfig c;
  c.pits = pits;
  c.rules = rules;
  c.max_seeds = max_seeds;
  c.threads = vm["threads"].as<int>();
  if (c.threads < 0 || c.threads > 1024) throw UsageError("--threads must be between 0 and 1024");
  const std::string parallel = vm["parallel"].as<std::string>();
  if (parallel != "split" && parallel != "marks")
    throw UsageError("--parallel must be split or marks, not " + kalah::quoted(parallel));
  c.split_points = parallel == "split";
  c.table_bytes = parse_byte_size(vm["tt-memory"].as<std::string>(), "tt-memory");
  if (vm.count("memory")) c.memory_bytes = parse_byte_size(vm["memory"].as<std::string>(), "memory");
  if (vm.count("tt-above-db")) {
    c.table_seeds_above_db = vm["tt-above-db"].as<int>();
    if (c.table_seeds_above_db < 0 || c.table_seeds_above_db > 255)
      throw UsageError("--tt-above-db must be between 0 and 255");
  }
  c.near_table_bytes = near_table_bytes_from(vm);
  if (vm.count("db")) c.database_dir = vm["db"].as<std::string>();
  if (vm.count("db-seeds")) {
    if (!vm.count("db")) throw UsageError("--db-seeds needs --db DIR");
    c.database_seeds = vm["db-seeds"].as<int>();
    if (c.database_seeds < 0 || c.database_seeds > 127) throw UsageError("--db-seeds must be between 0 and 127");
  }
  if (vm.count("db-memory")) {
    if (!vm.count("db")) throw UsageError("--db-memory needs --db DIR");
    c.database_bytes = parse_byte_size(vm["db-memory"].as<std::string>(), "db-memory");
    if (c.database_bytes == 0) throw UsageError("--db-memory must be more than 0");
  }
  if (vm.count("db-bounds")) {
    if (!vm.count("db")) throw UsageError("--db-bounds needs --db DIR");
    c.database_bound_levels = vm["db-bounds"].as<int>();
    if (c.database_bound_levels < 0 || c.database_bound_levels > 16)
      throw UsageError("--db-bounds must be between 0 and 16");
  }
  if (vm.count("no-db-cache")) {
    if (!vm.count("db")) throw UsageError("--no-db-cache needs --db DIR");
    c.database_cache = false;
  }
  if (vm.count("db-private")) {
    if (!vm.count("db")) throw UsageError("--db-private needs --db DIR");
    if (vm.count("no-db-cache"))
      throw UsageError(
          "--db-private and --no-db-cache exclude each other (without raw caches the levels are this process's own "
          "already)");
    c.database_private = true;
  }
  if (vm.count("db-packed") || vm.count("db-bytes")) {
    const char* given = vm.count("db-packed") ? "--db-packed" : "--db-bytes";
    if (!vm.count("db")) throw UsageError(std::string(given) + " needs --db DIR");
    if (vm.count("db-packed") && vm.count("db-bytes"))
      throw UsageError("--db-packed and --db-bytes exclude each other");
    c.database_layout =
        vm.count("db-packed") ? api::SessionConfig::DatabaseLayout::packed : api::SessionConfig::DatabaseLayout::bytes;
  }
  c.note = [](const std::string& line) { std::cerr << "note: " << line << std::endl; };
  c.progress = [](const std::string& line) { std::cerr << "progress: " << line << std::endl; };
  if (vm.count("trace-passes")) c.on_pass = pass_trace(vm["trace-passes"].as<std::string>());
  c.cancel = interrupt_flag();
  return c;
}

po::options_description book_options() {
  po::options_description o("Book options");
  o.add_options()("book", po::value<std::string>(),
                  "opening book (kalah book build): boards it holds are answered from it, before any search");
  return o;
}

std::shared_ptr<const api::KnownBoards> book_from(const po::variables_map& vm) {
  if (!vm.count("book")) return nullptr;
  return std::make_shared<const book::Book>(vm["book"].as<std::string>());
}

void note_database(const api::Session& session) {
  if (session.database_target_seeds() < 0) return;
  const api::SessionConfig& c = session.config();
  std::cerr << "note: the database " << c.database_dir << " is incomplete: levels 0.." << session.database_seeds()
            << " of 0.." << session.database_target_seeds() << " (its build stopped part way: "
            << db_build_command(c.database_dir, c.pits, session.database_target_seeds(), c.rules)
            << " finishes it); solving with the levels it has\n";
}

}  // namespace kalah::cli

// solver/cli/session_options.hpp — the search options shared by solve and openings
// (--threads, --tt-memory, --memory, --db, --db-seeds, --no-db-cache, --tt-above-db, --trace-passes) and the library
// session configuration they describe.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "solver/api/session.hpp"
#include "solver/cli/common.hpp"

namespace kalah::cli {

po::options_description search_options();

// The configuration of a session for positions of `pits` pits with at most max_seeds seeds
// in the pits under `rules`, from the search options; progress lines go to stderr, the pass
// trace (--trace-passes) to its file, and Ctrl-C interrupts (interrupt.hpp). Throws
// UsageError for malformed values, std::runtime_error for a trace file it cannot open.
api::SessionConfig session_config(const po::variables_map& vm, int pits, const Rules& rules, int max_seeds);
// A JSON line a pass (api::to_json(PassRecord)) to `path`, "-" for stderr; thread-safe.
// Throws std::runtime_error when the file cannot be opened (and, from the search, written).
std::function<void(const search::PassRecord&)> pass_trace(const std::string& path);
// --near-table SIZE (0: none), for search_options' users and serve. Throws UsageError.
std::uint64_t near_table_bytes_from(const po::variables_map& vm);

// --book FILE: an opening book (kalah book build) looked up before any search; for the
// commands that take positions of one game (solve, openings, analyze, label, serve).
po::options_description book_options();
// Opens the book --book names, when given (throws book::BookError for a file that is not one).
std::shared_ptr<const api::KnownBoards> book_from(const po::variables_map& vm);

// A note on stderr about the opened session's database when it deserves one (incomplete).
void note_database(const api::Session& session);

}  // namespace kalah::cli

// solver/serve/explorer.hpp — the service behind `kalah serve`, without HTTP: a request's
// query parameters in, a status and a JSON body out (docs/api.md).
//
// Sessions. Requests for one pit count and one set of value rules share a pool of sessions
// (ExplorerConfig::workers of them: the searches of that rule set that run at once) which
// search one table (solver/search/table_share.hpp), so each request builds on what earlier
// ones proved. The endgame database, if any, is loaded once, into the pool of its own pit
// count and rules, when the Explorer is made; other pools search without it. Pools are made
// on first use, outside the lock of the pool list (a new rule set's tables take a while to
// clear; requests of other rule sets go on meanwhile, those of the same one wait for it);
// past max_pools the least recently used idle one is closed.
//
// Budget. A request's search stops after max_seconds (a request may ask for less with
// `max_seconds`): the answer then carries the bounds proven so far ("value": null, lower,
// upper) instead of hanging. A request waiting for a busy pool waits for its searches, each
// bounded the same way.
//
// Errors. Bad input gets status 400 and {"error": one line naming the parameter, the input
// quoted and bounded}; a server at its pool limit with every pool busy, 503.
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "engine/rules.hpp"
#include "solver/api/session.hpp"

namespace kalah::serve {

struct ExplorerConfig {
  std::string database_dir;                              // "": no database
  int database_seeds = -1;                               // load levels 0..this only (-1: all)
  int workers = 2;                                       // sessions a pool: searches of one rule set at once
  std::uint64_t table_bytes = std::uint64_t(256) << 20;  // a pool's table (the most it grows to)
  // Each search's own table for the boards below the shared one (solver/search/near_table.hpp).
  std::uint64_t near_table_bytes = api::SessionConfig{}.near_table_bytes;
  // Everything's budget (0: physical memory): the database and its pool's table get what
  // max_pools - 1 other tables of table_bytes leave.
  std::uint64_t memory_bytes = 0;
  double max_seconds = 3;  // a request's search budget
  int max_pools = 8;
  // An opening book (solver/book): requests of its pits and value rules look it up first.
  std::shared_ptr<const api::KnownBoards> book;
  // Called while a new rule set's sessions are being made, with the list's lock released
  // (tests: another rule set's requests are answered meanwhile).
  std::function<void(int pits, const Rules& value_rules)> opening_sessions;
};

struct Answer {
  int status = 200;
  std::string body;  // JSON
};

// Query parameters as given (a name may come twice: refused).
using Params = std::multimap<std::string, std::string>;

class Explorer {
 public:
  // Loads the database (throws DatabaseError, api::ConfigError as a Session does).
  explicit Explorer(ExplorerConfig config);
  ~Explorer();
  Explorer(const Explorer&) = delete;
  Explorer& operator=(const Explorer&) = delete;

  // GET /api/v1/solve: pits, position (or seeds: the start position), rules, capture, end,
  // sowing, early_end, max_seconds. Thread-safe.
  Answer solve(const Params& params);
  // The database in use: pits, rules and levels, or null (for GET /api/v1).
  std::string info_json() const;

  const ExplorerConfig& config() const { return config_; }

 private:
  struct Pool;
  // The pool of this rule set, made if need be (outside the list's lock), or null when the
  // list is full and every pool busy. Throws what making the sessions throws.
  std::shared_ptr<Pool> pool_for(int pits, const Rules& rules);
  void make_sessions(Pool& pool, bool with_database) const;

  ExplorerConfig config_;
  int database_pits_ = 0;
  Rules database_rules_;
  bool has_database_ = false;
  std::mutex pools_mutex_;
  std::list<std::shared_ptr<Pool>> pools_;  // most recently used first
};

}  // namespace kalah::serve

#include "solver/api/probe.hpp"

#include "solver/db/database.hpp"
#include "solver/db/store.hpp"

namespace kalah::api {

ProbeReport probe_database(const std::filesystem::path& dir, const Position& p, const std::optional<Rules>& rules,
                           bool raw_cache, const std::function<void(const std::string&)>& note) {
  const auto levels = scan_database(dir);
  const dbfile::Header& h0 = levels.front().header;
  ProbeReport r;
  r.position = p;
  r.rules = rules.value_or(h0.rules);
  if (!r.rules.same_values_as(h0.rules))
    throw DatabaseError(levels.front().file.string() + ": built under rules '" + h0.rules.describe() +
                        "', which give different values from the requested '" + r.rules.describe() + "'");
  if (p.pits != h0.pits)
    throw DatabaseError(levels.front().file.string() + ": built for " + std::to_string(h0.pits) +
                        " pits a side, the position has " + std::to_string(p.pits));
  const int seeds = p.pit_seeds(Side::South) + p.pit_seeds(Side::North);
  const int max_seeds = levels.back().level;
  if (seeds > max_seeds)
    throw DatabaseError(dir.string() + ": the position has " + std::to_string(seeds) +
                        " seeds in the pits, the database holds boards with at most " + std::to_string(max_seeds));
  const EndgameDatabase db = EndgameDatabase::load(dir, p.pits, r.rules, seeds, 0, raw_cache, note);
  const Oracle oracle = [&](const Board& b) { return db.value(b); };
  r.play = solve_position(p, r.rules, oracle);
  int remainder = 0;
  r.remainder = is_terminal(p.board(), p.pits, r.rules.end, remainder) ? remainder : db.value(p.board());
  return r;
}

}  // namespace kalah::api

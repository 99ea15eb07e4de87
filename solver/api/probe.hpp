// solver/api/probe.hpp — a position answered from an endgame database alone (`kalah db
// probe`): its value, the database entry (remainder value), the best sowings and a
// principal variation, every value read from the database.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "engine/position.hpp"
#include "engine/rules.hpp"
#include "solver/analysis/analysis.hpp"

namespace kalah::api {

struct ProbeReport {
  Position position;
  Rules rules;            // the database's, or the ones asked for (same values)
  PositionSolution play;  // value (South minus North), best sowings, principal variation
  int remainder = 0;      // the mover's future store gain minus the opponent's
};

// Probe the database in `dir` for `position`, under `rules` when given (they must give the
// database's values) else the database's own. Loads only the levels the position needs.
// Throws DatabaseError when the directory, the rules, the pit count or the seeds in the
// pits do not fit. raw_cache and note: as EndgameDatabase::load's.
ProbeReport probe_database(const std::filesystem::path& dir, const Position& position,
                           const std::optional<Rules>& rules = std::nullopt, bool raw_cache = true,
                           const std::function<void(const std::string&)>& note = {});

}  // namespace kalah::api

// solver/api/report_json.hpp — the JSON form of the reports (docs/json.md), one object each,
// keys in a fixed order. Used by the CLI's --json; the server and the labeller will share it.
#pragma once

#include <nlohmann/json.hpp>

#include "engine/notation.hpp"
#include "engine/position.hpp"
#include "engine/rules.hpp"
#include "solver/analysis/analysis.hpp"
#include "solver/api/analyze.hpp"
#include "solver/api/bench.hpp"
#include "solver/api/db_stats.hpp"
#include "solver/api/explore.hpp"
#include "solver/api/label.hpp"
#include "solver/api/probe.hpp"
#include "solver/api/probe_rate.hpp"
#include "solver/api/reports.hpp"
#include "solver/db/store.hpp"

namespace kalah::api {

using Json = nlohmann::ordered_json;

// The one-line text of a JSON value. Strings are the user's input at times (a record's
// turns): invalid UTF-8 in them becomes U+FFFD instead of an exception.
std::string json_text(const Json& j);

// {"preset", "sowing", "capture", "end", "early_end", "pie", "text"}
Json rules_json(const Rules& rules);
// 1-based pits: {1, 0} -> [2, 1].
Json pits_json(const std::vector<int>& pits);
// The keys every solved position shares (kalah solve, kalah db probe): position, pits,
// rules, value, result, to_move, then (with play) best, pv, pv_finnish, final_position, then
// margin_is_natural_end. `value` is the game's value (null when unknown: lower < upper).
Json solution_json(const Position& p, const Rules& rules, std::optional<int> value, const PositionSolution* play);

Json to_json(const SolveReport& report);
Json to_json(const OpeningsReport& report);
// A solve or openings report's object without what depends on how it was computed (effort,
// threads, table, database, book): two reports of one position and rule set compare equal
// this way however they were found (kalah job verify, the tests).
Json without_statistics(Json report);
// `kalah serve`'s answer (docs/api.md): solution_json's keys without play, then lower, upper,
// game_over, moves (best for the mover first: pit 1-based, value or null, lower, upper,
// extra_turn, capture, position after it, source "end" | "database" | "search"), interrupted,
// nodes, seconds.
Json to_json(const ExploreReport& report);
// One `kalah label` line: position, pits, to_move, value, moves (pit 1-based, value, extra_turn,
// loss: how much worse than the best for the mover), best (the best pits), nodes, seconds.
Json to_json(const LabelReport& report);
Json to_json(const BenchReport& report);
Json to_json(const ProbeReport& report);
Json to_json(const ProbeRateReport& report);
// One pass of a search (`--trace-passes FILE`, a JSON line a pass; docs/json.md): solver, pass,
// purpose, seeds, seeds_above_database, depth (0: exact), gamma, expected, ordered, alone,
// result, holds (result >= gamma), nodes, discarded_nodes, split_points, seconds, idle_seconds.
Json to_json(const search::PassRecord& record);
// `kalah replay`: the game record replayed (docs/replay.md).
// `kalah analyze --json`: the replay's fields (start, pits, rules, notation, records, final
// position, over, margin, winner), then "mistakes", "players" ({"south": {turns, mistakes,
// margin_lost}, "north": ...}), "turns" (one object a turn: number, side, text, swap, pits,
// position before, value_before, value_after, best, margin_lost, mistake, result_changed),
// "interrupted", "nodes", "seconds".
Json to_json(const GameAnalysis& analysis, Notation notation);
Json replay_json(const Replay& replay, const Rules& rules, Notation notation);
// `kalah db info`: what the database directory `dir` holds.
Json database_json(const std::string& dir, const DbScan& scan);
// `kalah db stats`: the statistics of each level measured (docs/json.md).
Json to_json(const DbStatsReport& report);

}  // namespace kalah::api

#include "solver/api/report_json.hpp"

#include "engine/notation.hpp"

namespace kalah::api {

std::string json_text(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

Json rules_json(const Rules& rules) {
  return Json{{"preset", rules.preset_name()},
              {"sowing", std::string(to_string(rules.sowing))},
              {"capture", std::string(to_string(rules.capture))},
              {"end", std::string(to_string(rules.end))},
              {"early_end", rules.early_end},
              {"pie", rules.pie},
              {"text", rules.describe()}};
}

Json pits_json(const std::vector<int>& pits) {
  Json a = Json::array();
  for (int p : pits) a.push_back(p + 1);
  return a;
}

namespace {

Json value_or_null(std::optional<int> v) { return v ? Json(*v) : Json(nullptr); }

Json result_json(std::optional<int> v) {
  if (!v) return nullptr;
  return *v > 0 ? "win" : *v < 0 ? "loss" : "draw";
}

std::optional<int> known(bool interrupted, int lower, int upper, int value) {
  if (interrupted && lower < upper) return std::nullopt;
  return value;
}

void add_interruption(Json& j, bool interrupted, int lower, int upper) {
  j["interrupted"] = interrupted;
  if (interrupted) {
    j["lower"] = lower;
    j["upper"] = upper;
  }
}

}  // namespace

Json solution_json(const Position& p, const Rules& rules, std::optional<int> value, const PositionSolution* play) {
  Json j;
  j["position"] = p.to_text();
  j["pits"] = p.pits;
  j["rules"] = rules_json(rules);
  j["value"] = value_or_null(value);
  j["result"] = result_json(value);
  j["to_move"] = std::string(1, side_letter(p.to_move));
  if (play) {
    j["best"] = pits_json(play->best);
    j["pv"] = format_irving(play->pv);
    j["pv_finnish"] = format_finnish(play->pv, p.to_move);
    j["final_position"] = play->final_position.to_text();
  }
  j["margin_is_natural_end"] = true;
  return j;
}

Json to_json(const SolveReport& r) {
  const bool play = !r.value_only && !r.interrupted;
  Json j =
      solution_json(r.position, r.rules, known(r.interrupted, r.lower, r.upper, r.value), play ? &r.play : nullptr);
  j["value_only"] = r.value_only;
  if (r.value_without_pie) {
    j["value_without_pie"] = *r.value_without_pie;
    Json balanced = Json::array();
    for (const auto& turn : r.balanced) balanced.push_back(pits_json(turn));
    j["balanced"] = balanced;
  }
  add_interruption(j, r.interrupted, r.lower, r.upper);
  const SearchStats& s = r.stats;
  const bool search = s.solver == "search";
  j["solver"] = s.solver;
  j["nodes"] = s.nodes;
  j["seconds"] = s.seconds;
  j["search_seconds"] = s.search_seconds;
  if (search) {
    j["value_seconds"] = s.value_seconds;
    j["value_nodes"] = s.value_nodes;
  }
  j["nodes_per_second"] = s.nodes_per_second();
  j["threads"] = s.threads;
  if (search) {
    j["split_points"] = s.split_points;
    j["idle_seconds"] = s.idle_seconds;
    j["discarded_nodes"] = s.discarded_nodes;
    j["passes"] = s.passes;
    j["first_guess"] = s.first_guess ? Json(s.first_guess->value) : Json(nullptr);
    j["estimate_depth"] = s.first_guess ? s.first_guess->depth : 0;
    j["estimate_nodes"] = s.first_guess ? s.first_guess->nodes : std::uint64_t(0);
    j["deepening_depth"] = s.deepening_depth;
    j["table_bytes"] = s.table_bytes;
    j["table_max_bytes"] = s.table_max_bytes;
    j["table_entries"] = s.table_entries;
    j["table_used"] = s.table_used;
    j["table_capped"] = s.table_capped;
    j["db_max_seeds"] = s.db_max_seeds;
    j["db_partial_level"] = s.db_partial_level;
    j["db_partial_pairs"] = s.db_partial_pairs;
    j["db_bound_first"] = s.db_bound_first;
    j["db_bound_last"] = s.db_bound_last;
    j["db_bound_pairs"] = s.db_bound_pairs;
    j["db_seconds"] = s.db_seconds;
    j["db_memory_bytes"] = s.db_memory_bytes;
    j["db_mapped_bytes"] = s.db_mapped_bytes;
    j["db_bits_per_board"] = s.db_bits_per_board;
    if (s.book.empty())
      j["book"] = nullptr;
    else
      j["book"] = s.book;
    j["book_hits"] = s.book_hits;
  }
  return j;
}

Json without_statistics(Json j) {
  for (const char* k : {"nodes",
                        "seconds",
                        "search_seconds",
                        "threads",
                        "db_max_seeds",
                        "db_partial_level",
                        "db_partial_pairs",
                        "db_bound_first",
                        "db_bound_last",
                        "db_bound_pairs",
                        "db_seconds",
                        "db_dir",
                        "db_memory_bytes",
                        "db_mapped_bytes",
                        "db_bits_per_board",
                        "value_seconds",
                        "value_nodes",
                        "passes",
                        "split_points",
                        "idle_seconds",
                        "discarded_nodes",
                        "first_guess",
                        "deepening_depth",
                        "table",
                        "solver",
                        "nodes_per_second",
                        "estimate_depth",
                        "estimate_nodes",
                        "table_bytes",
                        "table_max_bytes",
                        "table_entries",
                        "table_used",
                        "table_capped",
                        "book",
                        "book_hits"})
    j.erase(k);
  return j;
}

Json to_json(const OpeningsReport& r) {
  const Openings& o = r.openings;
  Json j;
  j["position"] = r.position.to_text();
  j["pits"] = r.position.pits;
  j["rules"] = rules_json(r.rules);
  j["value"] = value_or_null(known(r.interrupted, r.lower, r.upper, o.value));
  j["to_move"] = std::string(1, side_letter(r.position.to_move));
  Json moves = Json::array();
  for (const SowingValue& m : o.moves)
    moves.push_back({{"pit", m.pit + 1}, {"value", m.value}, {"extra_turn", m.extra_turn}});
  j["moves"] = moves;
  Json turns = Json::array();
  for (const TurnValue& t : o.turns) turns.push_back({{"pits", pits_json(t.pits)}, {"value", t.value}});
  j["turns"] = turns;
  j["pie_value"] = value_or_null(o.pie_value);
  Json balanced = Json::array();
  for (const auto& t : o.balanced) balanced.push_back(pits_json(t));
  j["balanced"] = balanced;
  j["margin_is_natural_end"] = true;
  add_interruption(j, r.interrupted, r.lower, r.upper);
  j["nodes"] = r.stats.nodes;
  j["seconds"] = r.stats.seconds;
  j["search_seconds"] = r.stats.search_seconds;
  j["threads"] = r.stats.threads;
  j["db_max_seeds"] = r.stats.db_max_seeds;
  return j;
}

Json to_json(const ExploreReport& r) {
  Json j = solution_json(r.position, r.rules, r.known() ? std::optional<int>(r.lower) : std::nullopt, nullptr);
  j["lower"] = r.lower;
  j["upper"] = r.upper;
  j["game_over"] = r.game_over;
  Json moves = Json::array();
  for (const ExploreMove& m : r.moves)
    moves.push_back({{"pit", m.pit + 1},
                     {"value", value_or_null(m.known() ? std::optional<int>(m.lower) : std::nullopt)},
                     {"lower", m.lower},
                     {"upper", m.upper},
                     {"extra_turn", m.extra_turn},
                     {"capture", m.capture},
                     {"position", m.after.to_text()},
                     {"source", source_name(m.source)}});
  j["moves"] = moves;
  j["interrupted"] = r.interrupted;
  j["nodes"] = r.nodes;
  j["seconds"] = r.seconds;
  return j;
}

Json to_json(const LabelReport& r) {
  Json j;
  j["position"] = r.position.to_text();
  j["pits"] = r.position.pits;
  j["to_move"] = std::string(1, side_letter(r.position.to_move));
  j["value"] = r.values.value;
  Json moves = Json::array(), best = Json::array();
  for (const SowingValue& m : r.values.moves) {
    const int loss = margin_lost(r.position.to_move, r.values.value, m.value);
    moves.push_back({{"pit", m.pit + 1}, {"value", m.value}, {"extra_turn", m.extra_turn}, {"loss", loss}});
    if (loss == 0) best.push_back(m.pit + 1);
  }
  j["moves"] = moves;
  j["best"] = best;
  j["from_book"] = r.from_book;
  j["nodes"] = r.nodes;
  j["seconds"] = r.seconds;
  return j;
}

Json to_json(const ProbeReport& r) {
  Json j = solution_json(r.position, r.rules, r.play.value, &r.play);
  j["remainder"] = r.remainder;
  j["solver"] = "database";
  return j;
}

Json to_json(const search::PassRecord& r) {
  using Purpose = search::PassRecord::Purpose;
  using search::NodeKind;
  Json j;
  j["solver"] = r.solver;
  j["pass"] = r.pass;
  j["purpose"] = r.purpose == Purpose::value_deepening  ? "value_deepening"
                 : r.purpose == Purpose::value          ? "value"
                 : r.purpose == Purpose::test_deepening ? "test_deepening"
                                                        : "test";
  j["seeds"] = r.seeds;
  j["seeds_above_database"] = r.seeds_above_database;
  j["depth"] = r.depth;
  j["gamma"] = r.gamma;
  j["expected"] = r.expected == NodeKind::cut ? "cut" : r.expected == NodeKind::all ? "all" : "unknown";
  j["ordered"] = r.ordered;
  j["alone"] = r.alone;
  j["result"] = r.result;
  j["holds"] = r.result >= r.gamma;
  j["nodes"] = r.nodes;
  j["discarded_nodes"] = r.discarded_nodes;
  j["split_points"] = r.split_points;
  j["seconds"] = r.seconds;
  j["idle_seconds"] = r.idle_seconds;
  return j;
}

Json to_json(const ProbeRateReport& r) {
  Json j;
  j["directory"] = r.directory;
  j["max_seeds"] = r.max_seeds;
  j["layout"] = r.packed ? "packed" : "bytes";
  j["memory_bytes"] = r.memory_bytes;
  j["bits_per_board"] = r.bits_per_board;
  j["load_seconds"] = r.load_seconds;
  j["boards"] = r.boards;
  j["probes"] = r.probes;
  j["batch"] = r.batch;
  j["ns_single"] = r.ns_single;
  j["ns_batched"] = r.ns_batched;
  j["value_sum"] = r.value_sum;
  return j;
}

Json database_json(const std::string& dir, const DbScan& scan) {
  const dbfile::Header& h0 = scan.levels.front().header;
  const int max_seeds = scan.max_seeds();
  Json levels = Json::array();
  for (const DbLevelInfo& l : scan.levels) {
    levels.push_back({{"level", l.level},
                      {"entries", l.header.entries},
                      {"bytes", l.bytes},
                      {"blocks", l.header.blocks},
                      {"format_version", l.header.version},
                      {"bits_per_board", l.header.bits_per_board()},
                      {"program", l.program.empty() ? Json(nullptr) : Json(l.program)}});
  }
  Json j;
  j["directory"] = dir;
  j["pits"] = h0.pits;
  j["rules"] = rules_json(h0.rules);
  j["max_seeds"] = max_seeds;
  j["positions"] = scan.positions();
  j["bytes"] = scan.bytes();
  j["format_version"] = h0.version;
  j["memory_bytes"] = scan.memory_bytes();
  j["bits_per_board"] = scan.bits_per_board();
  j["manifest"] = scan.has_manifest;
  j["complete"] = !scan.incomplete();
  j["target_max_seeds"] = scan.has_manifest ? scan.target_max_seeds : max_seeds;
  j["unused_levels"] = scan.unused_levels;
  j["saved_pairs"] = nlohmann::json::array();
  for (const DbScan::SavedPairs& s : scan.saved_pairs)
    j["saved_pairs"].push_back({{"level", s.level}, {"pairs", s.pairs}, {"of", SublevelIndexer::pairs(s.level)}});
  j["levels"] = levels;
  return j;
}

namespace {

// Counts at every other offset (the values of a level share the parity of k).
Json every_other(const std::vector<std::uint64_t>& counts) {
  Json a = Json::array();
  for (std::size_t i = 0; i < counts.size(); i += 2) a.push_back(counts[i]);
  return a;
}

Json level_stats_json(const LevelStats& st, std::uint64_t file_bytes, bool compressed) {
  const double boards = static_cast<double>(st.boards);
  Json j;
  j["level"] = st.level;
  j["boards"] = st.boards;
  j["terminal"] = st.terminal();
  j["no_leaving"] = st.no_leaving();
  j["with_leaving"] = st.with_leaving();
  j["value_equals_p"] = st.value_equals_p();
  j["h_value"] = st.h_value();
  j["h_value_given_side"] = st.h_value_given_side();
  j["h_excess"] = st.h_excess();
  j["h_excess_given_side"] = st.h_excess_given_side();
  j["h_value_given_p"] = st.h_value_given_p();
  j["h_value_given_p_side"] = st.h_value_given_p_side();
  j["h_value_no_leaving"] = st.h_value_no_leaving();
  j["h_value_no_leaving_given_side"] = st.h_value_no_leaving_given_side();
  j["h_value_given_class"] = st.h_value_given_class();
  j["h_value_given_class_side"] = st.h_value_given_class_side();
  j["values"] = every_other(st.value_counts());
  j["no_leaving_values"] = every_other(st.no_leaving_value_counts());
  j["excess"] = every_other(st.excess_counts());
  j["codes"] = st.code_counts();
  j["escapes_2bit"] = st.escapes(2);
  j["escapes_3bit"] = st.escapes(3);
  j["escapes_4bit"] = st.escapes(4);
  j["window_escapes_3bit"] = st.window_escapes(3, false);
  j["window_escapes_4bit"] = st.window_escapes(4, false);
  j["side_window_escapes_3bit"] = st.window_escapes(3, true);
  j["side_window_escapes_4bit"] = st.window_escapes(4, true);
  j["file_bytes"] = file_bytes;
  j["file_bytes_per_board"] = static_cast<double>(file_bytes) / boards;
  // Sizes of the packings: null when not compressed (--no-zstd).
  const auto size = [&](std::uint64_t bytes) { return compressed ? Json(bytes) : Json(nullptr); };
  const auto per_board = [&](std::uint64_t bytes) {
    return compressed ? Json(static_cast<double>(bytes) / boards) : Json(nullptr);
  };
  j["raw_bytes"] = size(st.raw_bytes);
  j["code_bytes"] = size(st.code_bytes);
  j["nibble_bytes"] = size(st.nibble_bytes);
  j["escape_bytes"] = size(st.escape_bytes);
  j["raw_bytes_per_board"] = per_board(st.raw_bytes);
  j["code_bytes_per_board"] = per_board(st.code_bytes);
  j["nibble_bytes_per_board"] = per_board(st.nibble_bytes + st.escape_bytes);
  return j;
}

}  // namespace

Json to_json(const DbStatsReport& r) {
  Json levels = Json::array();
  for (std::size_t i = 0; i < r.levels.size(); ++i)
    levels.push_back(level_stats_json(r.levels[i], r.file_bytes[i], r.options.compress));
  Json j;
  j["directory"] = r.directory;
  j["pits"] = r.pits;
  j["rules"] = rules_json(r.rules);
  j["max_seeds"] = r.max_seeds;
  j["compressed"] = r.options.compress;
  j["compression"] = r.options.compression;
  j["block_entries"] = r.options.block_entries;
  j["threads"] = r.options.threads;
  j["seconds"] = r.seconds;
  j["levels"] = levels;
  return j;
}

Json to_json(const BenchReport& r) {
  Json positions = Json::array();
  for (const BenchResult& b : r.results) {
    Json p = {{"name", b.name},
              {"position", b.position.to_text()},
              {"rules", rules_json(b.rules)},
              {"value", b.value},
              {"nodes", b.nodes},
              {"seconds", b.seconds}};
    if (!b.best.empty()) p["best"] = pits_json(b.best);
    positions.push_back(std::move(p));
  }
  Json j;
  j["positions"] = positions;
  j["total_nodes"] = r.total_nodes;
  j["seconds"] = r.seconds;
  j["nodes_per_second"] = r.seconds > 0 ? static_cast<double>(r.total_nodes) / r.seconds : 0.0;
  j["threads"] = r.threads;
  return j;
}

namespace {
std::string side_key(Side s) { return s == Side::South ? "south" : "north"; }
}  // namespace

Json replay_json(const Replay& r, const Rules& rules, Notation notation) {
  const Position& f = r.final_position;
  Json turns = Json::array();
  for (const auto& t : r.turns) {
    bool capture = false;
    std::vector<int> pits;  // the sowings: pits of the side, in order
    for (const auto& s : t.sowings) {
      capture = capture || s.outcome.capture;
      pits.push_back(s.pit);
    }
    turns.push_back({{"number", t.number},
                     {"side", side_key(t.side)},
                     {"text", t.text},
                     {"swap", t.swap},
                     {"pits", pits_json(pits)},
                     {"capture", capture},
                     {"position", t.after.to_text()},
                     {"warnings", t.warnings}});
  }
  Json j;
  j["start"] = r.start.to_text();
  j["pits"] = r.start.pits;
  j["rules"] = rules_json(rules);
  j["notation"] = std::string(to_string(notation));
  j["record_finnish"] = format_finnish(r);
  j["record_irving"] = format_irving(r);
  j["turns"] = turns;
  j["final_position"] = f.to_text();
  j["over"] = r.over;
  j["ended_early"] = r.ended_early;
  j["swapped"] = r.swapped;
  j["south"] = f.store_of(Side::South);
  j["north"] = f.store_of(Side::North);
  j["margin"] = f.margin();
  j["winner"] = !r.over ? Json(nullptr) : Json(f.margin() > 0 ? "south" : f.margin() < 0 ? "north" : "draw");
  j["warnings"] = r.warnings;
  return j;
}

Json to_json(const GameAnalysis& a, Notation notation) {
  Json j = replay_json(a.game, a.rules, notation);
  j.erase("turns");
  j["margin_is_natural_end"] = true;
  j["mistakes"] = a.mistakes;
  auto player = [](const PlayerSummary& p) {
    return Json{{"turns", p.turns}, {"mistakes", p.mistakes}, {"margin_lost", p.margin_lost}};
  };
  j["players"] = {{"south", player(a.south)}, {"north", player(a.north)}};
  Json turns = Json::array();
  for (const TurnAnalysis& t : a.turns) {
    Json turn = {{"number", t.number}, {"side", side_key(t.side)},    {"text", t.text},
                 {"swap", t.swap},     {"pits", pits_json(t.played)}, {"position", t.before.to_text()}};
    if (!t.swap) {
      Json best = Json::array();
      for (const auto& b : t.best) best.push_back(pits_json(b));
      turn["value_before"] = t.value_before;
      turn["value_after"] = t.value_after;
      turn["best"] = best;
      turn["margin_lost"] = t.margin_lost;
      turn["mistake"] = t.mistake;
      turn["result_changed"] = t.result_changed;
    }
    turns.push_back(turn);
  }
  j["turns"] = turns;
  j["interrupted"] = a.interrupted;
  j["nodes"] = a.nodes;
  j["seconds"] = a.seconds;
  return j;
}

}  // namespace kalah::api

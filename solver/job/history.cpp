#include "solver/job/history.hpp"

#include <map>

#include "solver/job/job.hpp"

namespace kalah::job {

JobHistory job_history(const std::filesystem::path& dir) {
  JobHistory h;
  h.dir = dir;
  JobStore store(dir, false);
  h.spec = store.spec();
  store.begin_snapshot();
  const TopTree stored = store.load_tree();
  const std::vector<UnitRecord> units = store.units(stored.size());
  const std::vector<RunRecord> runs = store.runs();
  store.end_snapshot();
  // Each run's start on the run-time axis: the lengths of the runs before it.
  std::map<int, std::pair<double, double>> run_start;  // id -> (Unix start, run time before it)
  double before = 0;
  for (const RunRecord& r : runs) {
    run_start[r.id] = {r.started, before};
    before += std::max(0.0, r.ended - r.started);
  }
  TopTree tree = stored.skeleton();
  const Position& p = h.spec.position;
  const FirstTurns shape = first_turns(tree, p);  // the rows: the tree's shape does not change below
  for (const FirstTurn& t : shape.sowings) h.sowing_pits.push_back(t.pits.front());
  for (const FirstTurn& t : shape.turns) {
    h.turns.push_back(t.pits);
    h.turn_complete.push_back(t.complete_turn);
  }
  HistoryPoint point;
  auto fill = [&] {
    const TopNode& n = tree.node(0);
    std::tie(point.lower, point.upper) = margins(p, n.lower, n.upper);
    const FirstTurns ft = first_turns(tree, p);
    point.sowing_lower.clear();
    point.sowing_upper.clear();
    for (const FirstTurn& t : ft.sowings) {
      point.sowing_lower.push_back(t.lower);
      point.sowing_upper.push_back(t.upper);
    }
    point.turn_lower.clear();
    point.turn_upper.clear();
    for (const FirstTurn& t : ft.turns) {
      point.turn_lower.push_back(t.lower);
      point.turn_upper.push_back(t.upper);
    }
  };
  fill();
  h.points.push_back(point);
  for (const UnitRecord& u : units) {
    tree.tighten(u.node, u.lower, u.upper);
    ++point.units;
    point.worker_seconds += u.seconds;
    point.unit = u.id;
    point.run = u.run;
    if (const auto it = run_start.find(u.run); it != run_start.end())
      point.run_seconds = it->second.second + std::max(0.0, u.finished - it->second.first);
    const HistoryPoint last = h.points.back();
    fill();
    if (point.lower != last.lower || point.upper != last.upper || point.sowing_lower != last.sowing_lower ||
        point.sowing_upper != last.sowing_upper || point.turn_lower != last.turn_lower ||
        point.turn_upper != last.turn_upper)
      h.points.push_back(point);
  }
  // The end: where the job stands now, even when the last units moved nothing.
  if (h.points.back().units != point.units) h.points.push_back(point);
  return h;
}

api::Json to_json(const JobHistory& h) {
  using api::Json;
  Json j;
  j["dir"] = h.dir.string();
  j["pits"] = h.spec.pits;
  j["position"] = h.spec.position.to_text();
  j["rules"] = api::rules_json(h.spec.rules);
  j["sowings"] = api::pits_json(h.sowing_pits);
  Json turns = Json::array();
  for (std::size_t i = 0; i < h.turns.size(); ++i)
    turns.push_back({{"pits", api::pits_json(h.turns[i])}, {"complete_turn", static_cast<bool>(h.turn_complete[i])}});
  j["turns"] = turns;
  Json points = Json::array();
  for (const HistoryPoint& q : h.points) {
    Json s = Json::array();
    for (std::size_t i = 0; i < q.sowing_lower.size(); ++i)
      s.push_back(Json::array({q.sowing_lower[i], q.sowing_upper[i]}));
    Json t = Json::array();
    for (std::size_t i = 0; i < q.turn_lower.size(); ++i) t.push_back(Json::array({q.turn_lower[i], q.turn_upper[i]}));
    points.push_back({{"unit", q.unit},
                      {"run", q.run},
                      {"run_seconds", q.run_seconds},
                      {"worker_seconds", q.worker_seconds},
                      {"units", q.units},
                      {"lower", q.lower},
                      {"upper", q.upper},
                      {"sowings", s},
                      {"turns", t}});
  }
  j["points"] = points;
  return j;
}

}  // namespace kalah::job

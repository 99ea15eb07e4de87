#include "solver/api/reports.hpp"

#include <bit>
#include <chrono>

#include "solver/reference/reference_solver.hpp"

namespace kalah::api {

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

int pit_seeds(const Position& p) { return p.pit_seeds(Side::South) + p.pit_seeds(Side::North); }

// Bounds [lower, upper] of the remainder value of p's board as bounds of p's value.
void position_bounds(const Position& p, const search::Interrupted& e, int& lower, int& upper) {
  const bool south = p.to_move == Side::South;
  lower = p.margin() + (south ? e.lower : -e.upper);
  upper = p.margin() + (south ? e.upper : -e.lower);
}

// Counters of the session's solver at the start of a report, and the report's share.
class Meter {
 public:
  explicit Meter(Session& session)
      : session_(session),
        nodes0_(session.solver().nodes()),
        passes0_(session.solver().passes()),
        split_points0_(session.solver().split_points()),
        idle0_(session.solver().idle_seconds()),
        discarded0_(session.solver().discarded_nodes()),
        book_hits0_(session.book_hits()),
        t0_(Clock::now()) {}
  std::uint64_t nodes() const { return session_.solver().nodes() - nodes0_; }
  double seconds() const { return since(t0_); }

  void fill(SearchStats& st) {
    const search::Solver& solver = session_.solver();
    st.solver = "search";
    st.nodes = nodes();
    st.search_seconds = seconds();
    st.seconds = st.search_seconds + session_.take_open_seconds();
    st.threads = solver.threads();
    st.passes = solver.passes() - passes0_;
    st.split_points = solver.split_points() - split_points0_;
    st.idle_seconds = solver.idle_seconds() - idle0_;
    st.discarded_nodes = solver.discarded_nodes() - discarded0_;
    st.table_bytes = solver.table_bytes();
    st.table_max_bytes = solver.table_max_bytes();
    st.table_entries = solver.table_capacity();
    st.table_used = solver.table_used();
    st.table_capped = solver.table_capped();
    st.db_max_seeds = session_.database_seeds();
    st.db_seconds = session_.database_seconds();
    if (const EndgameDatabase* db = session_.database()) {
      st.db_memory_bytes = db->memory_bytes();
      st.db_partial_level = db->partial_level();
      st.db_partial_pairs = std::popcount(db->partial_pairs());
      if (db->bound_first() >= 0) {
        st.db_bound_first = db->bound_first();
        st.db_bound_last = db->bound_last();
        st.db_bound_pairs = std::popcount(db->bound_top_pairs());
      }
      st.db_mapped_bytes = db->mapped_bytes();
      st.db_bits_per_board = db->bits_per_board();
    }
    st.db_dir = session_.config().database_dir;
    if (const KnownBoards* book = session_.book()) st.book = book->name();
    st.book_hits = session_.book_hits() - book_hits0_;
  }

 private:
  Session& session_;
  std::uint64_t nodes0_, passes0_, split_points0_;
  double idle0_;
  std::uint64_t discarded0_;
  std::uint64_t book_hits0_;
  Clock::time_point t0_;
};

// The pie rule at a start position: the game's value is the best first turn's -|value|.
void apply_pie(SolveReport& r, const Oracle& oracle) {
  if (!r.rules.pie) return;
  const Openings o = analyse_openings(r.position, r.rules, oracle);
  if (!o.pie_value) return;
  r.value_without_pie = r.value;
  r.value = *o.pie_value;
  r.lower = r.upper = r.value;
  r.balanced = o.balanced;
}

}  // namespace

SolveReport solve_from(const Position& position, const Rules& rules, const Oracle& oracle,
                       const BestSowings& best_sowings, bool value_only,
                       const std::function<void(SolveReport&)>& on_value) {
  SolveReport r;
  r.position = position;
  r.rules = rules;
  r.value_only = value_only;
  try {
    r.value = position_value(position, r.rules, oracle);
  } catch (const search::Interrupted& e) {
    r.interrupted = true;
    position_bounds(position, e, r.lower, r.upper);
    return r;
  }
  r.lower = r.upper = r.value;
  if (on_value) on_value(r);
  // Then, unless the value alone was asked for, the best sowings and the principal
  // variation (on a Session they reuse the table).
  try {
    if (!value_only)
      r.play = best_sowings ? solve_position(position, r.rules, oracle, best_sowings)
                            : solve_position(position, r.rules, oracle);
    apply_pie(r, oracle);
  } catch (const search::Interrupted&) {
    r.interrupted = true;  // the value is known; what came after it is cut short
    r.play = PositionSolution{};
    if (r.rules.pie && position.is_start() && !r.value_without_pie) {
      // The pie value was not reached: it lies in [-seeds, 0] (max over turns of -|value|).
      r.value_without_pie = r.value;
      r.lower = -position.total_seeds();
      r.upper = 0;
    }
  }
  r.play.value = r.value_without_pie.value_or(r.value);
  return r;
}

SolveReport solve(Session& session, const Position& position, bool value_only) {
  session.check_fits(position);
  search::Solver& solver = session.solver();
  solver.forget_first_guess();  // a value from the book searches nothing
  Meter meter(session);
  bool value_known = false;
  auto on_value = [&](SolveReport& r) {
    value_known = true;
    r.stats.value_seconds = meter.seconds();
    r.stats.value_nodes = meter.nodes();
    r.stats.first_guess = solver.first_guess();
    r.stats.deepening_depth = solver.deepening_depth();
  };
  SolveReport r =
      solve_from(position, session.rules(), session.oracle(), session.best_sowings_function(), value_only, on_value);
  if (!value_known) {  // interrupted before the value: the root's last guess
    r.stats.first_guess = solver.first_guess();
    r.stats.deepening_depth = solver.deepening_depth();
  }
  meter.fill(r.stats);
  return r;
}

SolveReport solve_with_reference(const Position& position, const Rules& rules, bool value_only) {
  // The oracle memoises every board it reaches in a hash map: refuse boards whose
  // configurations (C(k+2m-1, 2m-1) with k seeds in the pits) would not fit in memory.
  const int k = pit_seeds(position);
  double boards = 1;
  for (int i = 1; i < 2 * position.pits; ++i) boards = boards * (k + i) / i;
  if (boards > 2e8)
    throw ConfigError("the reference solver is for small boards: " + std::to_string(k) + " seeds on " +
                      std::to_string(2 * position.pits) + " pits allow " +
                      std::to_string(static_cast<long long>(boards)) +
                      " configurations (limit 200000000); drop --reference to use the search");
  const auto t0 = Clock::now();
  ReferenceSolver reference(position.pits, rules.value_rules());
  const Oracle oracle = [&](const Board& b) { return reference.value(b); };
  SolveReport r = solve_from(position, rules, oracle, {}, value_only);
  r.stats.solver = "reference";
  r.stats.nodes = reference.nodes();
  r.stats.seconds = r.stats.search_seconds = since(t0);
  return r;
}

OpeningsReport openings_from(const Position& position, const Rules& rules, const Oracle& oracle) {
  OpeningsReport r;
  r.position = position;
  r.rules = rules;
  // The pie value is computed whether or not the pie rule is on (it is only defined from a
  // start position).
  Rules with_pie = r.rules.value_rules();
  with_pie.pie = true;
  bool value_known = false;
  try {
    // The value first (alone, so that an interruption there still gives its bounds).
    const int value = position_value(position, with_pie, oracle);
    r.lower = r.upper = value;
    value_known = true;
    analyse_openings(position, with_pie, oracle, r.openings);
  } catch (const search::Interrupted& e) {
    if (!value_known) position_bounds(position, e, r.lower, r.upper);
    r.openings.value = r.lower;
    r.interrupted = true;
  }
  return r;
}

OpeningsReport openings(Session& session, const Position& position) {
  session.check_fits(position);
  Meter meter(session);
  OpeningsReport r = openings_from(position, session.rules(), session.oracle());
  meter.fill(r.stats);
  return r;
}

}  // namespace kalah::api

#include "solver/api/explore.hpp"

#include <algorithm>
#include <chrono>
#include <climits>

#include "engine/game.hpp"

namespace kalah::api {

const char* source_name(ValueSource source) {
  switch (source) {
    case ValueSource::end: return "end";
    case ValueSource::book: return "book";
    case ValueSource::database: return "database";
    case ValueSource::search: return "search";
  }
  return "search";
}

namespace {

// Bounds of the remainder value of b (k seeds in the pits) for its mover: exact unless the
// search was cancelled (then what was proven, at worst what the table knew).
std::pair<int, int> remainder_bounds(search::Solver& solver, const Board& b) {
  try {
    const int v = solver.value(b);
    return {v, v};
  } catch (const search::Interrupted& e) {
    return {e.lower, e.upper};
  }
}

}  // namespace

ExploreReport explore(Session& session, const Position& position) {
  session.check_fits(position);
  const auto t0 = std::chrono::steady_clock::now();
  search::Solver& solver = session.solver();
  const std::uint64_t nodes0 = solver.nodes();
  const Rules natural = session.rules().value_rules();
  ExploreReport r;
  r.position = position;
  r.rules = session.rules();
  const Game start(position, natural);
  if (start.over()) {
    r.game_over = true;
    r.lower = r.upper = start.margin();
  }
  // A position the book holds: every sowing's value is in its entry.
  KnownBoard root;
  const bool root_known = !r.game_over && session.find_in_book(position.board(), root);
  for (const int pit : r.game_over ? std::vector<int>{} : start.legal_pits()) {
    Game game = start;
    ExploreMove m;
    m.pit = pit;
    const SowOutcome outcome = game.sow(pit).outcome;
    m.extra_turn = outcome.extra_turn;
    m.capture = outcome.capture;
    m.after = game.position();
    if (game.over()) {
      m.lower = m.upper = game.margin();
      m.source = ValueSource::end;
    } else if (root_known) {
      m.lower = m.upper = position.margin() + (position.to_move == Side::South ? 1 : -1) * root.sowing[pit];
      m.source = ValueSource::book;
    } else {
      const Position& a = m.after;
      const int seeds = a.pit_seeds(Side::South) + a.pit_seeds(Side::North);
      const EndgameDatabase* db = session.database();
      m.source = db && db->holds(seeds, base::to_bits(a.board())) ? ValueSource::database : ValueSource::search;
      KnownBoard known;
      if (session.find_in_book(a.board(), known)) m.source = ValueSource::book;
      const auto [lo, hi] =
          m.source == ValueSource::book ? std::pair{known.value, known.value} : remainder_bounds(solver, a.board());
      // The margin so far plus the remainder, South's way round.
      m.lower = a.margin() + (a.to_move == Side::South ? lo : -hi);
      m.upper = a.margin() + (a.to_move == Side::South ? hi : -lo);
      if (lo < hi) r.interrupted = true;
    }
    r.moves.push_back(m);
  }
  if (!r.game_over) {
    // Best for the mover first: South's by the upper bound (then the lower), North's by the
    // lower (then the upper); ties by pit.
    const bool south = position.to_move == Side::South;
    std::stable_sort(r.moves.begin(), r.moves.end(), [&](const ExploreMove& x, const ExploreMove& y) {
      if (south) return x.upper != y.upper ? x.upper > y.upper : x.lower > y.lower;
      return x.lower != y.lower ? x.lower < y.lower : x.upper < y.upper;
    });
    r.lower = south ? INT_MIN : INT_MAX;
    r.upper = south ? INT_MIN : INT_MAX;
    for (const ExploreMove& m : r.moves) {
      r.lower = south ? std::max(r.lower, m.lower) : std::min(r.lower, m.lower);
      r.upper = south ? std::max(r.upper, m.upper) : std::min(r.upper, m.upper);
    }
  }
  r.nodes = solver.nodes() - nodes0;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace kalah::api

// solver/api/label.hpp — every legal sowing's exact value of a position, best first: one
// position on a Session (`label`), or a stream of positions spread over worker sessions that
// share one database (`label_batch`, what `kalah label` and the Python module run).
//
// Values are South's final store minus North's with perfect play to the natural end (as in
// reports.hpp); a sowing that earns an extra turn is valued with the mover's best
// continuation. The position's value is the best sowing's (no search of the position itself).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "engine/position.hpp"
#include "engine/rules.hpp"
#include "solver/analysis/analysis.hpp"
#include "solver/api/reports.hpp"
#include "solver/api/session.hpp"

namespace kalah::api {

struct LabelReport {
  Position position;
  Rules rules;
  MoveValues values;       // the value and every sowing, best for the mover first
  bool from_book = false;  // every value read from the session's book
  std::uint64_t nodes = 0;
  double seconds = 0;  // wall time of the search
};

// Label `position` on the session (its table carries over). Throws ConfigError when the
// position does not fit the session, search::Interrupted when the session's cancel flag is set.
LabelReport label(Session& session, const Position& position);

// One item of a batch: a position, or why its input could not be read (the error is passed
// through to the result, so that the output keeps one entry an input).
struct BatchInput {
  std::optional<Position> position;
  std::string error;
  long long tag = 0;  // the caller's (e.g. the input line), passed through
};
struct BatchResult {
  std::optional<LabelReport> report;
  std::string error;  // the input's error, or why the position could not be labelled
};

// How a batch is spread: worker sessions of one search thread each, searching one table
// (search/table_share.hpp: each builds on the others' proofs) or a table each (the budget
// split between them).
struct BatchWorkers {
  int count = 1;
  bool share_table = true;
};

// Labels a stream of positions on `workers.count` sessions opened from `config` (its database
// loaded once and shared). `next(item)` fills the next input and returns false at the end; it
// is called by one thread at a time. `done(input, result)` is called on the calling thread in
// input order. Returns false when config.cancel stopped the batch: the results delivered are
// complete, the ones in flight were dropped. Throws ConfigError / DatabaseError as Session does.
bool label_batch(const SessionConfig& config, BatchWorkers workers, const std::function<bool(BatchInput&)>& next,
                 const std::function<void(const BatchInput&, const BatchResult&)>& done);

}  // namespace kalah::api

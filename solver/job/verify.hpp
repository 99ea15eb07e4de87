// solver/job/verify.hpp — kalah job verify: checks a proof job's store independently of the
// runs that wrote it, so that whoever holds the store can re-check what it claims.
//
// Two checks, on the store as of one commit (a run may go on meanwhile):
// 1. Propagation. The top tree is rebuilt from its boards and expansions alone (each node
//    starts with the bounds its seeds allow, a terminal board with its value), every unit's
//    proven bounds are applied again and carried up to the root. Each stored node's bounds
//    must be what the units give: a stored bound the units do not prove is unjustified, one
//    they prove that the store lacks means the store is out of step with its units; units
//    that contradict each other are a wrong proof somewhere. When the job is done, its
//    report is computed again from the rebuilt tree (api::openings_from / solve_from, the
//    tree's exact values as the oracle) and must equal the stored one, statistics aside.
// 2. Units solved again. A random sample of the units that proved something is solved again
//    by a new session (its own table, and the database given to verify, which need not be the
//    runs'): each bound a unit claimed is proven again by one null-window test ("v >= lower",
//    and "v < upper + 2": values have the parity of the seeds). Units whose claim is a bound
//    of their node (the proof rests on them) are drawn first, then units a tighter one
//    superseded. A check that runs over its budget proves less and is reported as unchecked,
//    not failed; any proof that contradicts a claim fails the check. Or, instead of a sample,
//    the units a proof of the reported bounds rests on (VerifyOptions::proof, proof.hpp,
//    walked on the rebuilt tree): a certificate of what the job has proven, solved again
//    unit by unit.
// A check of many units can take hours: with VerifyOptions::record each check is recorded in
// the store as it ends (holding DIR/.lock, so no run writes meanwhile), and a later verify
// with record skips the units a recorded check confirmed, counts those it contradicted, and
// starts the units left unchecked at twice their largest recorded budget (at most the
// limit below). Within one verify, a unit over its budget is tried again after the others at
// twice the budget, up to VerifyOptions::max_check_seconds (its table then holds what the
// others searched). What is recorded is trusted by the next verify --record; a check that
// trusts nothing of the store's runs the units again without it.
// Values here are remainder values for the mover of the unit's board (docs/rules.md).
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "solver/api/report_json.hpp"
#include "solver/api/session.hpp"
#include "solver/job/job_store.hpp"

namespace kalah::job {

struct VerifyOptions {
  int sample = 10;                              // units solved again (at most the units that proved something)
  bool all = false;                             // every unit that proved something
  bool proof = false;                           // the units the proven bounds rest on (a proof), no sample
  std::uint64_t seed = 0;                       // of the sample: the same seed and store give the same units
  double check_seconds = 0;                     // a unit's budget (each of its tests); 0: none
  double max_check_seconds = 0;                 // a unit over budget is tried again at twice it up to this
  bool record = false;                          // record each check in the store; skip what is recorded
  const std::atomic<bool>* cancel = nullptr;    // set (Ctrl-C): stop after the current test, report what was done
  std::function<void(const std::string&)> log;  // a line a unit checked
};

struct UnitCheck {
  UnitRecord unit;
  int seeds = 0;                             // in the pits of the unit's board
  int claimed_lower = 0, claimed_upper = 0;  // the unit's bounds at the parity of the seeds
  enum class Verdict { confirmed, contradicted, unchecked };
  Verdict verdict = Verdict::unchecked;
  int found_lower = 0, found_upper = 0;  // what solving it again proved
  std::uint64_t nodes = 0;
  double seconds = 0;
  double budget = 0;      // of the last try, seconds a test (0: none)
  int tries = 0;          // in this verify (0: taken from a recorded check)
  bool recorded = false;  // the verdict is a check recorded by an earlier verify --record
};
const char* verdict_name(UnitCheck::Verdict v);

struct VerifyReport {
  std::filesystem::path dir;
  JobSpec spec;
  std::uint64_t tree_nodes = 0, units = 0;
  std::uint64_t units_with_bounds = 0;  // units that proved more than the seeds allow
  std::uint64_t decisive_units = 0;     // of those, units whose claim is a bound of their node (sampled first)
  bool proof = false;                   // the units checked are a proof of the goals' bounds (VerifyOptions::proof)
  std::uint64_t proof_units = 0;        // (proof) its units
  double proof_seconds = 0;             // (proof) their time in the runs
  // Propagation: findings, the first few of each kind in words, and how many in all.
  std::vector<std::string> findings;
  std::uint64_t unjustified = 0;  // stored bounds the units do not prove
  std::uint64_t behind = 0;       // bounds the units prove that the store lacks
  std::uint64_t conflicts = 0;    // units that contradict the others
  int lower = 0, upper = 0;       // the position's value from the units, South minus North
  bool finished = false;          // the store holds a report
  bool report_matches = false;    // (finished) the report computed again equals the stored one
  std::string report_difference;  // (finished, not matching) what differs
  // Units solved again.
  std::uint64_t seed = 0;
  std::vector<UnitCheck> checks;  // by unit id
  int confirmed = 0, contradicted = 0, unchecked = 0;
  int recorded = 0;          // of the checks, verdicts recorded by an earlier verify --record
  bool interrupted = false;  // stopped before every sampled unit was checked
  bool passed() const {
    return unjustified == 0 && behind == 0 && conflicts == 0 && (!finished || report_matches) && contradicted == 0;
  }
};

// Verifies the job in `dir`. `session` gives the database, memory and threads of the checks
// (pits, rules and seeds come from the job). Throws StoreError for a store that cannot be read,
// api::ConfigError / DatabaseError for a session that cannot be opened, DirectoryBusy when
// recording while a run (or another verify --record) holds the directory.
VerifyReport verify_job(const std::filesystem::path& dir, api::SessionConfig session, const VerifyOptions& options);

api::Json to_json(const VerifyReport& report);

// The checks a verify --record left in `store` (whose tree and units are given), each checked
// against the unit it names: its claims must be the unit's, the bounds found within what the
// seeds allow and of their parity, the verdict what claims and found bounds give. Throws
// StoreError naming the first damaged record. A record is what a verify wrote, not a proof:
// an independent check solves the units again (verify without --record).
std::vector<CheckRecord> recorded_checks(JobStore& store, const TopTree& tree, const std::vector<UnitRecord>& units);

// For each unit with records, the one that stands: a contradiction over a confirmation over a
// check left unchecked, and of the unchecked ones the largest budget. Pointers into `records`.
std::map<std::int64_t, const CheckRecord*> standing_checks(const std::vector<CheckRecord>& records);

}  // namespace kalah::job

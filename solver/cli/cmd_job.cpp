// kalah job: a resumable proof job (solver/job). `init` creates its store, `run` works on it
// with worker threads (or, in an MPI build under mpirun, with the other ranks as workers),
// `status` reports where it stands, `verify` re-checks what its store claims, `estimate`
// measures the work left, `history` replays how its bounds moved. Parses the options, calls
// solver/job and renders.
#include <cmath>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

#include "engine/text.hpp"
#include "solver/cli/commands.hpp"
#include "solver/cli/common.hpp"
#include "solver/cli/interrupt.hpp"
#include "solver/cli/session_options.hpp"
#include "solver/job/history.hpp"
#include "solver/job/job.hpp"
#include "solver/job/proof.hpp"
#include "solver/job/verify.hpp"
#include "solver/job/work_estimate.hpp"
#ifdef KALAH_HAVE_MPI
#include "solver/mpi/mpi_job.hpp"
#endif

namespace kalah::cli {

namespace {

std::string bounds_text(int lower, int upper) {
  if (lower == upper) return signed_value(lower);
  return "[" + signed_value(lower) + ", " + signed_value(upper) + "]";
}

std::string duration_text(double s) {
  char buf[64];
  if (s < 120)
    std::snprintf(buf, sizeof buf, "%.1f s", s);
  else if (s < 7200)
    std::snprintf(buf, sizeof buf, "%.1f min", s / 60);
  else if (s < 172800)
    std::snprintf(buf, sizeof buf, "%.1f h", s / 3600);
  else
    std::snprintf(buf, sizeof buf, "%.1f days", s / 86400);
  return buf;
}

int run_init(const Args& args) {
  po::options_description options("job init options");
  options.add_options()("dir", po::value<std::string>()->required(), "job directory (created)")(
      "value-only", "the value alone (default: also every first sowing and turn and the pie value, as kalah openings)");
  options.add(board_options(6, 4)).add(rule_options());
  po::variables_map vm;
  const auto pos = dir_positional();
  if (!parse_command("job init", "DIR [--pits M --seeds N | --position POS] [rule options] [--value-only]", options,
                     args, vm, &pos))
    return 0;
  job::JobSpec spec;
  spec.rules = rules_from(vm);
  spec.position = position_from(vm);
  spec.pits = spec.position.pits;
  spec.openings = !vm.count("value-only");
  const std::string dir = vm["dir"].as<std::string>();
  job::init_job(dir, spec);
  std::cout << "job       " << dir << " created\n"
            << "position  " << spec.position.to_text() << "\n"
            << "rules     " << rules_text(spec.rules) << "\n"
            << "asks      " << (spec.openings ? "the value, every first sowing and turn, the pie value" : "the value")
            << "\n"
            << "next      kalah job run " << dir << " [--db DIR] [--workers W] [--threads T]\n";
  return 0;
}

int run_run(const Args& args) {
  po::options_description options("job run options");
  // clang-format off
  options.add_options()
      ("dir", po::value<std::string>()->required(), "job directory (kalah job init)")
      ("workers,w", po::value<int>()->default_value(1), "worker threads in this process, searching one table (under mpirun: ignored, every other rank is a worker with its own)")
      ("own-tables", "give each worker thread a table of its own (--tt-memory split between them) instead of one shared")
      ("unit-seconds", po::value<double>()->default_value(30), "a unit's first budget: a unit that runs longer is stopped and its board asked again with twice the budget")
      ("max-unit-seconds", po::value<double>()->default_value(0), "the largest budget; a unit over it has its board expanded (0: 64 x --unit-seconds)")
      ("hours", po::value<double>()->default_value(0), "stop after this many hours (0: run to the end); run again to go on")
      ("estimate-nodes", po::value<std::uint64_t>()->default_value(std::uint64_t(1) << 16), "nodes of the quick estimate of a leaf that breaks ties between the leaves the proof numbers rank alike (and weights those numbers with --leaf-numbers estimate), at most 50000 a second of --unit-seconds (0: none, ties to the lowest pit)")
      ("select", po::value<std::string>()->default_value("proof-numbers"), "how the next leaf of a test is picked: proof-numbers (the most-proving free leaf), commit (down the line the estimate expects: one move where the test should hold, every move where it should fail)")
      ("leaf-numbers", po::value<std::string>()->default_value("moves"), "how a leaf's proof and disproof numbers start: one (1 and 1), moves (1 to prove, its moves to disprove), estimate (moves, the side its estimate calls unlikely times 4)")
      ("test", po::value<int>(), "the position's first test in this run: South minus North >= this margin (a claim to check first); default: at the guess")
      ("json", "print the report as one JSON object when the run ends");
  // clang-format on
  options.add(search_options());
  po::variables_map vm;
  const auto pos = dir_positional();
  if (!parse_command(
          "job run",
          "DIR [--db DIR] [--workers W] [--own-tables] [--threads T] [--unit-seconds S] "
          "[--max-unit-seconds S] [--hours H] [--test MARGIN] [--estimate-nodes N] [--select HOW] [--leaf-numbers HOW] "
          "[--tt-memory SIZE] "
          "[--memory SIZE] [--json]",
          options, args, vm, &pos))
    return 0;
  const std::string dir = vm["dir"].as<std::string>();
  job::LocalRun config;
  config.session = session_config(vm, 6, Rules{}, 0);  // pits, rules and seeds come from the job
  config.session.progress = nullptr;                   // the job logs its own progress
  config.workers = vm["workers"].as<int>();
  if (config.workers < 1 || config.workers > 1024) throw UsageError("--workers must be between 1 and 1024");
  config.share_table = !vm.count("own-tables");
  config.run.unit_seconds = vm["unit-seconds"].as<double>();
  if (!(config.run.unit_seconds > 0) || config.run.unit_seconds > 1e6)
    throw UsageError("--unit-seconds must be above 0 and at most 1000000");
  config.run.max_unit_seconds = vm["max-unit-seconds"].as<double>();
  if (!(config.run.max_unit_seconds >= 0) || config.run.max_unit_seconds > 1e8)
    throw UsageError("--max-unit-seconds must be between 0 and 100000000");
  config.run.hours = vm["hours"].as<double>();
  if (!(config.run.hours >= 0) || config.run.hours > 1e5) throw UsageError("--hours must be between 0 and 100000");
  if (vm.count("test")) {
    const int margin = vm["test"].as<int>();
    if (margin < -kMaxSeeds || margin > kMaxSeeds)
      throw UsageError("--test must be a margin between -" + std::to_string(kMaxSeeds) + " and " +
                       std::to_string(kMaxSeeds));
    config.run.first_test = margin;
  }
  config.run.estimate_nodes = vm["estimate-nodes"].as<std::uint64_t>();
  if (config.run.estimate_nodes > (std::uint64_t(1) << 32))
    throw UsageError("--estimate-nodes must be between 0 and 4294967296");
  const std::string leaves = vm["leaf-numbers"].as<std::string>();
  if (leaves == "one")
    config.run.leaf_numbers = job::LeafNumbers::kOne;
  else if (leaves == "moves")
    config.run.leaf_numbers = job::LeafNumbers::kMoves;
  else if (leaves == "estimate")
    config.run.leaf_numbers = job::LeafNumbers::kEstimate;
  else
    throw UsageError("--leaf-numbers must be one, moves or estimate, not " + kalah::quoted(leaves));
  const std::string select = vm["select"].as<std::string>();
  if (select == "proof-numbers")
    config.run.selection = job::Selection::kProofNumbers;
  else if (select == "commit")
    config.run.selection = job::Selection::kCommit;
  else
    throw UsageError("--select must be proof-numbers or commit, not " + kalah::quoted(select));
  config.run.cancel = interrupt_flag();
  config.run.log = [](const std::string& line) { std::cerr << line << std::endl; };
  catch_interrupts();
  job::RunSummary s;
#ifdef KALAH_HAVE_MPI
  if (mpi::launched_by_mpirun()) {
    const mpi::MpiSummary m = mpi::run_mpi_job(dir, config);
    if (m.worker) return 0;  // rank 0 reports
    s = m.run;
  } else {
    s = job::run_local_job(dir, config);
  }
#else
  s = job::run_local_job(dir, config);
#endif
  if (vm.count("json")) {
    std::cout << s.report_json << "\n";
  } else {
    const nlohmann::ordered_json r = nlohmann::ordered_json::parse(s.report_json);
    std::cout << "job       " << dir << "\n"
              << "run       " << s.outcome << ": " << s.units << " units, " << s.nodes << " nodes, " << s.expansions
              << " expansions, " << s.regrown << " budgets doubled, " << s.carried << " carried from earlier runs in "
              << duration_text(s.seconds) << " (front end " << duration_text(s.front_end_seconds) << ")\n";
    if (s.finished)
      std::cout << "value     " << signed_value(r["value"].get<int>()) << " (South minus North)\n"
                << "report    kalah job status " << dir << " --json (as kalah "
                << (r.contains("openings") || r.contains("turns") ? "openings" : "solve") << " --json)\n";
    else
      std::cout << "value     " << bounds_text(r["lower"].get<int>(), r["upper"].get<int>())
                << " so far; kalah job run " << dir << " goes on from here\n";
  }
  if (!s.finished) return interrupt_exit_code() ? interrupt_exit_code() : 0;
  return 0;
}

// The programs that ran the job's runs and made its checks: "not recorded (runs 1-9),
// 42430228be27 (run 10); checks: not recorded 166, 42430228be27 12".
std::string job_programs_text(const job::JobStatus& st) {
  std::vector<std::pair<int, std::string>> ran_by;
  for (const job::RunRecord& r : st.runs) ran_by.emplace_back(r.id, r.program);
  std::string checks;
  for (const auto& [program, n] : st.check_programs)
    checks += (checks.empty() ? "; checks: " : ", ") + (program.empty() ? std::string("not recorded") : program) + " " +
              std::to_string(n);
  return one_line(programs_text(ran_by, "run", "-") + checks, 500);
}

// The proof as an indented tree: a line a test, each edge's pit (1-based, the mover's; * an
// extra turn) and what decided it.
void print_proof(const job::Proof& proof, const std::map<std::int64_t, std::string>& checked) {
  int confirmed = 0;
  for (const job::UnitRecord& u : proof.units)
    if (const auto c = checked.find(u.id); c != checked.end() && c->second == "confirmed") ++confirmed;
  std::cout << "\nproof     " << proof.lines.size() << " tests resting on " << proof.units.size() << " units ("
            << duration_text(proof.unit_seconds()) << " of the runs)";
  if (!checked.empty())
    std::cout << ", " << confirmed << " of them confirmed by solving them again (kalah job verify --record)";
  std::cout << "\n          v: the remainder value for the player to move, pits his, * an extra turn\n";
  for (const job::ProofLine& l : proof.lines) {
    std::cout << "  " << std::string(static_cast<std::size_t>(2 * l.depth), ' ');
    if (l.pit < 0)
      std::cout << "node " << l.node;
    else
      std::cout << "pit " << l.pit + 1 << (l.extra_turn ? "*" : "");
    std::cout << ": v >= " << l.gamma << (l.holds ? " holds" : " fails") << ", ";
    switch (l.by) {
      case job::ProofLine::By::unit:
        std::cout << "unit " << l.unit->id << " (" << duration_text(l.unit->seconds) << ", node " << l.node;
        if (const auto c = checked.find(l.unit->id); c != checked.end())
          std::cout << (c->second == "confirmed"      ? "; confirmed again"
                        : c->second == "contradicted" ? "; CONTRADICTED when solved again"
                                                      : "; not confirmed yet: over budget");
        std::cout << ")";
        break;
      case job::ProofLine::By::seeds: std::cout << "by the seeds"; break;
      case job::ProofLine::By::end: std::cout << "the game is over"; break;
      case job::ProofLine::By::children: std::cout << (l.holds ? "by this move:" : "every move fails:"); break;
      case job::ProofLine::By::again: std::cout << "as above (node " << l.node << ")"; break;
    }
    std::cout << "\n";
  }
}

int run_status(const Args& args) {
  po::options_description options("job status options");
  // clang-format off
  options.add_options()
      ("dir", po::value<std::string>()->required(), "job directory")
      ("proof", "print the proof of the proven bounds too: the tests down the tree and the units they rest on")
      ("json", "print one JSON object instead of text");
  // clang-format on
  po::variables_map vm;
  const auto pos = dir_positional();
  if (!parse_command("job status", "DIR [--proof] [--json]", options, args, vm, &pos)) return 0;
  const std::string dir = vm["dir"].as<std::string>();
  const job::JobStatus st = job::job_status(dir);
  std::optional<job::Proof> proof;
  if (vm.count("proof")) proof = job::job_proof(dir);
  if (vm.count("json")) {
    api::Json j = job::to_json(st);
    if (proof) {
      j["proof"] = job::to_json(*proof);
      int confirmed = 0;
      for (const job::UnitRecord& u : proof->units)
        if (const auto c = st.checked.find(u.id); c != st.checked.end() && c->second == "confirmed") ++confirmed;
      j["proof"]["units_confirmed"] = confirmed;
    }
    std::cout << api::json_text(j) << "\n";
    return 0;
  }
  std::cout << "job       " << st.dir.string()
            << (st.running ? "  (" + (st.holder.empty() ? std::string("a run") : st.holder) + " is working on it now)"
                           : std::string())
            << "\n"
            << "position  " << st.spec.position.to_text() << "  (" << st.seeds << " seeds in the pits)\n"
            << "rules     " << rules_text(st.spec.rules) << "\n"
            << "value     " << bounds_text(st.lower, st.upper)
            << (st.lower == st.upper ? " (proven)" : " (bounds proven so far)") << ", South minus North\n"
            << "report    "
            << (st.report_json     ? "complete (--json shows it)"
                : st.spec.openings ? "to come: value, openings, pie value"
                                   : "to come: value")
            << "\n\nfirst sowings (pit: value or bounds  [the work on it and below])\n";
  // A row's work: units on its board and below, worker time.
  const auto work = [](const job::BoundsRow& r) {
    return r.units == 0 ? std::string()
                        : "  [" + std::to_string(r.units) + " units, " + std::to_string(r.answered) + " answered, " +
                              duration_text(r.seconds) + "]";
  };
  for (const job::BoundsRow& r : st.sowings)
    std::cout << "  " << pits_text(r.pits, "-") << ": " << bounds_text(r.lower, r.upper)
              << (r.extra_turn ? "  (extra turn)" : "") << work(r) << "\n";
  if (st.sowings.empty()) std::cout << "  (the tree is not expanded yet)\n";
  std::cout << "first turns in the tree (pits: value or bounds  [the work on it and below])\n";
  for (const job::BoundsRow& r : st.turns)
    std::cout << "  " << pits_text(r.pits, "-") << (r.complete_turn ? "" : "-..") << ": "
              << bounds_text(r.lower, r.upper) << work(r) << "\n";
  const double mean = st.totals.units ? st.totals.unit_seconds / static_cast<double>(st.totals.units) : 0;
  std::cout << "\ntree      " << st.tree_nodes << " nodes, " << st.expanded << " expanded, " << st.exact << " exact, "
            << st.open_leaves << " open leaves below the goals\n"
            << "goals     " << st.goals_exact << " of " << st.goals
            << " exact (the boards the report asks about, as far as the tree holds them)\n"
            << "units     " << st.totals.units << " done (" << st.totals.complete_units << " answered, "
            << st.totals.units - st.totals.complete_units << " over budget or stopped), mean " << duration_text(mean)
            << ", " << st.totals.nodes << " nodes";
  if (st.running) std::cout << "; " << st.totals.last_in_flight << " under way at the last commit";
  std::cout << "\n"
            << "runs      " << st.totals.runs << ", " << duration_text(st.totals.run_seconds) << " in all";
  if (st.totals.run_seconds > 0)
    std::cout << ", " << std::lround(static_cast<double>(st.totals.units) / st.totals.run_seconds * 3600) << " units/h";
  if (st.totals.unit_seconds > 0)
    std::cout << ", " << std::lround(static_cast<double>(st.totals.nodes) / st.totals.unit_seconds / 1e3)
              << " k nodes/s a worker";
  std::cout << "\n";
  if (!st.runs.empty()) std::cout << "programs  " << job_programs_text(st) << "\n";
  if (!st.checked.empty())
    std::cout << "checks    " << st.checked.size() << " units solved again by kalah job verify --record ("
              << st.check_records << " tries): " << st.checked_count("confirmed") << " confirmed, "
              << st.checked_count("contradicted") << " contradicted, " << st.checked_count("unchecked")
              << " over budget\n";
  if (!st.report_json)
    std::cout << "left      about " << duration_text(st.estimate_seconds) << " with " << st.last_workers
              << " worker(s): " << st.open_leaves << " open leaves x " << duration_text(mean)
              << " (a rough guide: a test needs only some leaves, a leaf that is expanded many units)\n";
  if (proof) print_proof(*proof, st.checked);
  return 0;
}

int run_verify(const Args& args) {
  po::options_description options("job verify options");
  // clang-format off
  options.add_options()
      ("dir", po::value<std::string>()->required(), "job directory")
      ("sample", po::value<int>()->default_value(10), "units solved again, drawn at random from those that proved something")
      ("all", "solve every unit that proved something again")
      ("proof", "solve again the units the proven bounds rest on: a proof of the position's bounds (and an openings job's first sowings' and turns'), one edge where a bound holds, every edge where it fails")
      ("seed", po::value<std::uint64_t>(), "the sample's seed (default: a random one, printed)")
      ("check-seconds", po::value<double>()->default_value(0), "a unit's budget when solved again (0: none); one over it is unchecked, not failed")
      ("max-check-seconds", po::value<double>()->default_value(0), "a unit over its budget is tried again after the others at twice the budget, up to this")
      ("record", "record each check in the job's store as it ends (no run may work on the job meanwhile); a later verify --record trusts what is recorded: it skips the units a recorded check decided and starts those left unchecked at twice their largest budget, at most --max-check-seconds (without it, at --check-seconds again)")
      ("json", "print one JSON object instead of text");
  // clang-format on
  options.add(search_options());
  po::variables_map vm;
  const auto pos = dir_positional();
  if (!parse_command("job verify",
                     "DIR [--sample N | --all | --proof] [--seed S] [--check-seconds S] [--max-check-seconds S] "
                     "[--record] [--db DIR] [--threads T] [--tt-memory SIZE] [--memory SIZE] [--json]",
                     options, args, vm, &pos))
    return 0;
  const std::string dir = vm["dir"].as<std::string>();
  job::VerifyOptions o;
  o.sample = vm["sample"].as<int>();
  if (o.sample < 0 || o.sample > 100000000) throw UsageError("--sample must be between 0 and 100000000");
  o.all = vm.count("all") > 0;
  o.proof = vm.count("proof") > 0;
  if (int(o.all) + int(o.proof) + int(!vm["sample"].defaulted()) > 1)
    throw UsageError("--sample, --all and --proof cannot be given together");
  o.seed = vm.count("seed") ? vm["seed"].as<std::uint64_t>() : std::random_device{}();
  o.check_seconds = vm["check-seconds"].as<double>();
  if (!(o.check_seconds >= 0) || o.check_seconds > 1e7)
    throw UsageError("--check-seconds must be between 0 and 10000000");
  o.max_check_seconds = vm["max-check-seconds"].as<double>();
  if (!(o.max_check_seconds >= 0) || o.max_check_seconds > 1e7)
    throw UsageError("--max-check-seconds must be between 0 and 10000000");
  if (o.max_check_seconds > 0 && o.check_seconds == 0)
    throw UsageError("--max-check-seconds needs --check-seconds (the first budget)");
  if (o.max_check_seconds > 0 && o.max_check_seconds < o.check_seconds)
    throw UsageError("--max-check-seconds must be at least --check-seconds");
  o.record = vm.count("record") > 0;
  o.cancel = interrupt_flag();
  o.log = [](const std::string& line) { std::cerr << "  " << line << std::endl; };
  api::SessionConfig session = session_config(vm, 6, Rules{}, 0);  // pits, rules and seeds come from the job
  catch_interrupts();
  const job::VerifyReport r = job::verify_job(dir, session, o);
  if (vm.count("json")) {
    std::cout << api::json_text(job::to_json(r)) << "\n";
  } else {
    std::cout << "job       " << dir << "\n"
              << "position  " << r.spec.position.to_text() << ", " << rules_text(r.spec.rules) << "\n"
              << "value     " << bounds_text(r.lower, r.upper) << " from the units alone, South minus North\n"
              << "tree      " << r.tree_nodes << " nodes, " << r.units << " units (" << r.units_with_bounds
              << " proved something, " << r.decisive_units << " of them a bound their node holds)\n"
              << "bounds    "
              << (r.unjustified + r.behind + r.conflicts == 0
                      ? "every node's stored bounds are what its units prove, carried up to the root"
                      : std::to_string(r.unjustified) + " unjustified, " + std::to_string(r.behind) +
                            " behind the units, " + std::to_string(r.conflicts) + " units in conflict")
              << "\n";
    for (const std::string& f : r.findings) std::cout << "  " << f << "\n";
    std::cout << "report    "
              << (!r.finished        ? "none yet (the job is not done)"
                  : r.report_matches ? "computed again from the units: equal to the stored one"
                                     : "differs: " + r.report_difference)
              << "\n"
              << "units     " << r.checks.size() << " checked ("
              << (r.proof ? "the proof's " + std::to_string(r.proof_units) + ", " +
                                std::to_string(static_cast<long long>(r.proof_seconds + 0.5)) + " s in the runs"
                          : "seed " + std::to_string(r.seed))
              << "): " << r.confirmed << " confirmed, " << r.contradicted << " contradicted, " << r.unchecked
              << " unchecked (over budget)"
              << (r.recorded > 0 ? "; " + std::to_string(r.recorded) +
                                       " of them by checks recorded earlier, the others tried here "
                                       "(verify without --record solves every one)"
                                 : "")
              << (r.interrupted ? "; interrupted before the rest" : "") << "\n";
    if (o.record)
      std::cout << "recorded  every check done is in the store (kalah job status shows them); the same command"
                << (o.proof || o.all ? "" : " with --seed " + std::to_string(r.seed)) << " goes on from them\n";
    if (r.proof)
      std::cout << "proof     "
                << (r.proof_units == 0 ? std::string("nothing proven beyond what the seeds allow")
                    : r.confirmed == static_cast<int>(r.proof_units)
                        ? "every unit the proven bounds rest on confirmed"
                        : std::to_string(r.confirmed) + " of its " + std::to_string(r.proof_units) +
                              " units confirmed; the others were not checked")
                << "\n";
    else if (r.unchecked > 0 || r.checks.size() < r.units_with_bounds)
      std::cout << "coverage  " << r.confirmed << " of " << r.units_with_bounds
                << " units confirmed by solving them again; the others were not checked\n";
    for (const job::UnitCheck& c : r.checks)
      if (c.verdict != job::UnitCheck::Verdict::confirmed)
        std::cout << "  unit " << c.unit.id << " (node " << c.unit.node << "): claimed "
                  << bounds_text(c.claimed_lower, c.claimed_upper) << ", proven again "
                  << bounds_text(c.found_lower, c.found_upper) << ": " << job::verdict_name(c.verdict) << "\n";
  }
  if (!r.passed())
    throw std::runtime_error("verification failed: " +
                             (r.findings.empty() ? (r.contradicted ? std::to_string(r.contradicted) +
                                                                         " unit(s) contradicted when solved again"
                                                                   : "the report differs: " + r.report_difference)
                                                 : r.findings.front()));
  if (r.interrupted || interrupt_exit_code()) return interrupt_exit_code() ? interrupt_exit_code() : 130;
  return 0;
}

int run_estimate(const Args& args) {
  po::options_description options("job estimate options");
  // clang-format off
  options.add_options()
      ("dir", po::value<std::string>()->required(), "job directory")
      ("margin", po::value<int>(), "the test: South minus North >= this margin (default: the margin a quick estimate guesses, within the job's bounds)")
      ("expect", po::value<std::string>(), "true or false: the test's answer, assumed along the whole walk instead of each board's quick estimate (default: the estimates)")
      ("depth", po::value<int>()->default_value(6), "sowings from the position to the frontier, whose tests are solved and timed")
      ("probes", po::value<int>()->default_value(32), "random walks to the frontier")
      ("seed", po::value<std::uint64_t>(), "the walks' seed (default: a random one, printed)")
      ("leaf-seconds", po::value<double>()->default_value(0), "a frontier test's budget (0: none); one over it counts what it took, a lower bound")
      ("json", "print one JSON object instead of text");
  // clang-format on
  options.add(search_options());
  po::variables_map vm;
  const auto pos = dir_positional();
  if (!parse_command(
          "job estimate",
          "DIR [--margin G] [--expect true|false] [--depth D] [--probes N] [--seed S] [--leaf-seconds S] [--db DIR] "
          "[--db-seeds K] [--threads T] [--tt-memory SIZE] [--json]",
          options, args, vm, &pos))
    return 0;
  const std::string dir = vm["dir"].as<std::string>();
  job::WorkEstimateOptions o;
  if (vm.count("margin")) {
    o.margin = vm["margin"].as<int>();
    if (*o.margin < -1000 || *o.margin > 1000) throw UsageError("--margin must be between -1000 and 1000");
  }
  if (vm.count("expect")) {
    const std::string e = vm["expect"].as<std::string>();
    if (e != "true" && e != "false") throw UsageError("--expect must be true or false, not " + kalah::quoted(e));
    o.expect = e == "true";
  }
  o.depth = vm["depth"].as<int>();
  if (o.depth < 0 || o.depth > 200) throw UsageError("--depth must be between 0 and 200");
  o.probes = vm["probes"].as<int>();
  if (o.probes < 1 || o.probes > 1000000) throw UsageError("--probes must be between 1 and 1000000");
  o.seed = vm.count("seed") ? vm["seed"].as<std::uint64_t>() : std::random_device{}();
  o.leaf_seconds = vm["leaf-seconds"].as<double>();
  if (!(o.leaf_seconds >= 0) || o.leaf_seconds > 1e7) throw UsageError("--leaf-seconds must be between 0 and 10000000");
  o.cancel = interrupt_flag();
  o.log = [](const std::string& line) { std::cerr << "  " << line << std::endl; };
  api::SessionConfig session = session_config(vm, 6, Rules{}, 0);  // pits, rules and seeds come from the job
  catch_interrupts();
  const job::WorkEstimate e = job::estimate_work(dir, session, o);
  if (vm.count("json")) {
    std::cout << api::json_text(job::to_json(e)) << "\n";
  } else {
    std::cout << "job       " << dir << "\n"
              << "position  " << e.spec.position.to_text() << ", " << rules_text(e.spec.rules) << "\n"
              << "test      South minus North >= " << signed_value(e.margin)
              << " (job so far: " << bounds_text(e.job_lower, e.job_upper) << "; a quick estimate says "
              << signed_value(e.guess)
              << (e.assumed ? std::string("; assumed ") + (e.expected ? "true" : "false") + " (--expect)"
                            : std::string(", so the test is expected ") + (e.expected ? "true" : "false"))
              << ")\n";
    if (e.decided) {
      std::cout << "left      nothing: the job has decided this test\n";
    } else {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.3g", e.mean_nodes);
      std::cout << "left      " << duration_text(e.mean_seconds) << " of CPU (standard error "
                << duration_text(e.standard_error_seconds) << "; a probe's median " << duration_text(e.median_seconds)
                << ", 10%..90% " << duration_text(e.p10_seconds) << ".." << duration_text(e.p90_seconds) << "), " << buf
                << " nodes\n"
                << "          mean +- 2 standard errors: "
                << duration_text(std::max(0.0, e.mean_seconds - 2 * e.standard_error_seconds)) << " .. "
                << duration_text(e.mean_seconds + 2 * e.standard_error_seconds)
                << " (heavy-tailed: more probes narrow it); " << duration_text(e.mean_seconds / 64)
                << " on 64 cores if the work split evenly\n"
                << "          one test: the value needs this one and the one next to it (--margin "
                << signed_value(e.expected ? e.margin + 2 : e.margin - 2) << ")\n";
      std::cout << "probes    " << e.probes.size() << " (seed " << e.seed << "), frontier " << e.depth
                << " sowings deep, database " << e.database_seeds << " seeds; " << e.leaves_solved
                << " frontier tests solved in " << duration_text(e.measured_seconds) << " with " << e.threads
                << " thread(s) each, " << e.surprises << " not as expected, " << e.incomplete << " over budget"
                << (e.interrupted ? "; interrupted before the rest" : "") << "\n";
    }
  }
  if (e.interrupted || interrupt_exit_code()) return interrupt_exit_code() ? interrupt_exit_code() : 130;
  return 0;
}

int run_history(const Args& args) {
  po::options_description options("job history options");
  options.add_options()("dir", po::value<std::string>()->required(), "job directory")(
      "json", "print one JSON object instead of CSV");
  po::variables_map vm;
  const auto pos = dir_positional();
  if (!parse_command("job history", "DIR [--json]", options, args, vm, &pos)) return 0;
  const job::JobHistory h = job::job_history(vm["dir"].as<std::string>());
  if (vm.count("json")) {
    std::cout << api::json_text(job::to_json(h)) << "\n";
    return 0;
  }
  // CSV: one row a point; the first sowings' columns are named by their 1-based pits, the first
  // turns' by their sowings ("turn1-3_lower"; "turn1-5-.." for a turn the tree does not finish).
  std::cout << "unit,run,run_seconds,worker_seconds,units,lower,upper";
  for (const int pit : h.sowing_pits) std::cout << ",pit" << pit + 1 << "_lower,pit" << pit + 1 << "_upper";
  for (std::size_t i = 0; i < h.turns.size(); ++i) {
    const std::string name = "turn" + pits_text(h.turns[i], "-") + (h.turn_complete[i] ? "" : "-..");
    std::cout << "," << name << "_lower," << name << "_upper";
  }
  std::cout << "\n";
  for (const job::HistoryPoint& q : h.points) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "%lld,%d,%.3f,%.3f,%llu,%d,%d", static_cast<long long>(q.unit), q.run, q.run_seconds,
                  q.worker_seconds, static_cast<unsigned long long>(q.units), q.lower, q.upper);
    std::cout << buf;
    for (std::size_t i = 0; i < q.sowing_lower.size(); ++i)
      std::cout << "," << q.sowing_lower[i] << "," << q.sowing_upper[i];
    for (std::size_t i = 0; i < q.turn_lower.size(); ++i) std::cout << "," << q.turn_lower[i] << "," << q.turn_upper[i];
    std::cout << "\n";
  }
  return 0;
}

}  // namespace

int run_job(const Args& args) {
  static const char* usage =
      "usage: kalah job <init|run|status|verify|estimate|history> DIR ...   (kalah job <subcommand> --help)";
  if (args.empty()) throw UsageError(usage);
  const std::string& sub = args[0];
  const Args rest(args.begin() + 1, args.end());
  if (sub == "init") return run_init(rest);
  if (sub == "run") return run_run(rest);
  if (sub == "status") return run_status(rest);
  if (sub == "verify") return run_verify(rest);
  if (sub == "estimate") return run_estimate(rest);
  if (sub == "history") return run_history(rest);
  if (sub == "--help" || sub == "-h") {
    std::cout << usage << "\n"
              << "  init    create a job: DIR [--pits M --seeds N | --position POS] [rule options] [--value-only]\n"
              << "  run     work on it until done, --hours H or Ctrl-C: DIR [--db DIR] [--workers W] [--threads T]\n"
              << "  status  where it stands: DIR [--json]\n"
              << "  verify  re-check the store: bounds from the units, units solved again: DIR [--sample N | --all | "
                 "--proof] [--db DIR]\n";
    return 0;
  }
  throw UsageError("unknown job subcommand " + kalah::quoted(sub) + "; " + usage);
}

}  // namespace kalah::cli

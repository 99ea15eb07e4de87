#include "solver/mpi/mpi_job.hpp"

#include <mpi.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <thread>

#include "solver/api/report_json.hpp"
#include "solver/base/program_version.hpp"
#include "solver/db/directory_lock.hpp"

namespace kalah::mpi {

namespace {

using Json = nlohmann::json;

enum Tag : int { kSpec = 1, kReady, kUnit, kOutcome, kStop, kDone };

void send(const Json& j, int to, Tag tag) {
  const std::string s = j.dump();
  MPI_Send(s.data(), static_cast<int>(s.size()), MPI_CHAR, to, tag, MPI_COMM_WORLD);
}

// Receives a message from `from` (MPI_ANY_SOURCE allowed) with `tag` (MPI_ANY_TAG allowed).
Json receive(int from, int tag, MPI_Status* status) {
  MPI_Status st;
  MPI_Probe(from, tag, MPI_COMM_WORLD, &st);
  int n = 0;
  MPI_Get_count(&st, MPI_CHAR, &n);
  std::string s(static_cast<std::size_t>(n), '\0');
  MPI_Recv(s.data(), n, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (status) *status = st;
  return Json::parse(s);
}

Json board_json(const Board& b) { return Json(std::vector<int>(b.cells.begin(), b.cells.end())); }
Board board_from(const Json& j) {
  Board b;
  const auto v = j.get<std::vector<int>>();
  if (v.size() != b.cells.size()) throw std::runtime_error("MPI: a board of the wrong size");
  for (std::size_t i = 0; i < b.cells.size(); ++i) {
    if (v[i] < 0 || v[i] > kMaxSeeds) throw std::runtime_error("MPI: a board with a pit out of range");
    b.cells[i] = static_cast<std::uint8_t>(v[i]);
  }
  return b;
}

// Rank 0's side: units go to idle ranks, outcomes come back from any.
class MpiPool : public job::WorkerPool {
 public:
  MpiPool(int ranks, int threads, const std::atomic<bool>* stop)
      : busy_(static_cast<std::size_t>(ranks), false), threads_(threads), stop_(stop) {}
  int size() const override { return static_cast<int>(busy_.size()) - 1; }
  int threads_per_worker() const override { return threads_; }
  void submit(const job::Unit& u) override {
    // Slot s is rank s + 1; the preferred rank when idle, else the first idle one.
    const std::size_t preferred = static_cast<std::size_t>(u.prefer_slot) + 1;
    const bool take_preferred = u.prefer_slot >= 0 && preferred < busy_.size() && !busy_[preferred];
    for (std::size_t r = take_preferred ? preferred : 1; r < busy_.size(); ++r) {
      if (busy_[r]) continue;
      busy_[r] = true;
      send(Json{{"id", u.id},
                {"board", board_json(u.board)},
                {"test", u.test},
                {"gamma", u.gamma},
                {"seconds", u.seconds}},
           static_cast<int>(r), kUnit);
      return;
    }
    throw std::logic_error("MPI: a unit with every worker busy");
  }
  std::optional<job::UnitOutcome> wait_for(double seconds) override {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    for (;;) {
      if (stop_ && stop_->load() && !stop_sent_) {  // forwarded once to the ranks under way
        stop_sent_ = true;
        for (std::size_t r = 1; r < busy_.size(); ++r)
          if (busy_[r]) send(Json::object(), static_cast<int>(r), kStop);
      }
      int flag = 0;
      MPI_Iprobe(MPI_ANY_SOURCE, kOutcome, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
      if (flag) break;
      if (std::chrono::steady_clock::now() >= until) return std::nullopt;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    MPI_Status st;
    const Json j = receive(MPI_ANY_SOURCE, kOutcome, &st);
    busy_[static_cast<std::size_t>(st.MPI_SOURCE)] = false;
    job::UnitOutcome o;
    o.id = j.at("id").get<std::uint64_t>();
    o.lower = j.at("lower").get<int>();
    o.upper = j.at("upper").get<int>();
    o.complete = j.at("complete").get<bool>();
    o.over_budget = j.at("over_budget").get<bool>();
    o.worker_interrupted = j.at("interrupted").get<bool>();
    if (j.contains("guess")) o.guess = j.at("guess").get<int>();
    o.nodes = j.at("nodes").get<std::uint64_t>();
    o.seconds = j.at("seconds").get<double>();
    o.worker = j.at("worker").get<std::string>();
    o.slot = st.MPI_SOURCE - 1;
    o.error = j.value("error", std::string());
    return o;
  }

 private:
  std::vector<bool> busy_;  // [rank]; rank 0 is the front end
  int threads_;
  const std::atomic<bool>* stop_;
  bool stop_sent_ = false;
};

// A worker rank: units until `done`.
void serve(job::Worker& worker, const std::atomic<bool>* interrupt) {
  for (;;) {
    MPI_Status st;
    const Json msg = receive(0, MPI_ANY_TAG, &st);
    if (st.MPI_TAG == kDone) return;
    if (st.MPI_TAG != kUnit) continue;  // a stop that arrived after its unit finished
    job::Unit u;
    u.id = msg.at("id").get<std::uint64_t>();
    u.board = board_from(msg.at("board"));
    u.test = msg.at("test").get<bool>();
    u.gamma = msg.at("gamma").get<int>();
    u.seconds = msg.at("seconds").get<double>();
    std::atomic<bool> stop{false};
    job::UnitOutcome out;
    std::atomic<bool> finished{false};
    // The search runs in its own thread; this one alone calls MPI (MPI_THREAD_FUNNELED) and
    // watches for a stop.
    std::thread t([&] {
      try {
        out = worker.run(u, &stop);
      } catch (const std::exception& e) {
        out.id = u.id;
        out.worker = worker.name();
        out.error = e.what();
      }
      finished = true;
    });
    while (!finished.load()) {
      int flag = 0;
      MPI_Iprobe(0, kStop, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
      if (flag) {
        receive(0, kStop, nullptr);
        stop = true;
      }
      if (interrupt && interrupt->load()) stop = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    t.join();
    const bool interrupted = interrupt && interrupt->load();
    Json j{{"id", out.id},
           {"lower", out.lower},
           {"upper", out.upper},
           {"complete", out.complete},
           {"over_budget", out.over_budget},
           {"interrupted", interrupted},
           {"nodes", out.nodes},
           {"seconds", out.seconds},
           {"worker", out.worker}};
    if (out.guess) j["guess"] = *out.guess;
    if (!out.error.empty()) j["error"] = out.error;
    send(j, 0, kOutcome);
  }
}

}  // namespace

bool launched_by_mpirun() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(v)) return true;
  return false;
}

std::string ranks_refusal(const std::vector<RankReady>& ready, std::string_view program) {
  const RankReady* levels = nullptr;  // the first rank with a session: the levels all must load
  for (const RankReady& w : ready) {
    if (!w.error.empty()) return "a worker could not open its session: " + w.error;
    if (w.program != program)
      return "rank " + std::to_string(w.rank) + " (" + w.host + ") runs kalah " + w.program + ", rank 0 runs " +
             std::string(program) + ": give every host the same build";
    if (!levels) levels = &w;
    if (w.database_seeds != levels->database_seeds)
      return "the ranks loaded different database levels (0.." + std::to_string(w.database_seeds) + " and 0.." +
             std::to_string(levels->database_seeds) + "): give every host the same database";
  }
  return "";
}

MpiSummary run_mpi_job(const std::filesystem::path& dir, job::LocalRun config) {
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  struct Finalize {
    ~Finalize() { MPI_Finalize(); }
  } finalize;
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (provided < MPI_THREAD_FUNNELED) throw std::runtime_error("MPI: this MPI library does not allow threads");
  if (ranks < 2)
    throw std::runtime_error(
        "MPI: a job run under mpirun needs at least 2 ranks (rank 0 is the front end, "
        "the others the workers); without mpirun it runs with worker threads");
  MpiSummary result;
  // The ranks of each host open their databases one after another: the first worker of the
  // host writes any missing raw cache files, the others map them (one copy in the page cache).
  auto host_turns = [&](const std::function<void()>& open) {
    MPI_Comm host;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &host);
    const int mine = rank == 0 ? std::numeric_limits<int>::max() : rank;
    int first = 0;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, host);
    if (rank != 0 && rank == first) open();
    MPI_Barrier(host);
    if (rank != 0 && rank != first) open();
    MPI_Comm_free(&host);
  };
  if (rank != 0) {
    result.worker = true;
    const Json spec = receive(0, kSpec, nullptr);
    if (spec.contains("error")) return result;  // rank 0 reports it
    const std::string name = job::host_name() + ":" + std::to_string(rank);
    std::unique_ptr<job::Worker> worker;
    Json ready{{"host", job::host_name()}, {"program", std::string(program_version())}};
    auto open = [&] {
      try {
        api::SessionConfig c = config.session;
        c.pits = spec.at("pits").get<int>();
        c.rules.sowing = parse_sowing(spec.at("sowing").get<std::string>());
        c.rules.capture = parse_capture(spec.at("capture").get<std::string>());
        c.rules.end = parse_end_rule(spec.at("end").get<std::string>());
        c.max_seeds = spec.at("seeds").get<int>();
        c.progress = nullptr;
        worker = std::make_unique<job::Worker>(c, name);
        ready["threads"] = worker->session().solver().threads();
        ready["database_seeds"] = worker->session().database_seeds();
      } catch (const std::exception& e) {
        ready["error"] = name + ": " + e.what();
      }
    };
    host_turns(open);
    send(ready, 0, kReady);
    if (worker)
      serve(*worker, config.run.cancel);
    else
      receive(0, kDone, nullptr);
    return result;
  }
  // Rank 0: the store, the lock, the front end.
  std::unique_ptr<DirectoryLock> lock;
  std::unique_ptr<job::JobStore> store;
  Json spec;
  try {
    { job::JobStore probe(dir, false); }
    lock = std::make_unique<DirectoryLock>(dir, "kalah job run", 2.0);
    store = std::make_unique<job::JobStore>(dir, true);
    const job::JobSpec& s = store->spec();
    spec = Json{{"pits", s.pits},
                {"sowing", std::string(to_string(s.rules.sowing))},
                {"capture", std::string(to_string(s.rules.capture))},
                {"end", std::string(to_string(s.rules.end))},
                {"seeds", s.position.pit_seeds(Side::South) + s.position.pit_seeds(Side::North)}};
  } catch (const std::exception& e) {
    for (int r = 1; r < ranks; ++r) send(Json{{"error", e.what()}}, r, kSpec);
    throw;
  }
  for (int r = 1; r < ranks; ++r) send(spec, r, kSpec);
  host_turns([] {});
  std::vector<RankReady> ready;
  for (int r = 1; r < ranks; ++r) {
    MPI_Status st;
    const Json j = receive(MPI_ANY_SOURCE, kReady, &st);
    RankReady& w = ready.emplace_back();
    w.rank = st.MPI_SOURCE;
    w.host = j.value("host", std::string("?"));
    w.program = j.value("program", std::string("unknown"));
    w.error = j.value("error", std::string());
    w.threads = j.value("threads", 0);
    w.database_seeds = j.value("database_seeds", -1);
  }
  const std::string error = ranks_refusal(ready, program_version());
  int threads = 0;
  for (const RankReady& w : ready) threads = std::max(threads, w.threads);
  const int database_seeds = ready.front().database_seeds;
  auto release = [&] {
    for (int r = 1; r < ranks; ++r) send(Json::object(), r, kDone);
  };
  if (!error.empty()) {
    release();
    throw std::runtime_error("MPI: " + error);
  }
  job::RunOptions run = config.run;
  std::atomic<bool> stop{false};
  run.stop = &stop;
  run.database_seeds = database_seeds;
  run.info.workers = ranks - 1;
  run.info.threads = threads;
  run.info.database = config.session.database_dir;
  run.info.host = job::host_name() + " (MPI, " + std::to_string(ranks) + " ranks)";
  MpiPool pool(ranks, threads, &stop);
  try {
    result.run = job::run_job(*store, pool, run);
  } catch (...) {
    release();
    throw;
  }
  release();
  return result;
}

}  // namespace kalah::mpi

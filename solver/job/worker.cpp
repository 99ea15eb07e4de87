#include "solver/job/worker.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace kalah::job {

namespace {

// Raises `cancel` once `seconds` have passed or *stop is set, until destroyed.
class Budget {
 public:
  Budget(std::atomic<bool>& cancel, double seconds, const std::atomic<bool>* stop)
      : thread_([this, &cancel, seconds, stop] {
          const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
          std::unique_lock lock(mutex_);
          while (!done_) {
            const auto now = std::chrono::steady_clock::now();
            if (now >= end || (stop && stop->load())) {
              expired_ = now >= end && !(stop && stop->load());
              cancel.store(true);
              return;
            }
            // The stop flag is polled every 5 ms; the budget is kept to the clock's resolution.
            const auto left = std::chrono::duration_cast<std::chrono::steady_clock::duration>(end - now);
            wake_.wait_for(lock, std::min<std::chrono::steady_clock::duration>(std::chrono::milliseconds(5), left));
          }
        }) {}
  ~Budget() {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  // The budget ran out (as opposed to a stop); read after the search returned or threw.
  bool expired() {
    std::lock_guard lock(mutex_);
    return expired_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  bool expired_ = false;
  std::thread thread_;  // last: started once the rest is ready
};

int seeds_of(const Board& b) {
  int k = 0;
  for (const auto c : b.cells) k += c;
  return k;
}

}  // namespace

UnitOutcome answer(search::Solver& solver, std::atomic<bool>& cancel, const Unit& unit, const std::atomic<bool>* stop) {
  UnitOutcome out;
  out.id = unit.id;
  const int k = seeds_of(unit.board);
  out.lower = -k;
  out.upper = k;
  cancel.store(false);
  const std::uint64_t nodes0 = solver.nodes();
  const auto t0 = std::chrono::steady_clock::now();
  {
    Budget budget(cancel, unit.seconds, stop);  // joined at the end of this block
    try {
      if (unit.test) {
        const int r = solver.test(unit.board, unit.gamma);
        if (r >= unit.gamma)
          out.lower = r;
        else
          out.upper = r;
      } else {
        out.lower = out.upper = solver.value(unit.board);
      }
      out.complete = true;
    } catch (const search::Interrupted& e) {
      out.lower = e.lower;
      out.upper = e.upper;
      out.over_budget = budget.expired();
      if (!unit.test && solver.first_guess()) out.guess = solver.first_guess()->value;
    }
  }
  cancel.store(false);
  out.nodes = solver.nodes() - nodes0;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

Worker::Worker(api::SessionConfig config, std::string name) : name_(std::move(name)) {
  config.cancel = &cancel_;
  session_ = std::make_unique<api::Session>(std::move(config));
}

UnitOutcome Worker::run(const Unit& unit, const std::atomic<bool>* stop) {
  UnitOutcome out = answer(session_->solver(), cancel_, unit, stop);
  out.worker = name_;
  return out;
}

}  // namespace kalah::job

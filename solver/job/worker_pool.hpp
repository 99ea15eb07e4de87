// solver/job/worker_pool.hpp — where a proof job's units run: an interface the front end
// drives, and the pool of worker threads in this process (the build without MPI, and a laptop).
// The MPI pool (solver/mpi) sends units to other ranks instead.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "solver/job/worker.hpp"

namespace kalah::job {

class WorkerPool {
 public:
  virtual ~WorkerPool() = default;
  virtual int size() const = 0;  // workers: the front end keeps at most this many units out
  // Hands a unit to an idle worker: unit.prefer_slot when that one is idle. Raising `stop` (given at construction)
  // makes the units under way stop soon and report what they proved.
  virtual void submit(const Unit& unit) = 0;
  // The next finished unit, or none when `seconds` pass first.
  virtual std::optional<UnitOutcome> wait_for(double seconds) = 0;
  virtual int threads_per_worker() const = 0;
};

// `workers` threads in this process, each with its own Worker (session and table).
class LocalPool : public WorkerPool {
 public:
  LocalPool(std::vector<std::unique_ptr<Worker>> workers, const std::atomic<bool>* stop, int threads_per_worker);
  ~LocalPool() override;
  int size() const override { return static_cast<int>(workers_.size()); }
  void submit(const Unit& unit) override;
  std::optional<UnitOutcome> wait_for(double seconds) override;
  int threads_per_worker() const override { return threads_; }

 private:
  void loop(int slot);
  std::vector<std::unique_ptr<Worker>> workers_;
  const std::atomic<bool>* stop_;
  int threads_;
  std::mutex mutex_;
  std::condition_variable work_ready_, result_ready_;
  std::deque<Unit> queue_;
  std::vector<char> busy_;  // [slot], under mutex_
  std::deque<UnitOutcome> results_;
  bool closing_ = false;
  std::vector<std::thread> threads_list_;
};

}  // namespace kalah::job

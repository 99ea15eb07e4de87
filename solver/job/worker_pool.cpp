#include "solver/job/worker_pool.hpp"

#include <chrono>

namespace kalah::job {

LocalPool::LocalPool(std::vector<std::unique_ptr<Worker>> workers, const std::atomic<bool>* stop,
                     int threads_per_worker)
    : workers_(std::move(workers)), stop_(stop), threads_(threads_per_worker) {
  for (auto& w : workers_) threads_list_.emplace_back([this, &w] { loop(*w); });
}

LocalPool::~LocalPool() {
  {
    std::lock_guard lock(mutex_);
    closing_ = true;
  }
  work_ready_.notify_all();
  for (auto& t : threads_list_) t.join();
}

void LocalPool::loop(Worker& w) {
  for (;;) {
    Unit u;
    {
      std::unique_lock lock(mutex_);
      work_ready_.wait(lock, [&] { return closing_ || !queue_.empty(); });
      if (queue_.empty()) return;  // closing
      u = queue_.front();
      queue_.pop_front();
    }
    UnitOutcome out;
    try {
      out = w.run(u, stop_);
    } catch (const std::exception& e) {
      // A unit the worker cannot answer is a bug or a board beyond the session: the front end
      // reports it; nothing is stored for it.
      out.id = u.id;
      out.worker = w.name();
      out.error = e.what();
    }
    {
      std::lock_guard lock(mutex_);
      results_.push_back(std::move(out));
    }
    result_ready_.notify_one();
  }
}

void LocalPool::submit(const Unit& unit) {
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(unit);
  }
  work_ready_.notify_one();
}

std::optional<UnitOutcome> LocalPool::wait_for(double seconds) {
  std::unique_lock lock(mutex_);
  if (!result_ready_.wait_for(lock, std::chrono::duration<double>(seconds), [&] { return !results_.empty(); }))
    return std::nullopt;
  UnitOutcome out = std::move(results_.front());
  results_.pop_front();
  return out;
}

}  // namespace kalah::job

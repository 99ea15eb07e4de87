#include "solver/job/worker_pool.hpp"

#include <chrono>

namespace kalah::job {

LocalPool::LocalPool(std::vector<std::unique_ptr<Worker>> workers, const std::atomic<bool>* stop,
                     int threads_per_worker)
    : workers_(std::move(workers)), stop_(stop), threads_(threads_per_worker), busy_(workers_.size(), 0) {
  for (std::size_t i = 0; i < workers_.size(); ++i)
    threads_list_.emplace_back([this, i] { loop(static_cast<int>(i)); });
}

LocalPool::~LocalPool() {
  {
    std::lock_guard lock(mutex_);
    closing_ = true;
  }
  work_ready_.notify_all();
  for (auto& t : threads_list_) t.join();
}

void LocalPool::loop(int slot) {
  Worker& w = *workers_[static_cast<std::size_t>(slot)];
  // The unit this worker takes: the first one that prefers it, else the first one whose
  // preferred worker is busy or none (a unit that prefers an idle worker is left to that one).
  auto pick = [&]() -> std::optional<std::size_t> {
    std::optional<std::size_t> any;
    for (std::size_t i = 0; i < queue_.size(); ++i) {
      const int p = queue_[i].prefer_slot;
      if (p == slot) return i;
      const bool free_for_all = p < 0 || p >= static_cast<int>(busy_.size()) || busy_[static_cast<std::size_t>(p)];
      if (free_for_all && !any) any = i;
    }
    return any;
  };
  for (;;) {
    Unit u;
    {
      std::unique_lock lock(mutex_);
      std::optional<std::size_t> i;
      work_ready_.wait(lock, [&] { return closing_ || (i = pick()).has_value(); });
      if (!i) return;  // closing
      u = queue_[*i];
      queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(*i));
      busy_[static_cast<std::size_t>(slot)] = 1;
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
    out.slot = slot;
    {
      std::lock_guard lock(mutex_);
      busy_[static_cast<std::size_t>(slot)] = 0;
      results_.push_back(std::move(out));
    }
    result_ready_.notify_one();
    work_ready_.notify_all();  // a unit that preferred this worker may now go to another
  }
}

void LocalPool::submit(const Unit& unit) {
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(unit);
  }
  work_ready_.notify_all();  // the preferred worker must see it
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

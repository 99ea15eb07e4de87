#include "solver/serve/connection_pool.hpp"

#include <cassert>

namespace kalah::serve {

ConnectionPool::ConnectionPool(int threads, int capacity) : capacity_(static_cast<std::size_t>(capacity)) {
  assert(threads >= 1 && capacity >= 1);
  threads_.reserve(static_cast<std::size_t>(threads));
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { work(); });
}

ConnectionPool::~ConnectionPool() { shutdown(); }

void ConnectionPool::enqueue(std::function<void()> task) {
  {
    std::unique_lock lock(mutex_);
    assert(!shutting_down_);
    if (tasks_.size() >= capacity_ && !stop_waiting_) {
      ++blocked_enqueues_;
      place_freed_.wait(lock, [&] { return tasks_.size() < capacity_ || stop_waiting_; });
    }
    tasks_.push_back(std::move(task));
  }
  task_listed_.notify_one();
}

void ConnectionPool::stop_waiting() {
  {
    std::lock_guard lock(mutex_);
    stop_waiting_ = true;
  }
  place_freed_.notify_all();
}

void ConnectionPool::shutdown() {
  {
    std::lock_guard lock(mutex_);
    if (shutting_down_ && threads_.empty()) return;
    shutting_down_ = true;
    stop_waiting_ = true;
  }
  task_listed_.notify_all();
  place_freed_.notify_all();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

std::size_t ConnectionPool::waiting() const {
  std::lock_guard lock(mutex_);
  return tasks_.size();
}

long long ConnectionPool::blocked_enqueues() const {
  std::lock_guard lock(mutex_);
  return blocked_enqueues_;
}

void ConnectionPool::work() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock lock(mutex_);
      task_listed_.wait(lock, [&] { return !tasks_.empty() || shutting_down_; });
      if (tasks_.empty()) return;  // shutting down, nothing left
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    place_freed_.notify_one();
    task();
  }
}

}  // namespace kalah::serve

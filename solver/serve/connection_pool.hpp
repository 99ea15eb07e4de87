// solver/serve/connection_pool.hpp — the threads that serve the explorer's connections, with
// a bounded wait list.
//
// The HTTP server's listening thread accepts a connection and hands its handling (a task)
// here. `threads` tasks run at once; up to `capacity` more wait in a first-in first-out
// list. When the list is full, enqueue() blocks, so the listener stops accepting: further
// clients wait in the kernel's listen backlog and then have their connection attempts
// refused or retried by the kernel, instead of the server holding a socket and a task for
// every client that ever connects (httplib's own ThreadPool lists without limit).
//
// stop_waiting() (on stop) lets blocked and later enqueue() calls through over the
// capacity, so a listener asked to stop is not held until a connection frees a place;
// shutdown() runs what is listed and joins the threads (httplib closes a connection it is
// handed after the stop without reading it).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace kalah::serve {

class ConnectionPool {
 public:
  // threads >= 1 tasks at once; capacity >= 1 tasks waiting.
  ConnectionPool(int threads, int capacity);
  ~ConnectionPool();  // shutdown()
  ConnectionPool(const ConnectionPool&) = delete;
  ConnectionPool& operator=(const ConnectionPool&) = delete;

  // Lists `task`, first blocking while `capacity` tasks are waiting (unless stop_waiting()).
  void enqueue(std::function<void()> task);
  // From now on enqueue() never blocks; wakes those blocked.
  void stop_waiting();
  // Runs every task listed, then joins the threads. Idempotent; no enqueue() after it.
  void shutdown();

  // Tasks waiting now (not running); enqueue() calls that had to wait, since construction.
  std::size_t waiting() const;
  long long blocked_enqueues() const;

 private:
  void work();

  const std::size_t capacity_;
  mutable std::mutex mutex_;
  std::condition_variable task_listed_;  // a worker waits for a task or the shutdown
  std::condition_variable place_freed_;  // enqueue() waits for room or stop_waiting()
  std::deque<std::function<void()>> tasks_;
  bool stop_waiting_ = false;
  bool shutting_down_ = false;
  long long blocked_enqueues_ = 0;
  std::vector<std::thread> threads_;
};

}  // namespace kalah::serve

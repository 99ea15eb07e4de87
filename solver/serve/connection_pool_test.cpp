// The explorer's connection threads (connection_pool.hpp): every task runs, at most
// `threads` at once; an enqueue past the wait list's capacity blocks until a place frees or
// stop_waiting(); shutdown() runs what is listed first.
#include "testing/catch.hpp"

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include "solver/serve/connection_pool.hpp"

using kalah::serve::ConnectionPool;
using namespace std::chrono_literals;

namespace {

// A gate tasks wait at until it is opened.
class Gate {
 public:
  void wait() { opened_.wait(); }
  void open() { promise_.set_value(); }

 private:
  std::promise<void> promise_;
  std::shared_future<void> opened_ = promise_.get_future().share();
};

// Waits (at most 30 s) until `pool` has had `n` enqueue() calls block; true when it has.
bool blocked_soon(const ConnectionPool& pool, long long n) {
  for (int i = 0; i < 30000 && pool.blocked_enqueues() < n; ++i) std::this_thread::sleep_for(1ms);
  return pool.blocked_enqueues() == n;
}

// Hands `pool` a task that holds its thread until `gate` opens, counting itself in `done`
// then, and returns once the task has started.
void hold_thread(ConnectionPool& pool, Gate& gate, std::atomic<int>& done) {
  std::promise<void> started;
  pool.enqueue([&] {
    started.set_value();
    gate.wait();
    ++done;
  });
  started.get_future().wait();
}

}  // namespace

TEST_CASE("connection pool: every task runs, at most `threads` at once", "[serve]") {
  std::atomic<int> running{0}, most{0}, done{0};
  {
    ConnectionPool pool(3, 4);
    for (int i = 0; i < 200; ++i)
      pool.enqueue([&] {
        const int now = ++running;
        int seen = most.load();
        while (now > seen && !most.compare_exchange_weak(seen, now)) {
        }
        std::this_thread::sleep_for(100us);
        --running;
        ++done;
      });
  }  // the destructor runs what is listed, then joins
  CHECK(done == 200);
  CHECK(most <= 3);
  CHECK(most >= 1);
}

TEST_CASE("connection pool: a full wait list blocks the enqueue until a place frees", "[serve]") {
  ConnectionPool pool(1, 2);
  Gate gate;
  std::atomic<int> done{0};
  hold_thread(pool, gate, done);  // the one thread is held; the list is empty
  pool.enqueue([&] { ++done; });
  pool.enqueue([&] { ++done; });
  CHECK(pool.waiting() == 2);
  CHECK(pool.blocked_enqueues() == 0);
  auto third = std::async(std::launch::async, [&] { pool.enqueue([&] { ++done; }); });
  REQUIRE(blocked_soon(pool, 1));  // the list is full
  CHECK(third.wait_for(0s) == std::future_status::timeout);
  CHECK(pool.waiting() == 2);
  gate.open();
  CHECK(third.wait_for(30s) == std::future_status::ready);
  pool.shutdown();
  CHECK(done == 4);
  CHECK(pool.waiting() == 0);
}

TEST_CASE("connection pool: stop_waiting lets a blocked enqueue through", "[serve]") {
  ConnectionPool pool(1, 1);
  Gate gate;
  std::atomic<int> done{0};
  hold_thread(pool, gate, done);
  pool.enqueue([&] { ++done; });
  auto blocked = std::async(std::launch::async, [&] { pool.enqueue([&] { ++done; }); });
  REQUIRE(blocked_soon(pool, 1));
  CHECK(blocked.wait_for(0s) == std::future_status::timeout);
  pool.stop_waiting();
  CHECK(blocked.wait_for(30s) == std::future_status::ready);  // through while the thread is held
  pool.enqueue([&] { ++done; });                              // and later ones do not block
  CHECK(pool.waiting() == 3);
  CHECK(pool.blocked_enqueues() == 1);
  gate.open();
  pool.shutdown();
  pool.shutdown();  // idempotent
  CHECK(done == 4);
}

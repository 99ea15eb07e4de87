// The split points' lock (solver/search/spin_lock.hpp).
#include "testing/catch.hpp"

#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "solver/search/spin_lock.hpp"

using kalah::search::SpinLock;

TEST_CASE("spin lock: try_lock fails while the lock is held and succeeds after unlock", "[search]") {
  SpinLock lock;
  REQUIRE(lock.try_lock());
  CHECK_FALSE(lock.try_lock());
  lock.unlock();
  CHECK(lock.try_lock());
  lock.unlock();
  { const std::lock_guard guard(lock); }  // BasicLockable
  CHECK(lock.try_lock());
  lock.unlock();
}

TEST_CASE("spin lock: more threads than CPUs increment one counter without losing a step", "[search]") {
  // More threads than this machine's two CPUs: a waiter whose holder is not running must
  // yield for the holder to go on (else this test would take a time slice a step).
  SpinLock lock;
  long counter = 0;  // guarded by lock, not atomic: a lost update would show
  constexpr int kThreads = 6, kSteps = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < kSteps; ++i) {
        const std::lock_guard guard(lock);
        ++counter;
      }
    });
  for (auto& t : threads) t.join();
  CHECK(counter == long(kThreads) * kSteps);
}

TEST_CASE("spin lock: a waiter gets the lock once a holder that sleeps lets it go", "[search]") {
  SpinLock lock;
  lock.lock();
  bool got = false;
  std::thread waiter([&] {
    const std::lock_guard guard(lock);
    got = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the waiter spins, then yields
  const bool early = got;  // read under the lock, still held: the waiter cannot have it yet
  lock.unlock();
  waiter.join();
  CHECK_FALSE(early);
  CHECK(got);
}

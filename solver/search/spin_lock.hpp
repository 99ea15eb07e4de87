// solver/search/spin_lock.hpp — the lock of a split point and of the split pool: a flag the
// waiting thread spins on, never a sleep.
//
// Those locks are held for a few instructions (hand out the next child, fold a result in,
// open or withdraw a split point), so a thread that finds one taken has only to wait that
// long. A std::mutex puts it to sleep instead (a futex wait), and the holder then wakes it by
// a system call: on a virtual machine a sleeping virtual CPU is halted and woken by an
// interrupt, tens of microseconds each way, and two threads' full solves spent about 5% of
// their samples that way (docs/search.md, "The split points' locks spin"). Here the
// waiter spins on a read (test and test-and-set: the cache line stays shared until the holder
// writes it) with the processor's pause hint, and after many spins yields its CPU, in case
// the holder is not running (more threads than CPUs).
//
// Satisfies BasicLockable: std::lock_guard works with it.
#pragma once

#include <atomic>
#include <thread>

namespace kalah::search {

// A spinning thread's pause hint: the core runs the other hyperthread, saves power, and
// leaves the spin without a memory-order misprediction when the flag changes.
inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// One step of a spinning wait, the `spins`-th: the pause hint, and every `yield_every`-th
// step the CPU given away (for more threads than CPUs: what is waited for may not be running).
inline void spin_step(int& spins, int yield_every) noexcept {
  if (++spins % yield_every == 0)
    std::this_thread::yield();
  else
    cpu_relax();
}

class SpinLock {
 public:
  void lock() noexcept {
    for (int spins = 0; locked_.exchange(true, std::memory_order_acquire);)
      while (locked_.load(std::memory_order_relaxed)) spin_step(spins, kSpinsBeforeYield);
  }
  bool try_lock() noexcept {
    return !locked_.load(std::memory_order_relaxed) && !locked_.exchange(true, std::memory_order_acquire);
  }
  void unlock() noexcept { locked_.store(false, std::memory_order_release); }

 private:
  // A yield every this many steps: a few to some tens of microseconds (a pause hint is 10 to
  // 150 cycles by processor), far beyond any critical section here.
  static constexpr int kSpinsBeforeYield = 1 << 10;

  std::atomic<bool> locked_{false};
};

}  // namespace kalah::search

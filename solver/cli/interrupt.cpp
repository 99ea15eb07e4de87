#include "solver/cli/interrupt.hpp"

#include <csignal>
#include <ctime>

namespace kalah::cli {

namespace {

std::atomic<bool> g_interrupted{false};
std::atomic<int> g_signal{0};
std::atomic<long long> g_first_ns{0};  // CLOCK_MONOTONIC of the first signal
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free &&
                  std::atomic<long long>::is_always_lock_free,
              "signal handlers may only touch lock-free atomics");

// A second signal ends the process only this long after the first: one keystroke can
// arrive twice (to the process and to its group, as coreutils' timeout sends it).
constexpr long long kSecondSignalAfterNs = 500'000'000;

long long monotonic_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);  // async-signal-safe
  return static_cast<long long>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

extern "C" void on_signal(int signal) {
  const long long now = monotonic_ns();
  if (!g_interrupted.load()) {
    g_first_ns.store(now);
    g_signal.store(signal);
    g_interrupted.store(true);
    return;
  }
  if (now - g_first_ns.load() < kSecondSignalAfterNs) return;
  std::signal(signal, SIG_DFL);  // the default action: the process ends at once
  std::raise(signal);
}

}  // namespace

void catch_interrupts() {
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // system calls under way go on (file I/O, thread joins)
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

const std::atomic<bool>* interrupt_flag() { return &g_interrupted; }

int interrupt_exit_code() {
  const int s = g_signal.load();
  return s ? 128 + s : 0;
}

}  // namespace kalah::cli

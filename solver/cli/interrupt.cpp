#include "solver/cli/interrupt.hpp"

#include <csignal>

namespace kalah::cli {

namespace {

std::atomic<bool> g_interrupted{false};
std::atomic<int> g_signal{0};
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free,
              "signal handlers may only touch lock-free atomics");

extern "C" void on_signal(int signal) {
  g_signal.store(signal);
  g_interrupted.store(true);
}

}  // namespace

void catch_interrupts() {
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;  // a second signal takes the default action: the process ends
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

const std::atomic<bool>* interrupt_flag() { return &g_interrupted; }

int interrupt_exit_code() {
  const int s = g_signal.load();
  return s ? 128 + s : 0;
}

}  // namespace kalah::cli

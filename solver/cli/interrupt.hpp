// solver/cli/interrupt.hpp — Ctrl-C and SIGTERM. The first signal sets a flag that the
// library polls (SessionConfig::cancel, DbBuildOptions::cancel): the work under way stops,
// the command reports what it had proven or where it will resume, and exits with 128 + the
// signal number (130 for Ctrl-C). A second signal, half a second or more after the first, ends
// the process at once.
#pragma once

#include <atomic>

namespace kalah::cli {

// Install the handlers, from a command that polls interrupt_flag() from then on (solve and
// openings once the session is open, db build); other commands keep the default action:
// the process ends at once.
void catch_interrupts();
// The flag the handlers set.
const std::atomic<bool>* interrupt_flag();
// 128 + the signal that interrupted the process (130 for SIGINT); 0 when none did.
int interrupt_exit_code();

}  // namespace kalah::cli

// SIGINT / SIGTERM: finish cleanly between points, never lose what is done.
//
// The first signal sets a flag and prints (on rank 0) where the finished
// results are; commands check the flag between points or sizes with
// any_rank_interrupted() (a collective, so every rank stops at the same
// point), write their results one last time and return
// ExitCode::Interrupted. A second signal ends the process at once. Because
// result files are rewritten atomically after every point, whatever ends the
// process, the file on disk holds every finished point.
//
// A rank blocked inside a collective (e.g. waiting for a peer that died)
// does not reach the check; the launcher's own kill or the watchdog
// (util/watchdog.h) ends it.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <string>

namespace shardroof {

// Installs the handlers (main does this once, after MPI_Init).
void install_interrupt_handlers();

// True once this process received SIGINT or SIGTERM.
bool interrupt_requested();
// The signal received (0 if none), and its name ("SIGINT", "SIGTERM").
int interrupt_signal();
std::string interrupt_signal_name();

// Collective on `comm`: true on every rank if any rank was interrupted.
bool any_rank_interrupted(MPI_Comm comm);

// What the handler prints after "shardroof: interrupted by SIGxxx; ", e.g.
// "3 finished sizes are in results.json". Call it after each write on the
// rank that writes; an empty note prints nothing more.
void set_interrupt_note(const std::string& note);
// The note the handler would print now (cut to the handler's buffer).
std::string interrupt_note();

// For tests: sets the flag as if `signal` had arrived, or clears it (0).
void simulate_interrupt_for_testing(int signal);

// For the tests that signal or kill a running job (tests/reliability): when
// the environment variable SHARDROOF_TEST_HOLD_AFTER is `steps_done`, prints
// one line on stderr and waits until this process receives SIGINT or
// SIGTERM (at most kHoldForSignalSeconds), so the test's signal lands
// between step n and step n+1 however fast the machine is. Does nothing
// otherwise. Commands call it after a step's results are written, before
// any_rank_interrupted(). The watchdog sees the wait as progress.
inline constexpr int kHoldForSignalSeconds = 120;
void hold_for_signal_if_asked(std::size_t steps_done);

}  // namespace shardroof

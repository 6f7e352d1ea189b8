#include "util/interrupt.h"

#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <thread>

#include "collectives/mpi_transport.h"
#include "util/watchdog.h"

namespace shardroof {
namespace {

std::atomic<int> g_signal{0};

// The note lives in two fixed buffers: the writer fills the one not
// published and then publishes it, so the handler (which may run at any
// moment on the main thread) only ever reads a complete note.
constexpr std::size_t kNoteBytes = 1024;
char g_notes[2][kNoteBytes] = {{0}, {0}};
std::atomic<int> g_published{0};

void write_all(const char* text) {
  std::size_t left = std::strlen(text);
  while (left > 0) {
    const ssize_t n = ::write(STDERR_FILENO, text, left);
    if (n <= 0) return;
    text += n;
    left -= static_cast<std::size_t>(n);
  }
}

extern "C" void on_interrupt(int sig) {
  // Only async-signal-safe calls in here: write(2) and _exit(2).
  const int previous = g_signal.exchange(sig);
  const char* name = sig == SIGINT ? "SIGINT" : "SIGTERM";
  if (previous != 0) {
    write_all("shardroof: second signal; exiting now\n");
    ::_exit(130);
  }
  const char* note = g_notes[g_published.load()];
  if (note[0] != '\0') {
    write_all("shardroof: interrupted by ");
    write_all(name);
    write_all("; stopping after the current step; ");
    write_all(note);
    write_all("\n");
  }
}

}  // namespace

void install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

bool interrupt_requested() { return g_signal.load() != 0; }

int interrupt_signal() { return g_signal.load(); }

std::string interrupt_signal_name() {
  switch (g_signal.load()) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case 0: return "";
    default: return "signal " + std::to_string(g_signal.load());
  }
}

bool any_rank_interrupted(MPI_Comm comm) {
  int mine = interrupt_requested() ? 1 : 0;
  int any = 0;
  SHARDROOF_MPI_CHECK(MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, comm));
  return any != 0;
}

void set_interrupt_note(const std::string& note) {
  const int next = 1 - g_published.load();
  const std::size_t n = std::min(note.size(), kNoteBytes - 1);
  std::memcpy(g_notes[next], note.data(), n);
  g_notes[next][n] = '\0';
  g_published.store(next);
}

std::string interrupt_note() { return std::string(g_notes[g_published.load()]); }

void simulate_interrupt_for_testing(int signal) { g_signal.store(signal); }

void hold_for_signal_if_asked(std::size_t steps_done) {
  const char* text = std::getenv("SHARDROOF_TEST_HOLD_AFTER");
  if (!text || *text == '\0') return;
  char* end = nullptr;
  const unsigned long long hold_after = std::strtoull(text, &end, 10);
  if (*end != '\0' || hold_after != steps_done) return;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::cerr << fmt::format("shardroof: rank {} holds after step {} until a signal arrives (SHARDROOF_TEST_HOLD_AFTER)\n",
                           rank, steps_done)
            << std::flush;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(kHoldForSignalSeconds);
  while (!interrupt_requested()) {
    if (std::chrono::steady_clock::now() > until) {
      std::cerr << fmt::format("shardroof: rank {}: no signal within {} s; going on\n", rank, kHoldForSignalSeconds)
                << std::flush;
      return;
    }
    process_watchdog().progress();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace shardroof

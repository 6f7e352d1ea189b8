// The watchdog: bounds how long a rank may go without progress inside a
// communicating operation, so a rank that stops (killed, frozen, a peer that
// never answers) ends the job with a message instead of hanging it.
//
// Code marks what it is doing with nested RAII scopes:
//
//   WatchdogScope size_scope("all_reduce ring 32 MiB");
//   ...
//   WatchdogScope step("timed iteration 3 of 20");   // inside timing.cpp
//
// Entering or leaving a scope, or calling progress(), counts as progress.
// While at least one scope is open, a background thread checks that progress
// happened within the timeout; if not, it prints one line naming this rank
// and the open scopes (operation, size, step), waits a short grace period so
// the other ranks that are also waiting can report themselves, and ends the
// whole job (MPI_Abort with ExitCode::Timeout, or _exit where MPI cannot be
// called from a second thread).
//
// Which ranks are still waiting is known without communication: every
// rank's watchdog fires on its own, so each rank that is still waiting
// prints its own line. A rank that finished the operation, or that is
// frozen or dead, prints nothing.
//
// The thread calls no MPI function except MPI_Abort.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace shardroof {

class Watchdog {
 public:
  // Called on the watchdog thread with the full message when the timeout
  // passes. The default prints it and ends the job; tests record it.
  using TimeoutAction = std::function<void(const std::string& message)>;

  Watchdog();
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // seconds <= 0 disables the watchdog.
  void set_timeout(double seconds);
  double timeout() const;
  void set_rank(int rank);
  // Seconds the default action waits after printing, before ending the job.
  void set_grace(double seconds);
  // Replaces the default action (print, wait, abort the job).
  void set_action(TimeoutAction action);

  void push(std::string label);
  void pop();
  void progress();

  // The open scopes joined with " > ", outermost first (for messages).
  std::string current_operation() const;

 private:
  using Clock = std::chrono::steady_clock;
  void loop();
  void ensure_thread_locked();
  void default_action(const std::string& message) const;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<std::string> labels_;
  Clock::time_point last_progress_ = Clock::now();
  double timeout_s_ = 0;
  double grace_s_ = 2;
  int rank_ = 0;
  bool stop_ = false;
  bool fired_ = false;  // fired since the last progress (a test action returns)
  TimeoutAction action_;
  std::thread thread_;
};

// The process's watchdog, configured once in main from --timeout.
Watchdog& process_watchdog();

class WatchdogScope {
 public:
  WatchdogScope(Watchdog& watchdog, std::string label);
  explicit WatchdogScope(std::string label);
  ~WatchdogScope();
  WatchdogScope(const WatchdogScope&) = delete;
  WatchdogScope& operator=(const WatchdogScope&) = delete;

 private:
  Watchdog& watchdog_;
};

}  // namespace shardroof

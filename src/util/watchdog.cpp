#include "util/watchdog.h"

#include <fmt/format.h>
#include <mpi.h>
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>

#include "util/error.h"

namespace shardroof {
namespace {

std::string join_labels(const std::vector<std::string>& labels) {
  std::string out;
  for (const auto& l : labels) {
    if (!out.empty()) out += " > ";
    out += l;
  }
  return out;
}

}  // namespace

Watchdog::Watchdog() = default;

Watchdog::~Watchdog() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Watchdog::set_timeout(double seconds) {
  std::lock_guard lock(mutex_);
  timeout_s_ = seconds > 0 ? seconds : 0;
  last_progress_ = Clock::now();
  if (!labels_.empty()) ensure_thread_locked();
  wake_.notify_all();
}

double Watchdog::timeout() const {
  std::lock_guard lock(mutex_);
  return timeout_s_;
}

void Watchdog::set_rank(int rank) {
  std::lock_guard lock(mutex_);
  rank_ = rank;
}

void Watchdog::set_grace(double seconds) {
  std::lock_guard lock(mutex_);
  grace_s_ = seconds > 0 ? seconds : 0;
}

void Watchdog::set_action(TimeoutAction action) {
  std::lock_guard lock(mutex_);
  action_ = std::move(action);
}

void Watchdog::push(std::string label) {
  std::lock_guard lock(mutex_);
  labels_.push_back(std::move(label));
  last_progress_ = Clock::now();
  fired_ = false;
  if (timeout_s_ > 0) ensure_thread_locked();
  if (labels_.size() == 1) wake_.notify_all();  // the thread sleeps while nothing is open
}

void Watchdog::pop() {
  std::lock_guard lock(mutex_);
  if (!labels_.empty()) labels_.pop_back();
  last_progress_ = Clock::now();
  fired_ = false;
}

void Watchdog::progress() {
  std::lock_guard lock(mutex_);
  last_progress_ = Clock::now();
  fired_ = false;
}

std::string Watchdog::current_operation() const {
  std::lock_guard lock(mutex_);
  return join_labels(labels_);
}

void Watchdog::ensure_thread_locked() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] { loop(); });
}

void Watchdog::loop() {
  // Signals are for the main thread (see util/interrupt.h), never this one.
  sigset_t block;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &block, nullptr);

  // The thread wakes at least once a second. If it finds that it slept far
  // longer than that, the whole process was not running (SIGSTOP, a
  // suspended job, a starved machine): the missing progress is then not the
  // peers' fault, so the clock restarts instead of the job being ended.
  constexpr auto kTick = std::chrono::seconds(1);
  constexpr auto kFrozen = std::chrono::seconds(3);
  std::unique_lock lock(mutex_);
  auto last_wake = Clock::now();
  while (!stop_) {
    const auto now = Clock::now();
    if (now - last_wake > kFrozen) last_progress_ = now;
    last_wake = now;
    if (labels_.empty() || timeout_s_ <= 0 || fired_) {
      wake_.wait_for(lock, kTick);
      continue;
    }
    const auto timeout = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s_));
    const auto deadline = last_progress_ + timeout;
    if (now < deadline) {
      wake_.wait_until(lock, std::min(deadline, now + kTick));
      continue;  // progress may have moved the deadline; look again
    }
    const std::string operation = join_labels(labels_);
    const std::string message = fmt::format(
        "shardroof: error (rank {}): timeout: no progress for {:g} s in {}; rank {} is still waiting "
        "(every rank still waiting reports itself; a rank that finished, froze or died does not). "
        "Ending the job (--timeout {:g} bounds each operation).",
        rank_, timeout_s_, operation, rank_, timeout_s_);
    fired_ = true;
    auto action = action_;
    lock.unlock();
    if (action) {
      action(message);
    } else {
      default_action(message);
    }
    lock.lock();
  }
}

void Watchdog::default_action(const std::string& message) const {
  std::fprintf(stderr, "%s\n", message.c_str());
  std::fflush(stderr);
  double grace = 0;
  {
    std::lock_guard lock(mutex_);
    grace = grace_s_;
  }
  // Let the other waiting ranks, whose watchdogs fire at about the same
  // time, print their own line before the job is torn down.
  if (grace > 0) std::this_thread::sleep_for(std::chrono::duration<double>(grace));
  const int code = static_cast<int>(ExitCode::Timeout);
  int initialized = 0, finalized = 0, level = MPI_THREAD_SINGLE;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Query_thread(&level);
  if (initialized && !finalized && level == MPI_THREAD_MULTIPLE) MPI_Abort(MPI_COMM_WORLD, code);
  // Without MPI_THREAD_MULTIPLE only the main thread may call MPI; a process
  // that exits without MPI_Finalize makes the launcher end the job as well.
  ::_exit(code);
}

Watchdog& process_watchdog() {
  static Watchdog watchdog;
  return watchdog;
}

WatchdogScope::WatchdogScope(Watchdog& watchdog, std::string label) : watchdog_(watchdog) {
  watchdog_.push(std::move(label));
}

WatchdogScope::WatchdogScope(std::string label) : WatchdogScope(process_watchdog(), std::move(label)) {}

WatchdogScope::~WatchdogScope() { watchdog_.pop(); }

}  // namespace shardroof

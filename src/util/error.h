// The program's one error type. Everything that ends a run early throws an
// Error carrying the exit status the job should end with; main catches it,
// prints one message and ends the job (see README, "Exit status").
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <utility>

namespace shardroof {

enum class ExitCode : int {
  Ok = 0,
  Usage = 2,          // bad flags, config or input values
  Runtime = 3,        // a library call or the system failed
  WrongResults = 4,   // a correctness check failed
  Timeout = 5,        // the watchdog ended a stuck operation
  GateFailed = 6,     // a gate (--expect-busbw, --expect-W, --baseline) found a shortfall
  Interrupted = 130,  // SIGINT / SIGTERM
};

class Error : public std::runtime_error {
 public:
  Error(ExitCode code, std::string message) : std::runtime_error(std::move(message)), code_(code) {}
  ExitCode code() const { return code_; }
  // True when every rank raised this same error (see run_agreed): main then
  // prints it once, on rank 0, and ends normally instead of aborting.
  bool agreed() const { return agreed_; }
  void mark_agreed() { agreed_ = true; }

 private:
  ExitCode code_;
  bool agreed_ = false;
};

class UsageError : public Error {
 public:
  explicit UsageError(std::string message) : Error(ExitCode::Usage, std::move(message)) {}
};

class RuntimeError : public Error {
 public:
  explicit RuntimeError(std::string message) : Error(ExitCode::Runtime, std::move(message)) {}
};

template <class... Args>
[[noreturn]] void throw_usage(fmt::format_string<Args...> f, Args&&... args) {
  throw UsageError(fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace shardroof

// Tracing hook of the collectives: spans (a name, a begin and an end time,
// a few integer arguments) handed to a Tracer that the caller owns and
// passes in explicitly (CollectiveOptions::tracer). The library records where its
// time goes (ring steps, sends, receives, reductions, waits) and never
// decides what happens to the spans: storing, gathering and writing them is
// the caller's business.
//
// Cost: with no tracer (the default) a span is one pointer check. With a
// tracer that is not recording, one more relaxed atomic load; a caller arms
// recording only for the iterations it wants traced. A recording span reads
// the clock twice and makes one virtual call.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <new>
#include <type_traits>

#include "collectives/clock.h"

namespace shardroof::coll {

// One integer argument of a span; `key` is a string literal (it must outlive
// the program's use of the span, so it is never copied). Any integer
// (a size_t count of bytes, an int step) converts here, once, so callers
// pass their values as they are.
struct TraceArg {
  constexpr TraceArg() noexcept = default;
  template <class Int, std::enable_if_t<std::is_integral_v<Int>, int> = 0>
  constexpr TraceArg(const char* k, Int v) noexcept : key(k), value(static_cast<std::int64_t>(v)) {}
  const char* key = nullptr;
  std::int64_t value = 0;
};

inline constexpr std::size_t kMaxTraceArgs = 5;

// A finished span. `name` and `category` are string literals.
struct TraceEvent {
  const char* name = "";
  const char* category = "";
  double begin_s = 0;  // Tracer::now() at the start
  double end_s = 0;    // and at the end
  std::array<TraceArg, kMaxTraceArgs> args{};
};

class Tracer {
 public:
  virtual ~Tracer() = default;
  // Whether spans are recorded now. Read by every span, possibly on another
  // thread than the one that arms the tracer.
  bool recording() const noexcept { return recording_.load(std::memory_order_relaxed); }
  // Called on the thread that ran the span; must not throw or block for long
  // (it runs inside timed regions).
  virtual void record(const TraceEvent& event) noexcept = 0;
  // The clock of every span: the monotonic clock the timing module uses, in
  // seconds (collectives/clock.h). Its origin is per machine, not global;
  // callers that merge spans of several hosts estimate the offsets
  // themselves.
  static double now() noexcept { return monotonic_seconds(); }

 protected:
  void set_recording(bool on) noexcept { recording_.store(on, std::memory_order_relaxed); }

 private:
  std::atomic<bool> recording_{false};
};

// Records the span from its construction to its destruction, if `tracer`
// is set and recording at construction.
class TraceSpan {
 public:
  TraceSpan(Tracer* tracer, const char* name, const char* category,
            std::initializer_list<TraceArg> args = {}) noexcept {
    if (tracer == nullptr || !tracer->recording()) return;
    tracer_ = tracer;
    TraceEvent* e = new (&storage_.event) TraceEvent;
    e->name = name;
    e->category = category;
    std::size_t i = 0;
    for (const TraceArg& a : args) {
      if (i == kMaxTraceArgs) break;
      e->args[i++] = a;
    }
    e->begin_s = Tracer::now();
  }
  ~TraceSpan() {
    if (tracer_ == nullptr) return;
    storage_.event.end_s = Tracer::now();
    tracer_->record(storage_.event);
  }
  TraceSpan(const TraceSpan&) = delete;
  TraceSpan& operator=(const TraceSpan&) = delete;

 private:
  // The event is built only when recording, so a span without a tracer
  // costs the pointer check and nothing else.
  union Storage {
    Storage() noexcept {}
    TraceEvent event;
  };
  static_assert(std::is_trivially_destructible_v<TraceEvent>);
  Tracer* tracer_ = nullptr;
  Storage storage_;
};

}  // namespace shardroof::coll

// `--trace`: what each rank records while it measures. A Recorder holds one
// span buffer per thread track (main: the GEMM and, without overlap, the
// collective; comm: a communication thread), each reserved up front and
// bounded, so recording never allocates inside a timed region and a long
// run cannot grow without limit. Spans are recorded only while the recorder
// is armed: the commands arm it for the last timed iteration of each
// measurement (never for warm-up) and say so in the trace.
//
// Each span belongs to a region: one traced measurement (a collective at one
// size, T_math/T_comm/T_step at one D), described as data here and named by
// the reporter.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "collectives/trace.h"
#include "timing/timing.h"
#include "trace/records.h"

namespace shardroof::trace {

class Recorder {
 public:
  // Reserves room for `max_spans_per_track` spans on every track.
  explicit Recorder(std::size_t max_spans_per_track = kDefaultMaxSpans);
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  // The tracer of a track, for CollectiveOptions::tracer or a TraceSpan.
  coll::Tracer& tracer(Track track) { return sinks_[static_cast<int>(track)]; }

  // Starts a region: spans recorded from now on belong to it. Outside timed
  // regions; returns its index.
  int begin_region(Region region);
  // The last region, e.g. to record the algorithm `auto` chose after it ran.
  Region& current_region() { return regions_.back(); }
  // The region begin_region numbered `index`.
  Region& region(int index) { return regions_.at(static_cast<std::size_t>(index)); }

  // Arms or disarms every track.
  void set_recording(bool on);

  // The buffers as data; after the measurements.
  RankTrace collect(int rank) const;

  static constexpr std::size_t kDefaultMaxSpans = std::size_t{1} << 16;

 private:
  struct Recorded {
    coll::TraceEvent event;
    int region;
  };
  class Sink final : public coll::Tracer {
   public:
    void init(Recorder* owner, std::size_t capacity);
    void record(const coll::TraceEvent& event) noexcept override;
    void arm(bool on) noexcept { set_recording(on); }
    std::vector<Recorded> events;
    std::uint64_t dropped = 0;

   private:
    Recorder* owner_ = nullptr;
    std::size_t capacity_ = 0;
  };

  std::size_t capacity_;
  Sink sinks_[kTracks];
  std::vector<Region> regions_;
  // Read by every track's thread while it records; written between regions.
  std::atomic<int> region_{-1};
};

// The tracer of `track`, or null without a recorder.
inline coll::Tracer* tracer_of(Recorder* recorder, Track track = Track::Main) {
  return recorder ? &recorder->tracer(track) : nullptr;
}

// A prepare hook for time_iterations (timing/timing.h) that arms `recorder`
// for the last timed iteration only, after running `inner` (if any). Call
// recorder->set_recording(false) once the measurement returns.
IterationFn record_last_iteration(Recorder* recorder, const TimingPlan& plan, IterationFn inner = {});

}  // namespace shardroof::trace

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

namespace shardroof::trace {

enum class Track : int { Main = 0, Comm = 1 };
inline constexpr int kTracks = 2;

// What one traced iteration measured.
struct Region {
  std::string measurement;  // "coll", "T_math", "T_comm", "T_step", "T_overlap"
  std::string collective;   // "all_reduce", "reduce_scatter", "all_gather"
  std::string algorithm;    // what ran, e.g. "ring/mpi", "auto:pairwise/mpi", "mpi"
  std::uint64_t bytes = 0;  // S, the collective's whole array
  std::uint64_t D = 0;      // sweep: the contracting dimension; 0 in coll
  std::uint64_t shard = 0;  // sweep: this rank's columns of D
  int in_place = -1;        // coll: 0 out of place, 1 in place; -1: not applicable
  int iteration = 0;        // the traced timed iteration, 0-based
  int iterations = 0;       // timed iterations of the measurement
  int chunks = 0;           // sweep --overlap: chunks of the overlapped step; 0 otherwise
};

// A recorded span as data (names copied out of the literals), ready to be
// serialized and sent to rank 0.
struct Span {
  std::string name;
  std::string category;
  int track = 0;
  int region = -1;
  double begin_s = 0;  // this rank's clock (coll::Tracer::now)
  double end_s = 0;
  std::vector<std::pair<std::string, std::int64_t>> args;
};

// The estimate of this rank's clock against rank 0's: rank 0's time is this
// rank's time + offset_s. Taken from the ping-pong with the smallest round
// trip, whose true offset lies within ± round_trip_s / 2 of the estimate.
struct ClockOffset {
  double offset_s = 0;
  double round_trip_s = 0;
  double local_time_s = 0;  // when (this rank's clock) it was taken
  int rounds = 0;
};

// Everything one rank contributes to the trace file.
struct RankTrace {
  int rank = 0;
  std::string host;
  ClockOffset clock_start;  // estimated before the measurements
  ClockOffset clock_end;    // and after them
  std::vector<Region> regions;
  std::vector<Span> spans;
  std::uint64_t dropped = 0;  // spans lost to a full buffer
  std::uint64_t capacity = 0;  // spans each track holds
};

class Recorder {
 public:
  // Reserves room for `max_spans_per_track` spans on every track.
  explicit Recorder(std::size_t max_spans_per_track = kDefaultMaxSpans);
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  // The tracer of a track, for RingOptions::tracer or a TraceSpan.
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

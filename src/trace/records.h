// The plain records of `--trace`: the regions and spans one rank recorded,
// its clock offsets, everything it contributes to the trace file. No MPI:
// trace/recorder.h records them, report/trace_report.h writes them out.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

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

}  // namespace shardroof::trace

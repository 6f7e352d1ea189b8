// The plain records of `shardroof coll`: the plan, one measured row, and a
// size's ranking of the implementations. No MPI: measure/coll_runner.h and
// tuning/tuner.h produce them; report/coll_report.h formats them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "collectives/collective.h"
#include "collectives/collective_options.h"
#include "collectives/types.h"
#include "collectives/traits.h"
#include "util/comm_kinds.h"
#include "timing/stats.h"
#include "timing/stragglers.h"

namespace shardroof {

struct CollPlan {
  coll::CollectiveKind kind = coll::CollectiveKind::AllReduce;
  coll::DataType type = coll::DataType::Float;
  coll::ReduceOp op = coll::ReduceOp::Sum;
  std::vector<coll::Algorithm> impls{coll::Algorithm::Ring};
  std::vector<std::uint64_t> sizes;  // bytes S of the whole array, multiples of the element size
  TimingPlan timing;
  bool check = true;
  coll::CollectiveOptions ring;
};

// One measured row: an implementation at one size, in place or not.
struct CollRecord {
  coll::CollectiveKind kind;
  std::string impl;       // "ring" / "native"
  std::string algorithm;  // what ran, e.g. "ring/mpi" or "mpi"
  coll::DataType type;
  coll::ReduceOp op;
  bool in_place = false;
  std::uint64_t bytes = 0;  // S as nccl-tests counts it
  std::uint64_t count = 0;  // elements of the whole array
  TimeStats time;           // seconds
  double algbw_GBps = 0;
  double busbw_GBps = 0;
  long long wrong = -1;  // elements wrong over all ranks; -1 when not checked
  std::vector<RankSummary> ranks{};    // each rank's times, skews and finish times (timing/stragglers.h)
  std::optional<Straggler> straggler{};  // the rank named, if one stands out
};

// A size's time of each implementation: the sum of its out-of-place and
// in-place interquartile means (auto serves both placements; TimeStats::iqm
// says why not the median), fastest first; and the same sum over each pass
// (a run of consecutive timed iterations; see pass_bounds), which the
// noise is measured from.
struct SizeRanking {
  coll::CollectiveKind kind = coll::CollectiveKind::AllReduce;
  std::uint64_t bytes = 0;
  std::vector<std::pair<std::string, double>> times;  // impl, seconds; fastest first
  std::map<std::string, std::vector<double>> passes;  // impl -> seconds of each pass; empty: not known
};

}  // namespace shardroof

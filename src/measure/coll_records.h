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
#include "model/collective_cost.h"
#include "model/native_cost.h"
#include "model/hardware.h"
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

// What a row's implementation should take by its own cost formula
// (model/collective_cost.h) on the link this run measured or was given
// (measure/coll_expectation.h).
struct CollExpected {
  double time_s = 0;
  double busbw_GBps = 0;
  double W_bytes_per_s = 0;  // the W the formula took (a probe's at the row's own message size)
  double alpha_s = 0;
  double g_s_per_byte = 0;
  std::string source;   // where W and alpha come from, e.g. "ring probe at 256 KiB"
  std::string formula;  // e.g. "2(N-1)a + 2(N-1)/N S/W + (N-1)/N S g"
  // native: the library's algorithm for this row (model/native_cost.h),
  // e.g. "rabenseifner"; "" when it cannot be known. bound_only: its cost
  // is not known (bound_reason says why), so time_s is the bound (our
  // bandwidth-optimal algorithm's cost) and the row is no test of a model.
  std::string native_algorithm;
  bool bound_only = false;
  std::string bound_reason;
  // A figure published for this collective on the preset's hardware
  // (model/hardware.h), busbw in GB/s, with its source; 0 when none.
  double published_busbw_GBps = 0;
  std::string published_source;
};

// What the model column is fed from (coll's --model, --link-from, --hw, --link).
struct CollModelChoice {
  enum class Source { Probe, LinkFile, Preset, Off };
  Source source = Source::Probe;
  std::string link_file;
  std::string hw;
  std::string link;
};

// The link and local rates a run's rows are modelled with: a plain record.
struct CollModelInputs {
  std::string source;  // "ring probe on these ranks", "--link-from FILE", "preset h200 nvlink", "none (...)"
  model::CollLink link;  // alpha and W (the probe's fit), g, c
  // The ring probe's message sizes (bytes per step), ascending, and its
  // median step time at each; empty for a file or a preset.
  std::vector<std::uint64_t> probe_bytes;
  std::vector<double> probe_step_s;
  // hier's two levels: inside a node (alpha, W) and across (inter_*).
  std::optional<model::CollLink> hier_link;
  int nranks = 1;
  int ranks_per_node = 0;
  std::uint64_t pinned_segment_bytes = 0;  // CollectiveOptions::segment_bytes
  std::size_t segment_cap_bytes = 0;       // the memory's cap for automatic segments
  model::NativeLibrary native;             // what --impl native runs (measure/native_library.h)
  std::string preset;                      // the preset's name, for published figures
  std::vector<model::PublishedCollective> published;
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
  std::optional<CollExpected> expected{};  // the model's time; none without a link or a formula
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

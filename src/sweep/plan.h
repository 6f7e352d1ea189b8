// What a sweep measures, validated: the shape, the D list, the datatype, the
// collective and where it runs. Built from flags by the sweep command; the
// runner and the reports read it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "collectives/collective.h"
#include "collectives/collective_options.h"
#include "collectives/traits.h"
#include "collectives/types.h"
#include "util/comm_kinds.h"
#include "model/roofline.h"
#include "timing/stats.h"

namespace shardroof::sweep {

// sweep --overlap K | K1,K2,... | auto.
struct OverlapPlan {
  std::vector<int> chunks;  // each K > 1 timed at every point, in order
  bool automatic = false;   // auto: the pipeline model picks K at each point (sweep/overlap_model.h)
  // --overlap-chunks graded (the default): each chunk T_comm/T_math times
  // the one before (plan_chunks' growth, from a first look at the point);
  // even: balanced chunks.
  bool graded = true;
  // --overlap-wait sleep (the default): the communication thread's waits
  // sleep between polls (coll::WaitPolicy::Sleep), leaving the core to the
  // GEMM; mpi: they wait as the rest of the run does (MPI's own wait).
  bool sleeping_waits = true;
  bool enabled() const { return automatic || !chunks.empty(); }
  // "4", "2,4,8", "auto" or "1" (none): what the output calls it.
  std::string text() const;
};

struct SweepPlan {
  std::size_t B = 1024;
  std::size_t F = 1024;
  std::vector<std::uint64_t> D;  // ascending; empty with `search`
  // sweep --D auto: no list; the crossover search (sweep/search.h) chooses
  // each D, up to D_max (what fits in memory), within budget_s seconds.
  bool search = false;
  std::uint64_t D_max = 0;
  double budget_s = 60;
  double min_span_s = 30;      // the rounds' measurements spread over at least this long
  std::size_t min_rounds = 5;  // rounds before the search may stop
  coll::DataType type = coll::DataType::Float;
  coll::CollectiveKind kind = coll::CollectiveKind::AllReduce;
  coll::Algorithm impl = coll::Algorithm::Ring;
  Backend backend = Backend::Cpu;
  TransportKind transport = TransportKind::Mpi;
  int threads = 1;
  TimingPlan timing;
  bool check = true;
  std::uint64_t seed = 20240601;
  // Each measurement's buffers at fresh addresses (a spacer of a drawn
  // number of pages allocated first and held through it), so that the
  // rounds of one launch also draw again what an allocation fixes: the
  // virtual and physical pages, their cache sets (--redraw-buffers).
  bool redraw_buffers = true;
  coll::CollectiveOptions ring;
  // sweep --overlap: also time the step in chunks, each chunk's collective
  // overlapping the next chunk's GEMM (sweep/overlap.h).
  OverlapPlan overlap;
};

// The contiguous slice [offset, offset + size) of D that a rank holds
// (balanced: the first D % N ranks hold one more; size 0 when D < N).
struct Shard {
  std::size_t offset = 0;
  std::size_t size = 0;
};
Shard shard_of(std::size_t D, int ranks, int rank);

// The model's view of a plan on `ranks` ranks.
model::Shape model_shape(const SweepPlan& plan, int ranks);
model::Collective model_collective(coll::CollectiveKind kind);

}  // namespace shardroof::sweep

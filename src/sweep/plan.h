// What a sweep measures, validated: the sharding, the shape, the swept
// values, the datatype, the collective and where it runs. Built from flags
// (sweep/flags.h); the runner and the reports read it.
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

// sweep --sharding fsdp --overlap prefetch: L layers in a row, each layer's
// weights gathered while the layer before computes (two weight buffers;
// model::prefetch_time).
struct PrefetchPlan {
  bool enabled = false;
  int layers = 4;
};

// The sweep varies one dimension and splits it over the ranks; the other
// two stay whole on every rank (model::Sharding):
//   contracting  sweeps D; B and F whole; the collective reduces the B x F
//                partial sums after the GEMM;
//   fsdp         sweeps the whole batch B (each rank holds B/N rows, so N
//                divides every B); D (`fsdp_D`) and F whole; the collective
//                gathers the D x F weight before the GEMM (AllGather).
// `D` lists the swept values and PointRecord::D holds one of them in
// either case: the generalised code reads them as "the swept value".
struct SweepPlan {
  model::Sharding sharding = model::Sharding::Contracting;
  std::size_t B = 1024;       // contracting: the batch
  std::size_t F = 1024;
  std::size_t fsdp_D = 1024;  // fsdp: the contracting dimension
  std::vector<std::uint64_t> D;  // the swept values, ascending; empty with `search`
  // sweep --D auto (--B auto with fsdp): no list; the crossover search
  // (sweep/search.h) chooses each value, up to D_max (what fits in memory),
  // within budget_s seconds.
  bool search = false;
  bool swept_auto = false;  // auto was asked for (on one rank it times a fixed grid instead of searching)
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
  // fsdp's overlap: the next layer's gather beside this layer's GEMM.
  PrefetchPlan prefetch;
  bool fsdp() const { return sharding == model::Sharding::Fsdp; }
};

// The swept dimension's name, "D" or "B".
std::string swept_name(const SweepPlan& plan);
// The whole dimension beside F, B (contracting) or D (fsdp): the collective
// moves whole_rows x F elements, and a rank's GEMM is whole_rows x shard x
// F in the contracting case and shard x whole_rows x F with fsdp.
std::size_t whole_rows(const SweepPlan& plan);
// Every swept value is a multiple of this: N with fsdp (the batch splits
// evenly over the ranks), else 1.
std::uint64_t swept_grain(const SweepPlan& plan, int ranks);

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

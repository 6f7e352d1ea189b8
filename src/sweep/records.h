// The plain records of a sweep: what the runner measures (each point, the
// ceilings of the run) and the analysis and reporters read. No MPI, no
// compute backend: sweep/runner.h and ceilings/ceilings.h produce them.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ceilings/records.h"
#include "collectives/types.h"
#include "link/link_summary.h"
#include "link/records.h"
#include "timing/stats.h"

namespace shardroof::sweep {

// One point of the sweep and the ceilings of its run (sweep/runner.h).
struct PointCheck {
  bool checked = false;
  std::string method;      // "full", "freivalds" (or "none" on a rank holding nothing)
  long long wrong = 0;     // over all ranks
  long long tested = 0;    // over all ranks
  double worst_ratio = 0;  // max over ranks of |error| / tolerance
  bool passed() const { return !checked || wrong == 0; }
};

// The CPU the chunks' collectives took while they ran alone (sweep
// --overlap on the CPU; timing/cpu_usage.h), over every timed iteration of
// their alone-run, as cores: CPU seconds over wall seconds. Each share is
// the largest over ranks; the node's is the node's busy time (its CPUs'
// time less idle, iowait and steal: every process and the kernel's
// softirq work) over the ranks on it.
struct TransportCpu {
  double wall_s = 0;     // the alone-runs' span, summed over the timed iterations (the slowest rank)
  double thread = 0;     // the calling thread (getrusage RUSAGE_THREAD)
  double process = 0;    // its process (RUSAGE_SELF)
  double node = -1;      // the node's busy CPU per rank on it; < 0: unknown (or spans under kMinNodeSpanS)
  double softirq = -1;   // the node's softirq per rank, sampled at the tick; < 0: unknown
  int node_cpus = 0;     // the CPUs the node's ranks may run on, together
  int node_ranks = 0;    // the ranks on the node (the smallest node's CPUs per rank)
  int gemm_threads = 0;  // the GEMM's threads per rank
  // The cores the transport keeps busy per rank: the node's share where
  // known (it holds the kernel's work wherever it ran), else the process's.
  double cores() const { return node >= 0 ? std::max(node, process) : process; }
};

// One chunked step at one K (sweep --overlap): the step, its check, and
// what the pipeline model (model/pipeline.h) and the split of its gap need.
// Per-chunk times are the medians of the per-iteration maxima over ranks
// (each chunk timed alone, at its own shape: measured, not scaled), or,
// from the stamps of the overlapped step, each rank's median over the timed
// iterations, the largest over ranks.
struct OverlapRun {
  int chunks = 0;
  // Chunk k + 1 about `growth` times chunk k (--overlap-chunks graded: the
  // point's T_comm/T_math at a first look; 1: even).
  double growth = 1;
  TimeStats t_overlap;
  PointCheck check;
  std::vector<double> elements;        // each chunk's collective, in elements over all ranks
  std::vector<double> gemm_alone_s;    // each chunk's GEMM timed alone
  std::vector<double> comm_alone_s;    // each chunk's collective timed alone
  // On the CPU: each chunk's collective timed beside busy cores (the GEMM's
  // threads spinning on every rank, the collective on the communication
  // thread with the step's waits), one after the other.
  std::vector<double> comm_busy_s;
  std::vector<double> gemm_in_step_s;  // each chunk's GEMM inside the overlapped step
  std::vector<double> comm_in_step_s;  // each chunk's collective inside it (after its GEMM was ready)
  double stamped_step_s = 0;           // first GEMM's start to last collective's end
  std::optional<TransportCpu> transport_cpu;  // on the CPU: what the collectives alone took of it
};

// The unchunked step's GEMM and collective started together (the collective
// on a second buffer, on the communication thread), for the interference
// the pipeline model applies (model::interference_from): each one's
// duration, the median over iterations of the largest over ranks.
struct ConcurrentStep {
  double gemm_s = 0;
  double comm_s = 0;
};

// sweep --overlap auto: the model's T_overlap for each K it weighed (the
// largest chunk's GEMM timed alone at that K, the chunks' collectives from
// the link model) and the K it chose.
struct ChunkCandidateRecord {
  int chunks = 1;
  double gemm_s = 0;       // one chunk's GEMM alone (K = 1: T_math)
  double t_predicted = 0;  // the pipeline's T_overlap (K = 1: T_math + T_comm)
};
struct OverlapChoiceRecord {
  std::vector<ChunkCandidateRecord> candidates;
  int chosen = 1;
};

// sweep --sharding fsdp --overlap prefetch at one point: `layers` layers in a
// row, each with its own weights, timed twice on the same buffers: each
// layer's gather then its GEMM (serial), and each layer's gather during the
// GEMM before (prefetch, two weight buffers); what the model needs (each
// layer's gather and GEMM timed alone); the check of every layer's Z
// after the prefetched step.
struct PrefetchRun {
  int layers = 0;
  TimeStats t_serial;
  TimeStats t_prefetch;
  std::vector<double> gather_alone_s;
  std::vector<double> gemm_alone_s;
  PointCheck check;
};

// One point of the sweep: D is the swept value (the contracting dimension,
// or with --sharding fsdp the whole batch B; sweep/plan.h).
struct PointRecord {
  std::uint64_t D = 0;
  std::size_t shard_max = 0;  // ceil(D/N): the slowest rank's share
  TimeStats t_math, t_comm, t_step;
  double flops_per_s = 0;     // per rank: 2*B*ceil(D/N)*F / median T_math
  PointCheck check;           // the Z of the (unchunked) step
  int iterations = 0;         // timed iterations behind each statistic (merged ones add up)
  std::vector<int> windows;   // the iterations of each measurement merged into it, in order
  // Only with --overlap K > 1: the overlapped step and the check of its Z.
  // (the first of overlap_runs: the one K, the first of a list, auto's choice)
  std::optional<TimeStats> t_overlap;
  PointCheck overlap_check;
  // Every chunked step at this point, in the order timed.
  std::vector<OverlapRun> overlap_runs;
  std::optional<ConcurrentStep> concurrent;           // with --overlap
  std::optional<OverlapChoiceRecord> overlap_choice;  // with --overlap auto
  std::optional<PrefetchRun> prefetch;                // with --sharding fsdp --overlap prefetch
};

// The link of the book's model, measured apart from the collective under
// test: the ring probe on these ranks (link/ring_probe.h), or a
// `shardroof link` record (`sweep --link-from`).
struct BookLink {
  double W_bytes_per_s = 0;
  double alpha_s = 0;
  std::string source;                          // what W and alpha come from, for the output
  // The link pattern W was measured in (link/patterns.h): "ring" for the
  // probe, a link file's own pattern for --link-from.
  std::string pattern;
  std::optional<link::RingProbeResult> probe;  // when the probe ran
};

struct RunCeilings {
  GemmRate peak_gemm;          // C_peak, and the reference GEMM re-measured in every round
  ReduceRate reduce;           // g
  MemoryBandwidth memory;      // M (triad)
  CollectiveTime collective;   // the collective's own T_comm at S = B*F*s
  BookLink link;               // W, alpha
  // The GEMM's floor at this B and F: B x F x 1, a shard of one column
  // (what T_math cannot go below at any D), and the smallest call the
  // backend makes, 1 x 1 x 1 timed on the host clock with the device
  // synchronised (a library call; on a GPU a launch and a synchronisation).
  GemmRate floor_gemm;
  GemmRate call_gemm;
  // The hardware's own limits beside these ceilings (measured once, before
  // the ceilings: the core's peak and BLAS kernel, or the GPU), and the
  // line rate of the ring probe's links.
  std::optional<HardwareLimits> hardware;
  hw::RingLineRate line_rate;
  // Rounds merged into these ceilings (merge_ceilings), and when each began
  // (rank 0's monotonic clock, seconds).
  int rounds = 1;
  std::vector<double> round_starts;
  // The run's time origin on the same clock: stamps are reported as
  // seconds since it.
  double origin_s = 0;
};

// A point measured again: its samples joined to the earlier ones (medians
// and spreads over all of them), its checks combined.
void merge_point(PointRecord& into, const PointRecord& more);

// A round of ceilings measured again (`sweep --D auto` re-measures them
// beside the points around the crossing): every time statistic joined to
// the earlier rounds' and the rates recomputed from the joined medians; the
// ring probe's fit made again from its joined step times; wrong bytes
// added up. Parts `round` did not measure (a zero-sized statistic) are kept.
void merge_ceilings(RunCeilings& into, const RunCeilings& round);

// The rates behind the statistics (GEMM FLOP/s, bytes/s, s per element).
double rate_of(const GemmRate& g);

// The book's link from a `link --json` record (`path`, --link-from) instead
// of the ring probe: its W is the link in its pattern (ping-pong: the pure
// link; shift, ring: under load); the local reduction g stays a separate
// term of the model.
void use_link_from(RunCeilings& ceilings, const link::ModelLink& link, const std::string& path);

}  // namespace shardroof::sweep

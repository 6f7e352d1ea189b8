// The pipeline model of the chunked step (sweep --overlap K, predict
// --overlap K): the step cut into K chunks of rows of Z, chunk k's
// collective running while chunk k + 1's GEMM computes.
//
// With each chunk's GEMM time g_k (at its own shape: B/K rows are a thinner
// GEMM than B/K of the whole) and each chunk's collective time c_k (from the
// link model: every chunk pays the collective's latency again), the step
// ends when the last collective ends:
//   gemm_end(k) = gemm_end(k-1) + g_k
//   comm_end(k) = max(gemm_end(k), comm_end(k-1)) + c_k
//   T_overlap   = comm_end(K)
// For equal chunks this is the book's pipeline,
//   T_overlap = g + (K-1) * max(g, c) + c,
// the first GEMM and the last collective exposed, the middle hidden behind
// whichever is longer.
//
// The pipeline's own ideal splits the unchunked step evenly (g = T_math/K,
// c = T_comm/K, nothing paid again): max(T_math, T_comm) + min(T_math,
// T_comm)/K. No K-chunk pipeline beats it, so it, not max(T_math, T_comm),
// is what the step's overlap is measured against. The gap from that ideal
// to the measured step is split into named parts (GapParts) that add up to
// it exactly: each part is the change of the pipeline's time when one more
// effect is put in, in a fixed order.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/roofline.h"

namespace shardroof::model {

// The pipeline's end time for per-chunk GEMM and collective times (same
// length, in chunk order); 0 for no chunks.
double pipeline_time(const std::vector<double>& gemm, const std::vector<double>& comm);

// The latency term of one collective: 2(N-1)*a for AllReduce, (N-1)*a for
// ReduceScatter (every chunk pays it whole).
double collective_latency(const Shape& shape, const Ceilings& c);

// One chunk's collective from the link model: the ring formula for a
// collective of `elements` elements of the partial sum (over all ranks),
// latency included.
double chunk_comm_time(const Shape& shape, const Ceilings& c, double elements);

// How much slower a GEMM runs while a collective runs beside it, and a
// collective while a GEMM runs (1: not at all). Measured once per point on
// the unchunked step (its GEMM and its collective started together, on a
// second buffer), so it does not depend on K; on a CPU the collective's
// progress, the network stack and the GEMM share the cores.
struct Interference {
  double gemm = 1;
  double comm = 1;
};

// From the two run together: the shorter one overlapped the other
// throughout, so its slowdown is its time over its time alone; the longer
// one was overlapped only for the shorter one's time, so its extra time is
// spread over that: 1 + (time - alone) / shorter's time, at most 2 (it
// lost the whole window). Never below 1.
Interference interference_from(double t_math, double t_comm, double gemm_beside, double comm_beside);

// What a rank's GEMM loses to the collective's CPU, from what the
// collective takes while it runs alone (sweep/records.h, TransportCpu):
// the cores the node gives each rank (its CPUs over its ranks), the GEMM's
// threads on them, and the cores the transport keeps busy per rank (its
// CPU time over its wall time: its own thread, the library's, the
// kernel's network work).
struct CpuShare {
  double cores_per_rank = 1;
  double gemm_threads = 1;
  double transport_cores = 0;
};

// The slowdown of the GEMM and the collective while they run side by side,
// from the CPU alone: the transport first takes the cores the GEMM leaves
// idle (cores_per_rank - gemm_threads), then the rest from the GEMM's own,
//   lost = clamp(transport - spare, 0, used / 2),  used = min(threads, cores)
//   slowdown = used / (used - lost)
// (at most 2: with one thread of each on a core, a fair scheduler gives
// each half). The GEMM keeps used - lost of its cores; the collective,
// whose progress waits on the CPU work it shares them for (its copies, the
// kernel's network stack), stretches by the same factor. Over emulated
// links on a 2-core VM this put 22 of 24 chunked steps within 10% where
// the GEMM alone slowed put 15 (docs/overlap.md); the interference measured
// on the unchunked step run together is the check beside it, not an input.
Interference cpu_interference(const CpuShare& cpu);

// The same beside a collective that took `busy` beside busy cores where it
// takes `alone` alone: its CPU work stays what it was alone, spread over
// the longer time, so it holds transport_cores * alone / busy of the
// cores, and the GEMM loses only that (busy below alone counts as alone).
// Over emulated links on a 2-vCPU VM, 4 ranks' chunk collectives took
// 1.8-5x as long beside busy cores, and their GEMMs in the step slowed
// 1.0-1.3x where transport_cores alone gives 1.6-2.0x (docs/overlap.md).
Interference cpu_interference_beside(CpuShare cpu, double alone, double busy);

// The pipeline with each GEMM slowed for the part of it that runs beside
// the previous chunk's collective, and each collective for the part beside
// the next chunk's GEMM.
double pipeline_time(const std::vector<double>& gemm, const std::vector<double>& comm, const Interference& s);

// The pipeline with each GEMM slowed for the part of it beside the previous
// chunk's collective (as above), and each collective timed twice: beside busy cores (`comm_busy`: the GEMMs' threads holding
// them) for the part of it that runs while GEMMs still run, alone after
// the last GEMM ends; `gemm_slowdown[j]` is the GEMM's beside collective j
// (chunk j + 1's GEMM slowed for the part of it beside collective j's time
// beside busy cores). Collective k starts at s_k = max(gemm_end(k),
// comm_end(k-1)); with the window w = max(0, gemm_end(K) - s_k), b its
// time beside busy cores and a alone,
//   c_k = b                      if b <= w
//       = w + (1 - w/b) * a      otherwise (the share left, at a's pace).
// A collective is never faster beside busy cores than alone: b below a
// (noise) counts as a. With b = a and every gemm_slowdown[j] = gs it is
// pipeline_time(gemm, comm, {gs, 1}).
double pipeline_time_beside(const std::vector<double>& gemm, const std::vector<double>& comm_alone,
                            const std::vector<double>& comm_busy, const std::vector<double>& gemm_slowdown);

// The collectives' slowdown beside busy cores over all chunks (1: none):
// sum of max(b, a) over sum of a.
double busy_slowdown(const std::vector<double>& comm_alone, const std::vector<double>& comm_busy);

// What the model needs of one chunked step. Times in seconds.
struct PipelineInputs {
  double t_math = 0;                // the unchunked GEMM
  double t_comm = 0;                // the unchunked collective
  std::vector<double> gemm;         // each chunk's GEMM at its own shape
  std::vector<double> comm;         // each chunk's collective from the link model
  // Each chunk's collective timed alone, at its own size (empty: its share
  // of the measured T_comm with the latency paid again stands in).
  std::vector<double> comm_alone;
  // Each chunk's collective timed beside busy cores (empty: the
  // interference's collective slowdown stands in). Used with comm_alone.
  std::vector<double> comm_busy;
  // With comm_busy: the GEMM's slowdown beside each chunk's collective
  // (cpu_interference_beside; empty: interference.gemm beside each).
  std::vector<double> gemm_beside;
  std::vector<double> elements;     // each chunk's collective, in elements (their sum: B*F)
  double latency_s = 0;             // collective_latency of the link model
  Interference interference;        // measured on the unchunked step (1, 1: none known)
};

// The model's answer for one K, and the parts of (model - ideal).
struct PipelinePrediction {
  int chunks = 0;
  double t_no_overlap = 0;  // T_math + T_comm
  double t_perfect = 0;     // max(T_math, T_comm): perfect overlap, K -> infinity
  double t_ideal = 0;       // the even split: max + min/K
  double t_model = 0;       // pipeline_time(gemm, comm)
  // t_model - t_ideal = thinner_gemms + chunk_latency + link_model:
  double thinner_gemms = 0;  // chunk GEMMs at their shapes instead of T_math/K
  double chunk_latency = 0;  // every chunk's collective paying the latency again
  double link_model = 0;     // the link model's collective instead of the measured T_comm
  // The prediction the sweep judges (and the bench's "predicted"): the
  // pipeline of each chunk's GEMM and each chunk's collective, both timed
  // alone at their own shapes (without comm_alone: the collective's share
  // of the measured T_comm with the latency paid again), slowed where they
  // overlap by the interference (on the CPU: cpu_interference of the
  // transport's CPU share); with comm_busy, each collective as it ran
  // beside busy cores while GEMMs run (pipeline_time_beside) instead of the
  // interference's collective slowdown. Its inputs come from the same rounds as the
  // step it predicts (sweep/overlap_runner.cpp), so the link is taken as it
  // ran there, not as the probe measured it; t_model (the link model's
  // collectives) stays beside it as the pure model.
  //   t_predicted = t_ideal + thinner_gemms + chunk_latency
  //                 + chunk_collectives + interference
  double t_predicted = 0;
  double chunk_collectives = 0;  // the collectives timed alone instead of T_comm's shares (0 without them)
  double interference = 0;   // t_predicted - (t_ideal + thinner_gemms + chunk_latency)
};

PipelinePrediction predict_pipeline(const PipelineInputs& in);

// Stamps of one overlapped step, reduced to durations (seconds): each
// chunk's GEMM and collective as the step ran them, and the step itself.
struct StepDurations {
  std::vector<double> gemm;       // each chunk's GEMM inside the step
  std::vector<double> comm;       // each chunk's collective inside the step
  double step = 0;                // first GEMM's start to last collective's end
};

// One chunk's GEMM and collective spans [start, end) on one clock.
struct ChunkSpans {
  double gemm_start = 0, gemm_end = 0;
  double comm_start = 0, comm_end = 0;
};
// The durations of a step from its spans (one iteration, one rank).
StepDurations durations_of(const std::vector<ChunkSpans>& spans);

// The measured side of one K: what each chunk costs alone (timed at its own
// shape, not scaled), what it cost inside the overlapped step, and the step.
struct PipelineMeasured {
  std::vector<double> gemm_alone;  // each chunk's GEMM timed alone
  std::vector<double> comm_alone;  // each chunk's collective timed alone
  StepDurations in_step;           // from the overlapped step's stamps
  double t_overlap = 0;            // the measured step (median of the per-iteration max over ranks)
};

// Where the time went between the model and the measured step:
//   t_overlap - t_model = collectives_alone + gemm_interference
//                         + comm_interference + hand_over + other
struct GapParts {
  // The chunk collectives timed alone against the link model's.
  double collectives_alone = 0;
  // Interference: the GEMMs as they ran beside the collectives instead of
  // alone, then the collectives as they ran beside the GEMMs.
  double gemm_interference = 0;
  double comm_interference = 0;
  // The stamped step beyond its own GEMMs and collectives chained without
  // a gap: waking the communication thread, handing a chunk over.
  double hand_over = 0;
  // The measured median (the slowest rank per iteration) beyond the
  // stamped step (each rank's own medians).
  double other = 0;
  // Slowdowns as ratios (1: none): the GEMMs that ran beside a collective
  // (chunks 2..K) against the same GEMMs alone, and the collectives that
  // ran beside a GEMM (chunks 1..K-1) against the same alone.
  double gemm_slowdown = 1;
  double comm_slowdown = 1;
};

GapParts split_gap(const PipelineInputs& in, const PipelinePrediction& model, const PipelineMeasured& measured);

// The efficiency of the overlap against the pipeline's own ideal: the share
// of what K chunks could hide at best that the measured step hid,
//   (T_no_overlap - T_overlap) / (T_no_overlap - T_ideal).
// Empty when the denominator is below `min_fraction` of T_no_overlap.
std::optional<double> pipeline_efficiency(const PipelinePrediction& p, double t_overlap, double min_fraction = 0.01);

// ---- choosing K ----------------------------------------------------------
// `auto` takes the fewest chunks whose predicted T_overlap is within this
// fraction of the best: more chunks cost more collectives, each with a
// hand-over and per-message costs of the network stack that the model does
// not see (over emulated 0.5-1 Gbit/s links on two cores the model's
// shortfall grew from about 5% at K = 2 to about 25% at K = 8), so a
// predicted gain inside the model's own error of about 10% is not taken.
inline constexpr double kAutoMargin = 0.10;
// The most chunks `auto` considers (powers of two up to it).
inline constexpr int kAutoMaxChunks = 64;

struct ChunkCandidate {
  int chunks = 1;
  double t_predicted = 0;  // K = 1: the unchunked step, T_math + T_comm
};

// The candidates `auto` weighs: 1 and the powers of two up to
// min(max_chunks, kAutoMaxChunks).
std::vector<int> auto_candidates(std::uint64_t max_chunks);

// The fewest chunks within `margin` of the best candidate (the candidates
// in any order; none: 1).
int choose_chunks(const std::vector<ChunkCandidate>& candidates, double margin = kAutoMargin);

// ---- the step's efficiency from the roofs --------------------------------
// The pipeline with every time from the roofs (model/roofline.h): a chunk's
// GEMM is t_math of B/K rows (both roofs: a thinner GEMM moves more bytes
// per FLOP), its collective chunk_comm_time of B*F/K elements. K = 1 is
// the unchunked step, T_math + T_comm.
double modelled_step_time(const Shape& shape, const Ceilings& c, double D, int chunks);

// Useful compute time (2*B*ceil(D/N)*F / C) over the step's time: the
// fraction of C_peak the step reaches.
double step_efficiency(const Shape& shape, const Ceilings& c, double D, int chunks);

// How to chunk: a fixed K, or the model's choice at each D.
struct ChunkChoice {
  bool automatic = false;
  int chunks = 1;  // when not automatic
  std::uint64_t max_chunks = static_cast<std::uint64_t>(kAutoMaxChunks);  // the plan's bound for automatic
};

// The K the choice gives at D (automatic: choose_chunks over the modelled
// step times of auto_candidates).
int chunks_at(const Shape& shape, const Ceilings& c, double D, const ChunkChoice& choice);

// The step's efficiency at D* and the D at which it reaches `target` of
// C_peak, without overlap and with the chunked pipeline.
struct OverlapOutlook {
  double d_star = 0;                   // the book's crossover (compute roof, all terms)
  double target = 0.9;
  double efficiency_no_overlap = 0;    // at D*: 1/2 on the compute roof
  double efficiency_overlap = 0;       // at D*, with chunks_at_d_star chunks
  int chunks_at_d_star = 1;
  // The smallest D where the step reaches `target` of C_peak (empty when it
  // never does below 1e6 * D*, e.g. held under it by the memory roof).
  std::optional<double> D_target_no_overlap;  // about 9 x D* on the compute roof
  std::optional<double> D_target_overlap;
  int chunks_at_D_target = 1;  // K at D_target_overlap
};

OverlapOutlook overlap_outlook(const Shape& shape, const Ceilings& c, const ChunkChoice& choice, double target = 0.9);

// ---- fsdp: the next layer's weights gathered during this one's GEMM ------
// (sweep --sharding fsdp --overlap prefetch, as FSDP and ZeRO-3 prefetch.)
// L layers in a row, each an AllGather of its weight shards into a whole
// weight, then its GEMM. With two weight buffers, layer l+1's gather runs
// while layer l computes: it starts once layer l's gather has ended (one
// gather at a time) and layer l-1's GEMM has released the buffer it fills:
//   gather_end(l) = max(gather_end(l-1), gemm_end(l-2)) + c_l
//   gemm_end(l)   = max(gemm_end(l-1), gather_end(l)) + g_l
//   T_prefetch    = gemm_end(L)
// For equal layers this is c + (L-1) * max(c, g) + g: the book's pipeline
// with the collective first (the first gather and the last GEMM exposed).
double prefetch_time(const std::vector<double>& gather, const std::vector<double>& gemm);

struct PrefetchPrediction {
  int layers = 0;
  double t_no_overlap = 0;  // L * (T_math + T_comm): every gather, then its GEMM
  double t_ideal = 0;       // L * max(T_math, T_comm) + min(T_math, T_comm): equal layers, nothing paid again
  double t_predicted = 0;   // prefetch_time of each layer's gather and GEMM timed alone
};

// `t_math` and `t_comm`: one layer's GEMM and gather (the plain step's);
// `gather` and `gemm`: each layer's timed alone, in order (same length).
PrefetchPrediction predict_prefetch(double t_math, double t_comm, const std::vector<double>& gather,
                                    const std::vector<double>& gemm);

}  // namespace shardroof::model

// The inter-chip roofline model (README, "The model"), used by `predict` alone and
// by `sweep` beside its measurements. Symbols: N ranks, s bytes per element,
// C FLOP/s of one rank, W one-way link bandwidth per rank (bytes/s), a
// per-message latency (s), g seconds per element reduced, M local memory
// bandwidth (bytes/s, 0 = ignore the local memory roof).
//
//   T_math = max(2*B*ceil(D/N)*F / C, bytes_local / M),
//            bytes_local = (B*ceil(D/N) + ceil(D/N)*F + B*F) * s
//   ring AllReduce:     T_comm = 2(N-1)*a + 2(N-1)/N * B*F*s/W + (N-1)/N * B*F*g
//   ring ReduceScatter: T_comm =  (N-1)*a +  (N-1)/N * B*F*s/W + (N-1)/N * B*F*g
//   D*_AR = (N-1)*s*C/W    + N(N-1)*a*C/(B*F)   + (N-1)*g*C/2
//   D*_RS = (N-1)*s*C/(2W) + N(N-1)*a*C/(2*B*F) + (N-1)*g*C/2
//
// The second sharding (fsdp, weights gathered before the matmul) is the
// same arithmetic with the roles of B and D exchanged: the batch is split
// over the ranks and swept, and D and F stay whole, so Shape::B holds D
// there and the swept value is the whole batch B:
//   T_math = 2*ceil(B/N)*D*F / C
//   ring AllGather:     T_comm =  (N-1)*a +  (N-1)/N * D*F*s/W
//   B*_AG = (N-1)*s*C/(2W) + N(N-1)*a*C/(2*D*F)       (the whole batch)
//   B*_AG / N = C*s*(N-1)/(2*N*W) + (N-1)*a*C/(2*D*F) (per rank)
// For bf16 (s = 2) and many ranks the per-rank batch must exceed C/W, the
// book's "tokens per device".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace shardroof::model {

enum class Collective { AllReduce, ReduceScatter, AllGather };

// Which dimension the ranks split (docs/model.md, "Two shardings"):
//  Contracting: D. Rank i multiplies X[:, D_i] @ Y[D_i, :]; the B x F
//    partial sums are reduced after the matmul (AllReduce, ReduceScatter).
//    The tensor-parallel rule: the second matmul of a Megatron MLP pair.
//  Fsdp: the batch B. Rank i holds X[B_i, :] and 1/N of the weight W[D, F],
//    which is AllGathered before the matmul (FSDP, ZeRO-3).
// Both are one model: a swept dimension split over the ranks (D, or B) and
// two dimensions every rank holds whole, the array the collective moves
// (the B x F partial sum, or the D x F weight).
enum class Sharding { Contracting, Fsdp };
std::string to_string(Sharding s);  // "contracting" / "fsdp"
// The swept dimension's name: "D" (contracting) or "B" (fsdp).
std::string swept_name(Sharding s);
// The whole dimension that Shape::B holds: "B" (contracting) or "D" (fsdp).
std::string whole_name(Sharding s);

struct Ceilings {
  double flops_per_s = 0;        // C
  double link_bytes_per_s = 0;   // W, one way, per rank
  double latency_s = 0;          // a
  double reduce_s_per_elem = 0;  // g
  double memory_bytes_per_s = 0; // M (0: no memory roof)
};

// The dimensions every rank holds whole: the collective moves B x F
// elements, and one rank's GEMM is B x shard x F with shard = ceil(x/N) of
// the swept value x. Contracting: the batch B and F, x = D. Fsdp: B holds
// D (the weight is D x F) and x is the whole batch B.
struct Shape {
  double B = 0;
  double F = 0;
  int ranks = 2;                // N
  double bytes_per_elem = 4;    // s
  Collective collective = Collective::AllReduce;  // AllGather with Sharding::Fsdp
  Sharding sharding = Sharding::Contracting;
};

// The shard the slowest rank holds: ceil(D/N).
double slowest_shard(double D, int ranks);

double t_math(const Shape& shape, const Ceilings& c, double D);
double t_math_compute_only(const Shape& shape, const Ceilings& c, double D);
double t_comm(const Shape& shape, const Ceilings& c);

// Crossover D* (T_math = T_comm with the compute roof only), all terms.
double d_star(const Shape& shape, const Ceilings& c);
// The bandwidth term alone: (N-1)*s*C/W (AR) or (N-1)*s*C/(2W) (RS, AG).
double d_star_bandwidth(const Shape& shape, const Ceilings& c);
// Critical intensity C/W (FLOPs per byte sent).
double critical_intensity(const Ceilings& c);
// Inter-chip arithmetic intensity at D: FLOPs per rank / bytes sent per rank
// = D/((N-1)*s) for AllReduce, 2D/((N-1)*s) for ReduceScatter and AllGather.
double intensity(const Shape& shape, double D);

struct Point {
  double D = 0;
  double t_math = 0;
  double t_comm = 0;
  bool compute_bound = false;        // t_math >= t_comm
  double frac_peak_overlap = 0;      // useful compute time / max(T_math, T_comm)
  double frac_peak_no_overlap = 0;   // useful compute time / (T_math + T_comm)
};

Point evaluate(const Shape& shape, const Ceilings& c, double D);

// ---- the local (on-chip) roof -------------------------------------------
// Bytes the local GEMM must at least move: read both shards, write the
// B x F partial sum.
double local_bytes(const Shape& shape, double D);
// Critical intensity of the local roof, C/M (FLOPs per byte of memory
// traffic); 0 when M is not set.
double memory_critical_intensity(const Ceilings& c);
// Crossover with both roofs: the D where max(compute, memory) time of the
// slowest shard equals T_comm (continuous in D, like d_star). Both terms
// grow with D, so it is N times the smaller of the two shard sizes that
// each reach T_comm alone; 0 when the memory time of an empty shard
// (writing the B x F result) already exceeds T_comm. Equals d_star when M
// is not set.
double d_star_with_memory(const Shape& shape, const Ceilings& c);

// ---- a whole prediction as plain records ---------------------------------
struct Prediction {
  Shape shape;
  Ceilings ceilings;
  double critical_intensity = 0;         // C/W
  double memory_critical_intensity = 0;  // C/M (0: no memory roof)
  double d_star_bandwidth = 0;           // bandwidth term alone
  double d_star = 0;                     // all terms, compute roof
  double d_star_memory = 0;              // all terms, both roofs
  double t_comm = 0;                     // constant in D
  std::vector<Point> points;
};

Prediction predict(const Shape& shape, const Ceilings& c, const std::vector<double>& D_values);

// A D list for a table when the user gives none: powers of two from about
// D*/8 to 16*D* (at least N), plus D* itself rounded up to a multiple of N.
std::vector<double> default_D_values(const Shape& shape, double d_star);

// ---- measured ceilings beside a hardware preset --------------------------
// For `sweep --model-hw`: the same shapes on the preset's hardware, and a
// hybrid that keeps the measured compute side (C, M, g) and swaps in the
// preset's link (W, a): "this machine's GEMM with that link".
struct PresetComparison {
  Prediction measured;  // the measured ceilings as given
  Prediction preset;    // the preset's ceilings as given (presets carry no g: 0)
  Prediction hybrid;    // measured C, M, g; preset W, a
};

PresetComparison compare_with_preset(const Shape& shape, const Ceilings& measured, const Ceilings& preset,
                                     const std::vector<double>& D_values);

std::string to_string(Collective c);  // "all_reduce" / "reduce_scatter" / "all_gather"

}  // namespace shardroof::model

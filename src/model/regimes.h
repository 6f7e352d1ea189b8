// The regimes of a sharded step (docs/model.md, "Regimes"): what bounds it.
// The local GEMM has three roofs, the on-chip roofline of the compute,
// memory and overhead essay:
//
//   compute   2*B*shard*F / C_peak
//   memory    s*(B*shard + shard*F + B*F) / M   (read both shards once,
//             write the B x F partial sum once: the least traffic a GEMM
//             can make; caches only add to it)
//   floor     the GEMM's time at this B and F with a shard of one column
//             (measured; from a preset, max(memory at shard 1, the per-call
//             overhead o)): T_math cannot go below it at any D
//
// with shard = ceil(D/N). The floor has a cause: memory when the memory
// roof at shard 1 explains at least half of it (writing the B x F partial
// sum dominates), else overhead (a per-call cost of the library or of a
// launch that moving the bytes does not explain).
//
// The step is communication-bound where T_comm > T_math; otherwise the
// GEMM's binding roof (the largest of the three) names it.
//
// The crossover of the roof model T_math_model(D) = max(compute, memory,
// floor) with a constant T_comm: none when T_comm <= T_math_model(shard 1)
// (the GEMM's floor: communication never bounds the step), else the
// smallest D where a growing roof reaches T_comm, on that roof. Its
// conditioning is the local slope k = d ln T_math / d ln D there: a change
// of T_comm by x moves D* by about x/k, so near a floor (k small) D* is
// ill-conditioned.
#pragma once

#include <limits>
#include <optional>
#include <string>

#include "model/roofline.h"

namespace shardroof::model {

enum class Roof { Compute, Memory, Overhead };
std::string to_string(Roof r);  // "compute", "memory", "overhead"

// What bounds one point of the step: the communication, or a roof of the GEMM.
enum class Bound { Communication, Compute, Memory, Overhead };
std::string to_string(Bound b);  // "communication", "compute", "memory", "overhead"
Bound bound_of(Roof r);

struct GemmFloor {
  double time_s = 0;    // the GEMM at this B and F with a shard of one column
  double call_s = 0;    // the smallest call the backend makes (0: not known)
  double memory_s = 0;  // the memory roof at shard 1
  // Memory when memory_s explains at least half of time_s, else overhead.
  Roof cause() const;
};

// The floor the roof model assumes where nothing was measured: the memory
// roof at shard 1, or the per-call overhead `call_s` where that is larger
// (0 with neither).
GemmFloor model_floor(const Shape& shape, const Ceilings& c, double call_s);

struct Roofs {
  double compute_s = 0;
  double memory_s = 0;  // 0 without a memory bandwidth
  double floor_s = 0;
  Roof floor_cause = Roof::Memory;
  double max_s() const;
  Roof binding() const;  // the largest; the floor reports its cause
};

// The roofs at D (shard = ceil(D/N)) with C = c.flops_per_s and M = c.memory_bytes_per_s.
Roofs roofs_at(const Shape& shape, const Ceilings& c, const GemmFloor& floor, double D);

// The regime of a measured point: the communication where t_comm > t_math,
// else the binding roof; roof_fraction is the binding roof's time over the
// measured time (for communication, t_comm_model / t_comm: how much of the
// link's roof the collective reached; 0 without a model).
struct Regime {
  Bound bound = Bound::Compute;
  double roof_fraction = 0;
  Roofs roofs;
};
Regime classify(const Roofs& roofs, double t_math, double t_comm, double t_comm_model);

// Conditioning of a crossover on a T_math curve of local slope k.
inline constexpr double kIllConditionedSlope = 0.5;  // D* moves more than twice as much as T_comm
struct Conditioning {
  double slope = 0;        // k = d ln T_math / d ln D at D*
  double sensitivity = 0;  // d ln D* / d ln T_comm = 1/k (infinite at k = 0)
  bool ill_conditioned = false;
};
Conditioning conditioning_of(double slope);

enum class CrossoverKind {
  Crossing,        // T_math_model reaches T_comm at D
  BelowFloor,      // T_comm <= the GEMM's floor: no crossover at any D
  AboveRange,      // the crossing lies beyond D_max
  NoModel,         // no C (and no M), or no T_comm
};
std::string to_string(CrossoverKind k);  // "crossing", "below_floor", "above_range", "no_model"

struct RoofCrossover {
  CrossoverKind kind = CrossoverKind::NoModel;
  double D = 0;                 // with Crossing (continuous in D)
  Roof roof = Roof::Compute;    // the roof it falls on
  Conditioning conditioning;    // of the model at D
  double t_comm_s = 0;
  double floor_s = 0;           // T_math_model at shard 1
  Roof floor_cause = Roof::Memory;
};

// The one solver of the roof model, used by `sweep` and `predict`.
RoofCrossover solve_roof_crossover(const Shape& shape, const Ceilings& c, const GemmFloor& floor, double t_comm,
                                   double D_max = std::numeric_limits<double>::infinity());

// The slope of the roof model at D (1 on the compute roof, below 1 on the
// memory roof, 0 on the floor).
double model_slope(const Shape& shape, const Ceilings& c, const GemmFloor& floor, double D);

}  // namespace shardroof::model

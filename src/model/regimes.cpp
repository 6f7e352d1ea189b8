#include "model/regimes.h"

#include <algorithm>
#include <cmath>

namespace shardroof::model {
namespace {

double compute_time(const Shape& s, const Ceilings& c, double shard) {
  return c.flops_per_s > 0 ? 2 * s.B * shard * s.F / c.flops_per_s : 0;
}

double memory_time(const Shape& s, const Ceilings& c, double shard) {
  return c.memory_bytes_per_s > 0 ? s.bytes_per_elem * (s.B * shard + shard * s.F + s.B * s.F) / c.memory_bytes_per_s
                                  : 0;
}

}  // namespace

std::string to_string(Roof r) {
  switch (r) {
    case Roof::Compute: return "compute";
    case Roof::Memory: return "memory";
    case Roof::Overhead: return "overhead";
  }
  return "?";
}

std::string to_string(Bound b) {
  switch (b) {
    case Bound::Communication: return "communication";
    case Bound::Compute: return "compute";
    case Bound::Memory: return "memory";
    case Bound::Overhead: return "overhead";
  }
  return "?";
}

Bound bound_of(Roof r) {
  switch (r) {
    case Roof::Compute: return Bound::Compute;
    case Roof::Memory: return Bound::Memory;
    case Roof::Overhead: return Bound::Overhead;
  }
  return Bound::Compute;
}

std::string to_string(CrossoverKind k) {
  switch (k) {
    case CrossoverKind::Crossing: return "crossing";
    case CrossoverKind::BelowFloor: return "below_floor";
    case CrossoverKind::AboveRange: return "above_range";
    case CrossoverKind::NoModel: return "no_model";
  }
  return "?";
}

Roof GemmFloor::cause() const { return 2 * memory_s >= time_s ? Roof::Memory : Roof::Overhead; }

GemmFloor model_floor(const Shape& shape, const Ceilings& c, double call_s) {
  GemmFloor f;
  f.memory_s = memory_time(shape, c, 1);
  f.call_s = call_s;
  f.time_s = std::max(f.memory_s, call_s);
  return f;
}

double Roofs::max_s() const { return std::max({compute_s, memory_s, floor_s}); }

Roof Roofs::binding() const {
  // On a tie the growing roofs name it: at shard 1 the floor and the memory
  // roof are the same traffic.
  if (compute_s >= memory_s && compute_s >= floor_s) return Roof::Compute;
  if (memory_s >= floor_s) return Roof::Memory;
  return floor_cause;
}

Roofs roofs_at(const Shape& shape, const Ceilings& c, const GemmFloor& floor, double D) {
  const double shard = std::max(slowest_shard(D, shape.ranks), 1.0);
  Roofs r;
  r.compute_s = compute_time(shape, c, shard);
  r.memory_s = memory_time(shape, c, shard);
  r.floor_s = floor.time_s;
  r.floor_cause = floor.cause();
  return r;
}

Regime classify(const Roofs& roofs, double t_math, double t_comm, double t_comm_model) {
  Regime g;
  g.roofs = roofs;
  if (t_comm > t_math) {
    g.bound = Bound::Communication;
    g.roof_fraction = t_comm > 0 && t_comm_model > 0 ? t_comm_model / t_comm : 0;
    return g;
  }
  // The binding roof is the largest (the floor named by its cause).
  g.bound = bound_of(roofs.binding());
  g.roof_fraction = t_math > 0 ? roofs.max_s() / t_math : 0;
  return g;
}

Conditioning conditioning_of(double slope) {
  Conditioning c;
  c.slope = slope;
  c.sensitivity = slope > 0 ? 1 / slope : std::numeric_limits<double>::infinity();
  c.ill_conditioned = !(slope >= kIllConditionedSlope);
  return c;
}

double model_slope(const Shape& shape, const Ceilings& c, const GemmFloor& floor, double D) {
  const double shard = std::max(D / shape.ranks, 1.0);
  const double comp = compute_time(shape, c, shard), mem = memory_time(shape, c, shard);
  if (floor.time_s > std::max(comp, mem)) return 0;
  if (comp >= mem) return comp > 0 ? 1 : 0;
  const double traffic = shape.B * shard + shard * shape.F + shape.B * shape.F;
  return (shape.B + shape.F) * shard / traffic;
}

RoofCrossover solve_roof_crossover(const Shape& shape, const Ceilings& c, const GemmFloor& floor, double t_comm,
                                   double D_max) {
  RoofCrossover x;
  x.t_comm_s = t_comm;
  x.floor_s = std::max({floor.time_s, compute_time(shape, c, 1), memory_time(shape, c, 1)});
  x.floor_cause = floor.cause();
  if (!(t_comm > 0) || !(c.flops_per_s > 0 || c.memory_bytes_per_s > 0)) return x;
  if (t_comm <= x.floor_s) {
    x.kind = CrossoverKind::BelowFloor;
    x.conditioning = conditioning_of(0);
    return x;
  }
  const double inf = std::numeric_limits<double>::infinity();
  const double shard_c = c.flops_per_s > 0 ? t_comm * c.flops_per_s / (2 * shape.B * shape.F) : inf;
  const double shard_m = c.memory_bytes_per_s > 0
                             ? (t_comm * c.memory_bytes_per_s / shape.bytes_per_elem - shape.B * shape.F) /
                                   (shape.B + shape.F)
                             : inf;
  const double shard = std::min(shard_c, shard_m);
  if (!std::isfinite(shard)) return x;
  x.D = shape.ranks * shard;
  x.roof = shard_c <= shard_m ? Roof::Compute : Roof::Memory;
  x.conditioning = conditioning_of(model_slope(shape, c, floor, x.D));
  x.kind = x.D > D_max ? CrossoverKind::AboveRange : CrossoverKind::Crossing;
  return x;
}

}  // namespace shardroof::model

#include "model/roofline.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "model/collective_cost.h"

namespace shardroof::model {

double slowest_shard(double D, int ranks) { return std::ceil(D / std::max(ranks, 1)); }

double t_math_compute_only(const Shape& shape, const Ceilings& c, double D) {
  return 2.0 * shape.B * slowest_shard(D, shape.ranks) * shape.F / c.flops_per_s;
}

double t_math(const Shape& shape, const Ceilings& c, double D) {
  const double compute = t_math_compute_only(shape, c, D);
  if (c.memory_bytes_per_s <= 0) return compute;
  const double d = slowest_shard(D, shape.ranks);
  const double bytes = (shape.B * d + d * shape.F + shape.B * shape.F) * shape.bytes_per_elem;
  return std::max(compute, bytes / c.memory_bytes_per_s);
}

double t_comm(const Shape& shape, const Ceilings& c) {
  if (shape.ranks <= 1) return 0;
  // The book's T_comm is the ring's cost formula (model/collective_cost.h),
  // written once: g per element here is g per byte there times s; an unset
  // W leaves the bandwidth term out.
  CollCall call;
  call.kind = shape.collective == Collective::AllReduce       ? coll::CollectiveKind::AllReduce
              : shape.collective == Collective::ReduceScatter ? coll::CollectiveKind::ReduceScatter
                                                              : coll::CollectiveKind::AllGather;
  call.impl = coll::Algorithm::Ring;
  call.nranks = shape.ranks;
  call.bytes = static_cast<std::uint64_t>(std::llround(shape.B * shape.F * shape.bytes_per_elem));
  CollLink link;
  link.alpha_s = c.latency_s;
  link.W_bytes_per_s = c.link_bytes_per_s > 0 ? c.link_bytes_per_s : std::numeric_limits<double>::infinity();
  link.g_s_per_byte = shape.bytes_per_elem > 0 ? c.reduce_s_per_elem / shape.bytes_per_elem : 0;
  const auto cost = collective_cost(call, link);
  return cost ? cost->time_s : 0;
}

double d_star_bandwidth(const Shape& shape, const Ceilings& c) {
  if (c.link_bytes_per_s <= 0) return 0;  // W not set: no bandwidth term (as in t_comm)
  const double n = shape.ranks;
  const double base = (n - 1) * shape.bytes_per_elem * c.flops_per_s / c.link_bytes_per_s;
  return shape.collective == Collective::AllReduce ? base : base / 2;
}

double d_star(const Shape& shape, const Ceilings& c) {
  const double n = shape.ranks;
  const double C = c.flops_per_s;
  const double bw = d_star_bandwidth(shape, c);
  const double lat = n * (n - 1) * c.latency_s * C / (shape.B * shape.F);
  // An AllGather reduces nothing: no g term.
  const double red = shape.collective == Collective::AllGather ? 0 : (n - 1) * c.reduce_s_per_elem * C / 2;
  return shape.collective == Collective::AllReduce ? bw + lat + red : bw + lat / 2 + red;
}

double critical_intensity(const Ceilings& c) { return c.flops_per_s / c.link_bytes_per_s; }

double intensity(const Shape& shape, double D) {
  const double base = D / ((shape.ranks - 1) * shape.bytes_per_elem);
  return shape.collective == Collective::AllReduce ? base : 2 * base;
}

Point evaluate(const Shape& shape, const Ceilings& c, double D) {
  Point p;
  p.D = D;
  p.t_math = t_math(shape, c, D);
  p.t_comm = t_comm(shape, c);
  p.compute_bound = p.t_math >= p.t_comm;
  const double useful = t_math_compute_only(shape, c, D);
  const double mx = std::max(p.t_math, p.t_comm);
  const double sum = p.t_math + p.t_comm;
  p.frac_peak_overlap = mx > 0 ? useful / mx : 0;
  p.frac_peak_no_overlap = sum > 0 ? useful / sum : 0;
  return p;
}

}  // namespace shardroof::model

namespace shardroof::model {

double local_bytes(const Shape& shape, double D) {
  const double d = slowest_shard(D, shape.ranks);
  return (shape.B * d + d * shape.F + shape.B * shape.F) * shape.bytes_per_elem;
}

double memory_critical_intensity(const Ceilings& c) {
  return c.memory_bytes_per_s > 0 ? c.flops_per_s / c.memory_bytes_per_s : 0;
}

double d_star_with_memory(const Shape& shape, const Ceilings& c) {
  const double compute_crossover = d_star(shape, c);
  if (c.memory_bytes_per_s <= 0) return compute_crossover;
  // Memory time of a shard of width d: ((B + F) * d + B*F) * s / M.
  // It reaches T_comm at d_mem; the step's T_math reaches T_comm at the
  // smaller of d_mem and the compute-only crossover's shard.
  const double comm = t_comm(shape, c);
  const double fixed = shape.B * shape.F * shape.bytes_per_elem / c.memory_bytes_per_s;
  if (fixed >= comm) return 0;
  const double per_d = (shape.B + shape.F) * shape.bytes_per_elem / c.memory_bytes_per_s;
  const double d_mem = (comm - fixed) / per_d;
  return std::min(compute_crossover, d_mem * std::max(shape.ranks, 1));
}

Prediction predict(const Shape& shape, const Ceilings& c, const std::vector<double>& D_values) {
  Prediction p;
  p.shape = shape;
  p.ceilings = c;
  p.critical_intensity = critical_intensity(c);
  p.memory_critical_intensity = memory_critical_intensity(c);
  p.d_star_bandwidth = d_star_bandwidth(shape, c);
  p.d_star = d_star(shape, c);
  p.d_star_memory = d_star_with_memory(shape, c);
  p.t_comm = t_comm(shape, c);
  p.points.reserve(D_values.size());
  for (double D : D_values) p.points.push_back(evaluate(shape, c, D));
  return p;
}

std::vector<double> default_D_values(const Shape& shape, double d_star_value) {
  const double n = std::max(shape.ranks, 1);
  const double centre = d_star_value > n ? d_star_value : n;
  std::vector<double> out;
  double D = std::exp2(std::floor(std::log2(centre / 8)));
  if (D < n) D = std::exp2(std::ceil(std::log2(n)));
  for (; D <= 16 * centre; D *= 2) out.push_back(D);
  if (d_star_value > 0) out.push_back(std::ceil(d_star_value / n) * n);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

PresetComparison compare_with_preset(const Shape& shape, const Ceilings& measured, const Ceilings& preset,
                                     const std::vector<double>& D_values) {
  Ceilings hybrid = measured;
  hybrid.link_bytes_per_s = preset.link_bytes_per_s;
  hybrid.latency_s = preset.latency_s;
  return PresetComparison{predict(shape, measured, D_values), predict(shape, preset, D_values),
                          predict(shape, hybrid, D_values)};
}

std::string to_string(Collective c) {
  switch (c) {
    case Collective::AllReduce: return "all_reduce";
    case Collective::ReduceScatter: return "reduce_scatter";
    case Collective::AllGather: return "all_gather";
  }
  return "?";
}

std::string to_string(Sharding s) { return s == Sharding::Fsdp ? "fsdp" : "contracting"; }
std::string swept_name(Sharding s) { return s == Sharding::Fsdp ? "B" : "D"; }
std::string whole_name(Sharding s) { return s == Sharding::Fsdp ? "D" : "B"; }

}  // namespace shardroof::model

#include "model/roofline.h"

#include <algorithm>
#include <cmath>

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
  const double n = shape.ranks;
  if (shape.ranks <= 1) return 0;
  const double elems = shape.B * shape.F;
  const double bytes = elems * shape.bytes_per_elem;
  const double bw = c.link_bytes_per_s > 0 ? bytes / c.link_bytes_per_s : 0;
  const double reduce = (n - 1) / n * elems * c.reduce_s_per_elem;
  if (shape.collective == Collective::AllReduce)
    return 2 * (n - 1) * c.latency_s + 2 * (n - 1) / n * bw + reduce;
  return (n - 1) * c.latency_s + (n - 1) / n * bw + reduce;
}

double d_star_bandwidth(const Shape& shape, const Ceilings& c) {
  const double n = shape.ranks;
  const double base = (n - 1) * shape.bytes_per_elem * c.flops_per_s / c.link_bytes_per_s;
  return shape.collective == Collective::AllReduce ? base : base / 2;
}

double d_star(const Shape& shape, const Ceilings& c) {
  const double n = shape.ranks;
  const double C = c.flops_per_s;
  const double bw = c.link_bytes_per_s > 0 ? d_star_bandwidth(shape, c) : 0;
  const double lat = n * (n - 1) * c.latency_s * C / (shape.B * shape.F);
  const double red = (n - 1) * c.reduce_s_per_elem * C / 2;
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

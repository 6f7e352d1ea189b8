#include "model/two_level.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "model/collective_cost.h"

namespace shardroof::model {
namespace {

LinkLevel flat_link(const TwoLevelShape& shape, const TwoLevelCeilings& c) {
  if (c.flat) return *c.flat;
  if (shape.nodes <= 1) return c.intra;
  if (shape.ranks_per_node <= 1) return c.inter;
  return {std::min(c.intra.bytes_per_s, c.inter.bytes_per_s), std::max(c.intra.latency_s, c.inter.latency_s)};
}

double inter_flow_bytes_per_s(const TwoLevelCeilings& c) {
  return c.inter.bytes_per_s / std::max(c.ranks_per_inter_link, 1);
}

}  // namespace

double t_comm_flat(const TwoLevelShape& shape, const TwoLevelCeilings& c) {
  const LinkLevel link = flat_link(shape, c);
  const Shape flat{shape.B, shape.F, shape.ranks(), shape.bytes_per_elem, shape.collective};
  return t_comm(flat, Ceilings{c.flops_per_s, link.bytes_per_s, link.latency_s, c.reduce_s_per_elem, 0});
}

double t_comm_hier(const TwoLevelShape& shape, const TwoLevelCeilings& c) {
  // hier's cost formula (model/collective_cost.h), written once: the same
  // terms on the two levels, g per element here is g per byte there times s,
  // and no local copy.
  CollCall call;
  call.kind = shape.collective == Collective::AllReduce ? coll::CollectiveKind::AllReduce
                                                        : coll::CollectiveKind::ReduceScatter;
  call.impl = coll::Algorithm::Hier;
  call.nranks = shape.ranks();
  call.bytes = static_cast<std::uint64_t>(std::llround(shape.B * shape.F * shape.bytes_per_elem));
  call.ranks_per_node = shape.ranks_per_node;
  CollLink link;
  link.alpha_s = c.intra.latency_s;
  link.W_bytes_per_s = c.intra.bytes_per_s > 0 ? c.intra.bytes_per_s : std::numeric_limits<double>::infinity();
  link.g_s_per_byte = shape.bytes_per_elem > 0 ? c.reduce_s_per_elem / shape.bytes_per_elem : 0;
  link.inter_alpha_s = c.inter.latency_s;
  link.inter_W_bytes_per_s = c.inter.bytes_per_s > 0 ? c.inter.bytes_per_s : std::numeric_limits<double>::infinity();
  link.inter_ranks_per_link = std::max(c.ranks_per_inter_link, 1);
  const auto cost = collective_cost(call, link);
  return cost ? cost->time_s : 0;
}

double d_star_of(const TwoLevelShape& shape, double flops_per_s, double t_comm) {
  return shape.ranks() * flops_per_s * t_comm / (2 * shape.B * shape.F);
}

TwoLevelPrediction predict_two_level(const TwoLevelShape& shape, const TwoLevelCeilings& c) {
  TwoLevelPrediction p;
  p.flat_link = flat_link(shape, c);
  p.inter_flow_bytes_per_s = inter_flow_bytes_per_s(c);
  p.t_comm_flat = t_comm_flat(shape, c);
  p.t_comm_hier = t_comm_hier(shape, c);
  p.d_star_flat = d_star_of(shape, c.flops_per_s, p.t_comm_flat);
  p.d_star_hier = d_star_of(shape, c.flops_per_s, p.t_comm_hier);
  const bool two_levels = shape.nodes > 1 && shape.ranks_per_node > 1;
  p.faster = two_levels && p.t_comm_hier < p.t_comm_flat ? "hier" : "ring";
  return p;
}

int ranks_sharing_inter_link(double alone_bytes_per_s, double together_bytes_per_s, int ranks_per_node) {
  if (!(alone_bytes_per_s > 0) || !(together_bytes_per_s > 0) || ranks_per_node <= 1) return 1;
  const double ratio = alone_bytes_per_s / together_bytes_per_s;
  int r = 1;
  while (r < ranks_per_node && ratio > std::sqrt(static_cast<double>(r) * (r + 1))) ++r;
  return r;
}

}  // namespace shardroof::model

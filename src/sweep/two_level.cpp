#include "sweep/two_level.h"

#include <cmath>

namespace shardroof::sweep {
namespace {

// The W that puts all of `t_comm` into the bandwidth term of the flat
// formula on N ranks (a = g = 0), so the solver of the book's D* with the
// GEMM's rate at each D solves it for any T_comm.
model::Ceilings equivalent_link(const model::Shape& shape, double flops_per_s, double t_comm) {
  model::Ceilings unit;
  unit.link_bytes_per_s = 1;
  model::Ceilings c;
  c.flops_per_s = flops_per_s;
  c.link_bytes_per_s = t_comm > 0 ? model::t_comm(shape, unit) / t_comm : 0;
  return c;
}

std::optional<PredictedCrossover> at_measured_rate(const std::vector<double>& D, const std::vector<double>& C,
                                                   const model::Shape& shape, double flops_per_s, double t_comm) {
  const model::Ceilings c = equivalent_link(shape, flops_per_s, t_comm);
  if (c.link_bytes_per_s <= 0) return std::nullopt;
  auto p = predicted_crossover(D, C, shape, c);
  if (p && !(std::isfinite(p->D) && std::isfinite(p->C_at_D))) return std::nullopt;
  return p;
}

}  // namespace

std::optional<TwoLevelAnalysis> analyze_two_level(const SweepPlan& plan, const RunCeilings& ceilings,
                                                  const std::optional<TwoLevelProbes>& probes,
                                                  const std::vector<PointRecord>& points) {
  if (!probes) return std::nullopt;
  TwoLevelAnalysis a;
  const int ranks = probes->nodes * probes->ranks_per_node;
  const model::Shape flat = model_shape(plan, ranks);
  a.shape = {flat.B, flat.F, probes->nodes, probes->ranks_per_node, flat.bytes_per_elem, flat.collective};
  model::TwoLevelCeilings& c = a.ceilings;
  c.flops_per_s = ceilings.peak_gemm.flops_per_s;
  c.reduce_s_per_elem = ceilings.reduce.s_per_elem;
  // W_o: one flow with the link to itself; R: how many share a link
  // (link/two_level_links.h).
  const link::TwoLevelLinks levels =
      link::two_level_links(*probes, {ceilings.link.W_bytes_per_s, ceilings.link.alpha_s});
  c.intra = levels.intra;
  c.inter = levels.inter;
  c.ranks_per_inter_link = levels.ranks_per_inter_link;
  a.sources = {"ring probe inside every node at once",
               "the fastest of each ring across the nodes alone and the whole ring; R from every ring across at once",
               ""};
  if (ceilings.link.W_bytes_per_s > 0) {
    c.flat = model::LinkLevel{ceilings.link.W_bytes_per_s, ceilings.link.alpha_s};
    a.sources.flat = ceilings.link.source;
  }
  a.prediction = model::predict_two_level(a.shape, c);
  std::vector<double> D, C;
  for (const auto& p : points) {
    if (p.D == 0 || p.flops_per_s <= 0) continue;
    D.push_back(static_cast<double>(p.D));
    C.push_back(p.flops_per_s);
  }
  a.ring = at_measured_rate(D, C, flat, c.flops_per_s, a.prediction.t_comm_flat);
  a.hier = at_measured_rate(D, C, flat, c.flops_per_s, a.prediction.t_comm_hier);
  return a;
}

}  // namespace shardroof::sweep

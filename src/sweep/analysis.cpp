#include "sweep/analysis.h"

namespace shardroof::sweep {

SweepAnalysis analyze(const SweepPlan& plan, int ranks, const RunCeilings& ceilings,
                      const std::vector<PointRecord>& points) {
  SweepAnalysis a;
  a.shape = model_shape(plan, ranks);
  a.link.link_bytes_per_s = ceilings.link.W_bytes_per_s;
  a.link.latency_s = ceilings.link.alpha_s;
  a.link.reduce_s_per_elem = ceilings.link.reduction_separated ? ceilings.reduce.s_per_elem : 0;
  a.peak = a.link;
  a.peak.flops_per_s = ceilings.peak_gemm.flops_per_s;
  a.peak.memory_bytes_per_s = ceilings.memory.triad_bytes_per_s;
  a.t_comm_model_s = model::t_comm(a.shape, a.link);

  std::vector<double> D, tm, tc, C;
  for (const auto& p : points) {
    // D = 0 carries no information on a log scale.
    if (p.D == 0 || p.t_math.median <= 0 || p.t_comm.median <= 0) continue;
    D.push_back(static_cast<double>(p.D));
    tm.push_back(p.t_math.median);
    tc.push_back(p.t_comm.median);
    C.push_back(p.flops_per_s);
  }
  a.empirical = empirical_crossover(D, tm, tc);
  a.predicted = predicted_crossover(D, C, a.shape, a.link);
  if (ranks >= 2 && a.peak.flops_per_s > 0 && a.link.link_bytes_per_s > 0) {
    a.D_peak = model::d_star(a.shape, a.peak);
    a.D_roofs = roofs_crossover(a.shape, a.peak);
  }
  if (a.empirical.D && a.predicted) a.rel_error = (a.predicted->D - *a.empirical.D) / *a.empirical.D;
  return a;
}

double intensity(const SweepAnalysis& a, const PointRecord& p) {
  if (a.shape.ranks < 2) return 0;
  return model::intensity(a.shape, static_cast<double>(p.D));
}

bool compute_bound(const PointRecord& p) { return p.t_math.median >= p.t_comm.median; }

double step_flops_per_s(const SweepPlan& plan, const PointRecord& p) {
  const double flops = 2.0 * static_cast<double>(plan.B) * static_cast<double>(p.shard_max) *
                       static_cast<double>(plan.F);
  return p.t_step.median > 0 ? flops / p.t_step.median : 0;
}

}  // namespace shardroof::sweep

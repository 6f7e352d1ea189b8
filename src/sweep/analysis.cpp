#include "sweep/analysis.h"

#include <fmt/format.h>

#include <algorithm>

#include "timing/timing.h"

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

OverlapEfficiency overlap_efficiency(const PointRecord& p) {
  OverlapEfficiency e;
  if (!p.t_overlap) {
    e.undefined = "no overlapped step";
    return e;
  }
  const double step = p.t_step.median;
  const double hideable = step - std::max(p.t_math.median, p.t_comm.median);
  if (!(hideable >= kMinHideableFraction * step) || step <= 0) {
    e.undefined = fmt::format("T_step - max(T_math, T_comm) is below {:g}% of T_step: nothing measurable to hide",
                              100 * kMinHideableFraction);
    return e;
  }
  e.value = (step - p.t_overlap->median) / hideable;
  return e;
}

std::optional<EfficiencySpread> overlap_efficiency_spread(const std::vector<PointRecord>& points) {
  std::vector<double> values;
  for (const auto& p : points)
    if (const auto e = overlap_efficiency(p); e.value) values.push_back(*e.value);
  if (values.empty()) return std::nullopt;
  const TimeStats s = summarize(values);
  return EfficiencySpread{static_cast<int>(values.size()), s.median, s.min, s.max};
}

}  // namespace shardroof::sweep

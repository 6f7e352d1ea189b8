#include "sweep/analysis.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "timing/stats.h"

namespace shardroof::sweep {

namespace {

std::optional<double> finite(double v) { return std::isfinite(v) ? std::optional<double>(v) : std::nullopt; }

std::optional<PredictedCrossover> finite(std::optional<PredictedCrossover> p) {
  if (p && !(std::isfinite(p->D) && std::isfinite(p->C_at_D))) return std::nullopt;
  return p;
}

}  // namespace

double SweepAnalysis::critical_intensity() const {
  return calibrated.link_bytes_per_s > 0 ? model::critical_intensity(calibrated) : 0;
}

SweepAnalysis analyze(const SweepPlan& plan, int ranks, const RunCeilings& ceilings,
                      const std::vector<PointRecord>& points) {
  SweepAnalysis a;
  a.shape = model_shape(plan, ranks);
  a.book.flops_per_s = ceilings.peak_gemm.flops_per_s;
  a.book.memory_bytes_per_s = ceilings.memory.triad_bytes_per_s;
  a.book.link_bytes_per_s = ceilings.link.W_bytes_per_s;
  a.book.latency_s = ceilings.link.alpha_s;
  a.book.reduce_s_per_elem = ceilings.reduce.s_per_elem;
  a.t_comm_book_s = model::t_comm(a.shape, a.book);
  for (const auto& p : points) a.points.push_back(derive_point(plan, a.shape, ceilings, p));
  a.overlap_spread = overlap_efficiency_spread(points);
  std::vector<double> D, tm, tc, C;
  std::vector<const PointRecord*> used;
  for (const auto& p : points) {
    // D = 0 carries no information on a log scale.
    if (p.D == 0 || p.t_math.median <= 0 || p.t_comm.median <= 0) continue;
    D.push_back(static_cast<double>(p.D));
    tm.push_back(p.t_math.median);
    tc.push_back(p.t_comm.median);
    C.push_back(p.flops_per_s);
    used.push_back(&p);
  }
  a.empirical = empirical_crossover(D, tm, tc);
  if (a.empirical.D) {
    const PointRecord& lo = *used[a.empirical.lower];
    const PointRecord& hi = *used[a.empirical.lower + 1];
    a.interval = crossing_interval({D[a.empirical.lower], D[a.empirical.lower + 1], lo.t_math.samples,
                                    lo.t_comm.samples, hi.t_math.samples, hi.t_comm.samples, lo.windows, hi.windows},
                                   kIntervalLevel, kBootstrapReplicates, plan.seed);
    // With few, skewed samples the replicates' central 95% can miss the
    // estimate from all of them; the interval reported always holds it.
    if (a.interval) {
      a.interval->low = std::min(a.interval->low, *a.empirical.D);
      a.interval->high = std::max(a.interval->high, *a.empirical.D);
    }
  }
  // T_comm(S): the collective at S, the same at every D. Over every sample
  // of the run (the ceilings' and each point's) for the record; the
  // calibrated model takes the samples of the two points around D*, the
  // ones that placed it (T_comm can change during a run: a link's state,
  // the load), and every sample when there is no crossing.
  std::vector<double> at_S = ceilings.collective.time.samples;
  for (const auto& p : points) {
    at_S.insert(at_S.end(), p.t_comm.samples.begin(), p.t_comm.samples.end());
    const bool first = &p == &points.front();
    a.t_comm_points_min_s = first ? p.t_comm.median : std::min(a.t_comm_points_min_s, p.t_comm.median);
    a.t_comm_points_max_s = first ? p.t_comm.median : std::max(a.t_comm_points_max_s, p.t_comm.median);
  }
  a.t_comm_run_samples = static_cast<int>(at_S.size());
  a.t_comm_run_s = at_S.empty() ? ceilings.collective.time.median : summarize(at_S).median;
  if (a.empirical.D) {
    const PointRecord& lo = *used[a.empirical.lower];
    const PointRecord& hi = *used[a.empirical.lower + 1];
    at_S = lo.t_comm.samples;
    at_S.insert(at_S.end(), hi.t_comm.samples.begin(), hi.t_comm.samples.end());
  }
  a.t_comm_samples = static_cast<int>(at_S.size());
  a.t_comm_measured_s = at_S.empty() ? ceilings.collective.time.median : summarize(std::move(at_S)).median;
  a.calibrated.flops_per_s = a.book.flops_per_s;
  a.calibrated.memory_bytes_per_s = a.book.memory_bytes_per_s;
  if (ranks >= 2 && a.t_comm_measured_s > 0) {
    // With a = g = 0, T_comm = factor * S / W: T_comm(S) measured fixes W_eff.
    model::Ceilings unit;
    unit.link_bytes_per_s = 1;
    a.W_eff_bytes_per_s = model::t_comm(a.shape, unit) / a.t_comm_measured_s;
    a.calibrated.link_bytes_per_s = a.W_eff_bytes_per_s;
  }
  if (ranks < 2) return a;
  if (a.calibrated.link_bytes_per_s > 0) {
    a.predicted = finite(predicted_crossover(D, C, a.shape, a.calibrated));
    if (a.calibrated.flops_per_s > 0) {
      a.D_peak = finite(model::d_star(a.shape, a.calibrated));
      a.D_roofs = finite(model::d_star_with_memory(a.shape, a.calibrated));
    }
  }
  if (a.book.link_bytes_per_s > 0) a.book_predicted = finite(predicted_crossover(D, C, a.shape, a.book));
  if (a.empirical.D) {
    const double d = *a.empirical.D;
    if (a.predicted) a.rel_error = (a.predicted->D - d) / d;
    if (a.book_predicted) a.book_rel_error = (a.book_predicted->D - d) / d;
    const auto book_peak = finite(model::d_star(a.shape, a.book));
    if (book_peak && *book_peak > 0 && a.book.link_bytes_per_s > 0 && a.book.flops_per_s > 0 &&
        a.t_comm_book_s > 0 && a.t_comm_measured_s > 0) {
      ErrorBudget b;
      b.D_book_peak = *book_peak;
      b.C_at_D = interpolate_loglog(D, C, d);
      b.compute_efficiency = b.C_at_D / a.book.flops_per_s;
      b.comm_efficiency = a.t_comm_book_s / a.t_comm_measured_s;
      b.residual = d / (b.D_book_peak * b.compute_efficiency / b.comm_efficiency);
      if (std::isfinite(b.residual)) a.budget = b;
    }
  }
  return a;
}

PointDerived derive_point(const SweepPlan& plan, const model::Shape& shape, const RunCeilings& ceilings,
                          const PointRecord& p) {
  PointDerived d;
  const double peak = ceilings.peak_gemm.flops_per_s;
  d.frac_peak = peak > 0 ? p.flops_per_s / peak : 0;
  const double flops = 2.0 * static_cast<double>(plan.B) * static_cast<double>(p.shard_max) *
                       static_cast<double>(plan.F);
  d.step_flops_per_s = p.t_step.median > 0 ? flops / p.t_step.median : 0;
  d.intensity = shape.ranks < 2 ? 0 : model::intensity(shape, static_cast<double>(p.D));
  d.compute_bound = p.t_math.median >= p.t_comm.median;
  d.overlap = overlap_efficiency(p);
  return d;
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

// The model step of a sweep: from the measured records (points and
// ceilings) to the crossover numbers the reports print. Pure: no MPI.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/roofline.h"
#include "sweep/fit.h"
#include "sweep/plan.h"
#include "sweep/runner.h"

namespace shardroof::sweep {

struct SweepAnalysis {
  model::Shape shape;
  model::Ceilings link;          // W, a, g (C unset): what the fit measured
  model::Ceilings peak;          // link + C_peak + M
  double t_comm_model_s = 0;     // T_comm from the fitted link
  EmpiricalCrossover empirical;
  std::optional<PredictedCrossover> predicted;  // C per point, interpolated in D
  std::optional<double> D_peak;                 // C_peak
  std::optional<double> D_roofs;                // C_peak and M (local roofline)
  std::optional<double> rel_error;              // (predicted - empirical) / empirical
};

SweepAnalysis analyze(const SweepPlan& plan, int ranks, const RunCeilings& ceilings,
                      const std::vector<PointRecord>& points);

// Per-point derived numbers.
double intensity(const SweepAnalysis& a, const PointRecord& p);
bool compute_bound(const PointRecord& p);
// Useful FLOPs of the slowest shard per second of the whole step.
double step_flops_per_s(const SweepPlan& plan, const PointRecord& p);

// sweep --overlap: how much of the time that overlap could hide it hid,
//   (T_step - T_overlap) / (T_step - max(T_math, T_comm))   (medians)
// 1: T_overlap reached max(T_math, T_comm); 0: nothing hidden; below 0: the
// chunked step was slower than the plain one. Undefined (no value, and
// `undefined` says why) without an overlapped step, or when the
// denominator is below kMinHideableFraction of T_step: then there is nothing
// measurable to hide, and the ratio of two noise-sized differences would
// mean nothing.
inline constexpr double kMinHideableFraction = 0.01;
struct OverlapEfficiency {
  std::optional<double> value;
  std::string undefined;  // why there is no value
};
OverlapEfficiency overlap_efficiency(const PointRecord& p);

// The defined efficiencies over the points: how many, median, min, max.
struct EfficiencySpread {
  int points = 0;
  double median = 0, min = 0, max = 0;
};
std::optional<EfficiencySpread> overlap_efficiency_spread(const std::vector<PointRecord>& points);

}  // namespace shardroof::sweep

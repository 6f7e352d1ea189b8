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

}  // namespace shardroof::sweep

// The model step of a sweep: from the measured records (points and
// ceilings) to the crossover numbers the reports print. Pure: no MPI.
//
// Three crossovers, kept apart (docs/model.md):
//  - D_empirical: where the measured T_math and T_comm cross, with a 95%
//    bootstrap interval from the per-iteration samples of its two points;
//  - D_book: the book's model fed with ceilings measured apart from the
//    collective under test: the GEMM's rate at each D (C), the ring probe's
//    (or --link-from's) W and alpha, the reduction kernel's g. The
//    prediction a user validates.
//  - D_predicted (calibrated): the model with T_comm = the collective's own
//    median time at S (over the samples of the two points around D*, whose
//    T_comm placed it) and the GEMM's rate at each D; right by
//    construction, it checks the arithmetic, not the physics.
// And the error budget that explains D_empirical from the pure book model:
//   D_empirical = D_book(C_peak) x compute_efficiency / comm_efficiency x residual
//   compute_efficiency = C(D_empirical) / C_peak
//   comm_efficiency    = T_comm_book / T_comm measured at S
// (D* = N*C*T_comm/(2*B*F) for every ring formula, so the factors multiply.)
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/roofline.h"
#include "sweep/fit.h"
#include "sweep/plan.h"
#include "sweep/records.h"

namespace shardroof::sweep {

// The interval's level, its bootstrap replicates, and the half-width `--D
// auto` refines to (a fraction of D*).
inline constexpr double kIntervalLevel = 0.95;
inline constexpr int kBootstrapReplicates = 2000;
inline constexpr double kTargetHalfWidth = 0.10;

struct ErrorBudget {
  double D_book_peak = 0;         // the pure book model: C_peak and the independent link
  double C_at_D = 0;              // the GEMM's rate at D_empirical (interpolated)
  double compute_efficiency = 0;  // C(D_empirical) / C_peak
  double comm_efficiency = 0;     // T_comm_book / T_comm measured at S
  double residual = 0;            // what the two factors leave unexplained
};

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

// The defined efficiencies over the points: how many, median, min, max.
struct EfficiencySpread {
  int points = 0;
  double median = 0, min = 0, max = 0;
};

// What the analysis derives from one point, for the reports to print.
struct PointDerived {
  double frac_peak = 0;         // the GEMM's rate / C_peak (0 without C_peak)
  double step_flops_per_s = 0;  // useful FLOPs of the slowest shard per second of the whole step
  double intensity = 0;         // FLOP per byte communicated (0 on one rank)
  bool compute_bound = false;   // T_math >= T_comm (medians)
  OverlapEfficiency overlap;    // with --overlap
};

struct SweepAnalysis {
  model::Shape shape;
  model::Ceilings book;        // C_peak, M; W and alpha of the link; g
  model::Ceilings calibrated;  // C_peak, M; W_eff from T_comm(S), a = g = 0
  double t_comm_book_s = 0;      // the book's T_comm with the link's W, alpha and g
  // The collective's median at S: over the samples of the two points
  // around D* (every sample of the run when there is no crossing), and
  // over every sample of the run (the ceilings' and each point's).
  double t_comm_measured_s = 0;
  int t_comm_samples = 0;
  double t_comm_run_s = 0;
  int t_comm_run_samples = 0;
  // The points' own T_comm medians, lowest and highest: a collective whose
  // time changes between measurements (a link with two states) moves D*
  // with it, which no interval over one point's samples shows.
  double t_comm_points_min_s = 0, t_comm_points_max_s = 0;
  double W_eff_bytes_per_s = 0;  // the W that T_comm(S) implies with everything in the bandwidth term
  EmpiricalCrossover empirical;
  std::optional<Interval> interval;  // of D_empirical
  std::optional<PredictedCrossover> predicted;  // calibrated, C per point
  std::optional<PredictedCrossover> book_predicted;  // book, C per point
  std::optional<double> D_peak;       // calibrated with C_peak: (N-1)*s*C_peak/W_eff (AllReduce)
  std::optional<double> D_roofs;      // calibrated with C_peak and the memory roof M
  std::optional<double> rel_error;       // (D_predicted - D_empirical) / D_empirical
  std::optional<double> book_rel_error;  // (D_book - D_empirical) / D_empirical
  std::optional<ErrorBudget> budget;
  // One per point, in the points' order.
  std::vector<PointDerived> points;
  // Over the points' defined overlap efficiencies (none without one).
  std::optional<EfficiencySpread> overlap_spread;
  // C_peak / W_eff: compute-bound iff the intensity exceeds it; (N-1)*s
  // times it (AllReduce; half for ReduceScatter) is D_peak.
  double critical_intensity() const;
};

// The plan's seed makes the bootstrap repeatable.
SweepAnalysis analyze(const SweepPlan& plan, int ranks, const RunCeilings& ceilings,
                      const std::vector<PointRecord>& points);

// One point's derived numbers (analyze fills SweepAnalysis::points with them).
PointDerived derive_point(const SweepPlan& plan, const model::Shape& shape, const RunCeilings& ceilings,
                          const PointRecord& p);
OverlapEfficiency overlap_efficiency(const PointRecord& p);
std::optional<EfficiencySpread> overlap_efficiency_spread(const std::vector<PointRecord>& points);

}  // namespace shardroof::sweep

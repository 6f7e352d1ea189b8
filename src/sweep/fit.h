// The model fits a sweep needs, as pure functions of measured numbers (unit
// tested on synthetic curves):
//  - the empirical crossover: every change of sign of T_math - T_comm
//    between neighbouring points, located by log-log interpolation, and
//    what it means when there is no upward one;
//  - its 95% interval: a bootstrap of the per-iteration samples at the two
//    points that bracket it;
//  - a predicted crossover: the model's D* with C interpolated (log-log)
//    between the per-point GEMM rates.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/roofline.h"

namespace shardroof::sweep {

// What the measured points say about the crossover.
enum class CrossingKind {
  NoPoints,
  Bracketed,     // T_math - T_comm turns from negative to >= 0 between two points
  AboveRange,    // every point communication-bound: D* lies above the largest D
  BelowRange,    // every point compute-bound: D* lies below the smallest D
  OnlyDownward,  // the sign changes, but only from compute- to communication-bound
  Tied,          // T_math equals T_comm at every point: no side to extend
};
std::string to_string(CrossingKind k);

struct Crossing {
  double D = 0;
  bool upward = true;     // from communication-bound (below) to compute-bound (above)
  std::size_t lower = 0;  // index of the point below it
  double D_below = 0;     // the two points around it
  double D_above = 0;
};

struct EmpiricalCrossover {
  CrossingKind kind = CrossingKind::NoPoints;
  std::optional<double> D;          // the first upward crossing (kind Bracketed)
  std::size_t lower = 0;            // its bracketing points: lower and lower + 1
  std::vector<Crossing> crossings;  // every change of sign, in order of D
  int sign_changes() const { return static_cast<int>(crossings.size()); }
  // Which way the range must grow: "up", "down", or "" (bracketed, or no direction helps).
  std::string extend() const;
};

// `D` ascending; times > 0. A point with T_math >= T_comm counts as
// compute-bound; the crossing between two points is where log(T_math/T_comm),
// linear in log D between them, is 0.
EmpiricalCrossover empirical_crossover(const std::vector<double>& D, const std::vector<double>& t_math,
                                       const std::vector<double>& t_comm);

// A two-sided interval; `high` may be +infinity and `low` 0 (unbounded).
struct Interval {
  double low = 0;
  double high = 0;
  bool bounded() const;
  // Whether [low, high] lies within +-fraction of `centre`.
  bool within(double centre, double fraction) const;
};

// The per-iteration samples at the two points that bracket a crossing.
struct BracketSamples {
  double D_low = 0, D_high = 0;
  std::vector<double> t_math_low, t_comm_low, t_math_high, t_comm_high;
  // The iterations of each measurement (window) the samples came from, in
  // order (T_math and T_comm alike); empty: one window.
  std::vector<int> windows_low, windows_high;
};

// Percentile bootstrap of the crossing, in two stages: each replicate draws
// a point's measurements again with replacement (as many), then within each
// drawn measurement its samples (as many), takes the medians and places the
// crossing on the log-log line through the two points (outside the pair
// when the replicate's line crosses there; at 0 or +infinity when it does
// not rise). Drawing whole measurements first keeps what holds through one
// measurement (a link's state, a disturbance) together, so measurements
// that disagree widen the interval. T_math is drawn from each point's own
// measurements; T_comm, the same collective at the same size at both
// points, is one level per replicate drawn from both points' measurements
// together (as the calibrated model takes it), so a T_comm that changed
// between them widens the interval too. The interval holds the central `level` of the
// replicates. Deterministic for a given seed. Empty without samples at
// either point.
std::optional<Interval> crossing_interval(const BracketSamples& s, double level, int replicates, std::uint64_t seed);

// The same bootstrap with its distribution: the interval and the 0th to
// 100th percentiles of the replicates (0 and +infinity where a replicate's
// line does not rise): what `shardroof combine` draws a launch's D* from
// (launches, then this launch's rounds and samples).
struct CrossingBootstrap {
  Interval interval;
  std::vector<double> percentiles;  // 101 values, ascending
};
std::optional<CrossingBootstrap> crossing_bootstrap(const BracketSamples& s, double level, int replicates,
                                                    std::uint64_t seed);

// y at x, linear in (log x, log y) between neighbouring samples, constant
// beyond the ends. x ascending, x and y > 0.
double interpolate_loglog(const std::vector<double>& x, const std::vector<double>& y, double at);

// Where a measured T_math curve (D ascending, times > 0) reaches a given
// T_comm level: log-log interpolation between the first point at or above
// it and the one before. Below the first point: none when the first point
// is the GEMM's floor (a shard of one column: nothing lies below it), else
// extrapolated on a slope of 1 (the compute roof). Above the last point:
// extrapolated on a slope of 1.
struct LevelCrossing {
  std::optional<double> D;
  bool extrapolated = false;
  bool below_floor = false;  // the level lies below the GEMM's floor: no crossing
};
LevelCrossing crossing_of_level(const std::vector<double>& D, const std::vector<double>& t_math, double level,
                                bool first_is_floor);

struct PredictedCrossover {
  double D = 0;
  double C_at_D = 0;          // the GEMM rate used at the solution
  bool extrapolated = false;  // the solution lies outside the measured D
};

// Solves D = d_star(shape, ceilings with C = C(D)), C(D) interpolated from
// the measured (D_i, C_i). `link` supplies W, a and g. Empty when there is
// no point or no link.
std::optional<PredictedCrossover> predicted_crossover(const std::vector<double>& D,
                                                      const std::vector<double>& C,
                                                      const model::Shape& shape,
                                                      const model::Ceilings& link);

}  // namespace shardroof::sweep

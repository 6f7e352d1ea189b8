// The model fits a sweep needs, as pure functions of measured numbers (unit
// tested on synthetic curves):
//  - the empirical crossover: log-log interpolation between the two
//    neighbouring points where T_math - T_comm changes sign;
//  - the link parameters alpha and W from a least-squares line through
//    collective timings T(S) = intercept + slope * S;
//  - the predicted crossover with C interpolated (log-log) between the
//    per-point GEMM rates;
//  - the crossover from two roofs (compute at C_peak, memory at M).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/roofline.h"

namespace shardroof::sweep {

struct EmpiricalCrossover {
  std::optional<double> D;  // set when bracketed
  // When not bracketed: "up" (every point communication-bound: extend D
  // upward) or "down" (every point compute-bound: extend D downward).
  std::string extend;
  int sign_changes = 0;     // more than one: noise near the crossing
  std::size_t lower = 0;    // index of the bracketing point below D (when set)
};

// `D` ascending; times > 0. Takes the first change from T_math < T_comm to
// T_math >= T_comm.
EmpiricalCrossover empirical_crossover(const std::vector<double>& D, const std::vector<double>& t_math,
                                       const std::vector<double>& t_comm);

// y at x, linear in (log x, log y) between neighbouring samples, constant
// beyond the ends. x ascending, x and y > 0.
double interpolate_loglog(const std::vector<double>& x, const std::vector<double>& y, double at);

struct LineFit {
  double intercept = 0;
  double slope = 0;
  double r2 = 0;
  bool through_origin = false;  // the free fit gave a negative intercept or slope
};

// Least squares y = intercept + slope * x. When the intercept comes out
// negative or the slope not positive (a latency cannot be negative, nor a
// bandwidth), the line through the origin and the centroid instead. Either
// way the line passes through (mean x, mean y).
LineFit least_squares(const std::vector<double>& x, const std::vector<double>& y);

struct LinkFit {
  double alpha_s = 0;               // a
  double W_bytes_per_s = 0;         // W with the local reduction (g) taken out
  double W_effective_bytes_per_s = 0;  // W if the reduction is folded into the link
  bool reduction_separated = true;  // false: g exceeded the slope, W = W_effective, g not used
};

// alpha and W from T(S) = intercept + slope*S of `collective` on `ranks`
// ranks, with the reduction cost g (s/element) of `bytes_per_elem` taken out
// of the slope (README, "The model").
LinkFit link_from_line(const LineFit& line, model::Collective collective, int ranks, double bytes_per_elem,
                       double g_s_per_elem);

struct PredictedCrossover {
  double D = 0;
  double C_at_D = 0;         // the GEMM rate used at the solution
  bool extrapolated = false;  // the solution lies outside the measured D
};

// Solves D = d_star(shape, ceilings with C = C(D)), C(D) interpolated from
// the measured (D_i, C_i). `link` supplies W, a and g. Empty when there is
// no point or no link.
std::optional<PredictedCrossover> predicted_crossover(const std::vector<double>& D,
                                                      const std::vector<double>& C,
                                                      const model::Shape& shape,
                                                      const model::Ceilings& link);

// D where max(compute at C_peak, memory at M) equals T_comm (both roofs of
// the local step, README, "The model"). `c` supplies all of C, M, W, a, g.
std::optional<double> roofs_crossover(const model::Shape& shape, const model::Ceilings& c);

}  // namespace shardroof::sweep

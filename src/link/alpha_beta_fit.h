// The latency-bandwidth (Hockney) model of one link, t(n) = alpha + n/W,
// fitted to measured one-way times, each parameter where it dominates:
//
//  - the bandwidth regime: the sizes whose time per byte t/n is within a
//    factor 1/kRegimeShare of the largest size's, either way; at least the
//    two largest sizes. For t = alpha + n/W, t/n <= (1/W)/kRegimeShare
//    exactly when n/W >= kRegimeShare * t; a size much cheaper per byte
//    than the largest (inside a shaper's burst, or in a cache) is not the
//    link's bandwidth and stays out. W = 1/slope of the least-squares line
//    through them.
//  - the latency regime: the sizes whose time is within 1/kRegimeShare of
//    the smallest time measured, where alpha is at least kRegimeShare of t.
//    alpha = the median over them of t - n/W, and 0 if that is negative.
//
// One weighted line through every size cannot do this: a link that is not
// alpha + n/W (a shaper that lets the first bytes through at full speed, a
// protocol switch) bends the line, and relative weights then let the many
// small sizes set W. Here W is the large messages' slope, so a burst that
// every message gets for free cancels out, and the fit says how well the
// one model describes every size (max_rel_residual); above
// kTrustedResidual the combined model does not describe the link and the
// report says so beside W.
#pragma once

#include <cstdint>
#include <vector>

namespace shardroof::link {

// The share of the time a term must have for its regime (80%).
inline constexpr double kRegimeShare = 0.8;
// Above this largest relative deviation (25%), t = alpha + n/W does not
// describe the measured times, whatever W and alpha are.
inline constexpr double kTrustedResidual = 0.25;

struct AlphaBetaFit {
  bool valid = false;      // false with fewer than two distinct sizes, or times that fall with size
  double alpha_s = 0;      // latency, seconds
  double beta_s_per_byte = 0;
  double W_bytes_per_s = 0;  // 1 / beta (0 when !valid)
  bool alpha_clamped = false;  // t - n/W came out negative in the latency regime: alpha = 0
  // Sizes (bytes) each parameter came from, ascending.
  std::vector<std::uint64_t> bandwidth_sizes;
  std::vector<std::uint64_t> latency_sizes;
  double max_rel_residual = 0;  // max over every size of |alpha + n/W - t| / t
  std::uint64_t worst_size = 0;  // where that maximum is
  bool trusted() const { return valid && max_rel_residual <= kTrustedResidual; }
};

// Fits t(n) = alpha + n/W to (bytes[i], seconds[i]). Points with seconds
// <= 0 or not finite are ignored.
AlphaBetaFit fit_alpha_beta(const std::vector<std::uint64_t>& bytes, const std::vector<double>& seconds);

}  // namespace shardroof::link

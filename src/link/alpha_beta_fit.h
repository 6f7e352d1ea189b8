// The latency-bandwidth (Hockney) model of one link, fitted to measured
// one-way times: t(n) = alpha + beta * n, with alpha the per-message latency
// (s) and beta = 1/W the seconds per byte (W one-way bandwidth, bytes/s).
//
// The fit is least squares with relative weights (each point weighted by
// 1/t^2, i.e. it minimises the relative residuals): sizes span six or more
// orders of magnitude, and plain least squares would let the largest
// messages decide alpha as well as beta (alpha then comes out as noise,
// often negative). With relative weights the small messages set alpha and
// the large ones set beta. Both parameters are constrained to be >= 0: when
// the free fit gives a negative alpha, the fit is redone with alpha = 0.
#pragma once

#include <cstdint>
#include <vector>

namespace shardroof::link {

struct AlphaBetaFit {
  bool valid = false;      // false with fewer than two distinct sizes or no growth with size
  double alpha_s = 0;      // latency, seconds
  double beta_s_per_byte = 0;
  double W_bytes_per_s = 0;  // 1 / beta (0 when !valid)
  bool alpha_clamped = false;  // the free fit's alpha was negative; refitted with alpha = 0
  double max_rel_residual = 0; // max over points of |t_fit - t| / t
};

// Fits t(n) = alpha + beta*n to (bytes[i], seconds[i]). Points with
// seconds <= 0 are ignored.
AlphaBetaFit fit_alpha_beta(const std::vector<std::uint64_t>& bytes, const std::vector<double>& seconds);

}  // namespace shardroof::link

#include "link/alpha_beta_fit.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace shardroof::link {
namespace {

struct Point {
  double n;
  double t;
};

double max_relative_residual(const std::vector<Point>& pts, double alpha, double beta) {
  double worst = 0;
  for (const auto& p : pts) worst = std::max(worst, std::abs(alpha + beta * p.n - p.t) / p.t);
  return worst;
}

}  // namespace

AlphaBetaFit fit_alpha_beta(const std::vector<std::uint64_t>& bytes, const std::vector<double>& seconds) {
  AlphaBetaFit fit;
  std::vector<Point> pts;
  std::set<std::uint64_t> distinct;
  for (std::size_t i = 0; i < bytes.size() && i < seconds.size(); ++i) {
    if (!(seconds[i] > 0) || !std::isfinite(seconds[i])) continue;
    pts.push_back({static_cast<double>(bytes[i]), seconds[i]});
    distinct.insert(bytes[i]);
  }
  if (distinct.size() < 2) return fit;

  // Weighted normal equations with w = 1/t^2 for the model t = alpha + beta*n.
  double sw = 0, swn = 0, swnn = 0, swt = 0, swnt = 0;
  for (const auto& p : pts) {
    const double w = 1.0 / (p.t * p.t);
    sw += w;
    swn += w * p.n;
    swnn += w * p.n * p.n;
    swt += w * p.t;
    swnt += w * p.n * p.t;
  }
  const double det = sw * swnn - swn * swn;
  double alpha = 0;
  double beta = 0;
  if (det > 0) {
    alpha = (swnn * swt - swn * swnt) / det;
    beta = (sw * swnt - swn * swt) / det;
  }
  if (!(det > 0) || alpha < 0) {
    // Constrained fit alpha = 0: beta = sum(w n t) / sum(w n^2).
    fit.alpha_clamped = det > 0;
    alpha = 0;
    beta = swnn > 0 ? swnt / swnn : 0;
  }
  if (!(beta > 0)) return fit;
  fit.valid = true;
  fit.alpha_s = alpha;
  fit.beta_s_per_byte = beta;
  fit.W_bytes_per_s = 1.0 / beta;
  fit.max_rel_residual = max_relative_residual(pts, alpha, beta);
  return fit;
}

}  // namespace shardroof::link

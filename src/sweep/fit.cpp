#include "sweep/fit.h"

#include <algorithm>
#include <cmath>

namespace shardroof::sweep {

EmpiricalCrossover empirical_crossover(const std::vector<double>& D, const std::vector<double>& t_math,
                                       const std::vector<double>& t_comm) {
  EmpiricalCrossover out;
  const std::size_t n = std::min({D.size(), t_math.size(), t_comm.size()});
  if (n == 0) {
    out.extend = "up";
    return out;
  }
  const auto compute_bound = [&](std::size_t i) { return t_math[i] >= t_comm[i]; };
  for (std::size_t i = 0; i + 1 < n; ++i) {
    if (compute_bound(i) != compute_bound(i + 1)) ++out.sign_changes;
    if (out.D || compute_bound(i) || !compute_bound(i + 1)) continue;
    // r = log(T_math/T_comm) is linear in log D between the two points.
    const double r0 = std::log(t_math[i] / t_comm[i]);
    const double r1 = std::log(t_math[i + 1] / t_comm[i + 1]);
    const double l0 = std::log(D[i]), l1 = std::log(D[i + 1]);
    const double frac = r1 != r0 ? r0 / (r0 - r1) : 0.5;
    out.D = std::exp(l0 + frac * (l1 - l0));
    out.lower = i;
  }
  if (!out.D) {
    // Not bracketed from below: say which way the range must grow.
    out.extend = compute_bound(n - 1) ? "down" : "up";
  }
  return out;
}

double interpolate_loglog(const std::vector<double>& x, const std::vector<double>& y, double at) {
  const std::size_t n = std::min(x.size(), y.size());
  if (n == 0) return 0;
  if (at <= x.front() || n == 1) return y.front();
  if (at >= x[n - 1]) return y[n - 1];
  const auto it = std::upper_bound(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(n), at);
  const std::size_t i = static_cast<std::size_t>(it - x.begin()) - 1;
  const double t = (std::log(at) - std::log(x[i])) / (std::log(x[i + 1]) - std::log(x[i]));
  return std::exp(std::log(y[i]) + t * (std::log(y[i + 1]) - std::log(y[i])));
}

LineFit least_squares(const std::vector<double>& x, const std::vector<double>& y) {
  LineFit fit;
  const std::size_t n = std::min(x.size(), y.size());
  if (n == 0) return fit;
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < n; ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= static_cast<double>(n);
  my /= static_cast<double>(n);
  double sxx = 0, sxy = 0, syy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (sxx > 0) {
    fit.slope = sxy / sxx;
    fit.intercept = my - fit.slope * mx;
  } else {
    fit.intercept = my;
  }
  if (fit.intercept < 0 || (fit.slope <= 0 && my > 0)) {
    // A negative latency, or times that do not grow with the size (noise
    // larger than the bandwidth term over the sizes, on a fast link under
    // load), cannot be inverted into alpha and W. Through the origin and the
    // centroid (slope = sum y / sum x), not the least-squares line through
    // the origin (sum xy / sum x^2): that one leans on the largest x and
    // misses the mean, so its value at the centre of the sizes, the one the
    // model uses, would be off by about a quarter of a negative intercept for
    // sizes S/8..2S.
    fit.slope = mx > 0 ? my / mx : 0;
    fit.intercept = 0;
    fit.through_origin = true;
  }
  double sse = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double e = y[i] - (fit.intercept + fit.slope * x[i]);
    sse += e * e;
  }
  fit.r2 = syy > 0 ? 1 - sse / syy : 1;
  return fit;
}

LinkFit link_from_line(const LineFit& line, model::Collective collective, int ranks, double bytes_per_elem,
                       double g_s_per_elem) {
  LinkFit out;
  if (ranks < 2) return out;
  const double n = ranks;
  // AllReduce: T = 2(N-1)a + S * (2(N-1)/(N W) + (N-1)/N * g/s)
  // ReduceScatter: T = (N-1)a + S * ((N-1)/(N W) + (N-1)/N * g/s)
  const double hops = collective == model::Collective::AllReduce ? 2 * (n - 1) : n - 1;
  const double link_factor = hops / n;
  out.alpha_s = line.intercept / hops;
  const double reduce_per_byte = (n - 1) / n * g_s_per_elem / bytes_per_elem;
  out.W_effective_bytes_per_s = line.slope > 0 ? link_factor / line.slope : 0;
  const double link_slope = line.slope - reduce_per_byte;
  if (link_slope > 0 && g_s_per_elem >= 0) {
    out.W_bytes_per_s = link_factor / link_slope;
  } else {
    out.W_bytes_per_s = out.W_effective_bytes_per_s;
    out.reduction_separated = false;
  }
  return out;
}

std::optional<PredictedCrossover> predicted_crossover(const std::vector<double>& D,
                                                      const std::vector<double>& C,
                                                      const model::Shape& shape,
                                                      const model::Ceilings& link) {
  const std::size_t n = std::min(D.size(), C.size());
  if (n == 0 || link.link_bytes_per_s <= 0 || shape.ranks < 2) return std::nullopt;
  const auto d_star_at = [&](double d) {
    model::Ceilings c = link;
    c.flops_per_s = interpolate_loglog(D, C, d);
    return model::d_star(shape, c);
  };
  // h(D) = log(D*(C(D)) / D): positive below the crossover, negative above.
  const auto h = [&](double d) { return std::log(d_star_at(d) / d); };
  for (std::size_t i = 0; i + 1 < n; ++i) {
    if (h(D[i]) > 0 && h(D[i + 1]) <= 0) {
      double lo = std::log(D[i]), hi = std::log(D[i + 1]);
      for (int it = 0; it < 60; ++it) {
        const double mid = 0.5 * (lo + hi);
        (h(std::exp(mid)) > 0 ? lo : hi) = mid;
      }
      const double d = std::exp(0.5 * (lo + hi));
      return PredictedCrossover{d, interpolate_loglog(D, C, d), false};
    }
  }
  // Outside the measured range: use the rate at the nearer end.
  const bool below = h(D[n - 1]) > 0;  // every point is below the predicted crossover
  const double c_end = below ? C[n - 1] : C[0];
  model::Ceilings c = link;
  c.flops_per_s = c_end;
  return PredictedCrossover{model::d_star(shape, c), c_end, true};
}

std::optional<double> roofs_crossover(const model::Shape& shape, const model::Ceilings& c) {
  if (shape.ranks < 2 || c.flops_per_s <= 0 || c.link_bytes_per_s <= 0) return std::nullopt;
  const double comm = model::t_comm(shape, c);
  // T_math grows with D; bisect in log D over a wide range. ceil(D/N) makes
  // T_math a step function, so the answer is good to one shard element.
  double lo = 0, hi = std::log(1e12);
  if (model::t_math(shape, c, 1.0) >= comm) return 1.0;
  for (int it = 0; it < 80; ++it) {
    const double mid = 0.5 * (lo + hi);
    (model::t_math(shape, c, std::exp(mid)) < comm ? lo : hi) = mid;
  }
  return std::exp(hi);
}

}  // namespace shardroof::sweep

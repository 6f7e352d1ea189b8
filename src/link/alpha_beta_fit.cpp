#include "link/alpha_beta_fit.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace shardroof::link {
namespace {

struct Point {
  std::uint64_t bytes;
  double n;
  double t;
};

std::vector<std::uint64_t> sizes_of(const std::vector<Point>& pts) {
  std::set<std::uint64_t> s;
  for (const auto& p : pts) s.insert(p.bytes);
  return {s.begin(), s.end()};
}

// Slope of the least-squares line through the points (0 when x does not vary).
double ls_slope(const std::vector<Point>& pts) {
  double mx = 0, my = 0;
  for (const auto& p : pts) {
    mx += p.n;
    my += p.t;
  }
  mx /= static_cast<double>(pts.size());
  my /= static_cast<double>(pts.size());
  double sxx = 0, sxy = 0;
  for (const auto& p : pts) {
    sxx += (p.n - mx) * (p.n - mx);
    sxy += (p.n - mx) * (p.t - my);
  }
  return sxx > 0 ? sxy / sxx : 0;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

AlphaBetaFit fit_alpha_beta(const std::vector<std::uint64_t>& bytes, const std::vector<double>& seconds) {
  AlphaBetaFit fit;
  std::vector<Point> pts;
  for (std::size_t i = 0; i < bytes.size() && i < seconds.size(); ++i) {
    if (!(seconds[i] > 0) || !std::isfinite(seconds[i])) continue;
    pts.push_back({bytes[i], static_cast<double>(bytes[i]), seconds[i]});
  }
  std::stable_sort(pts.begin(), pts.end(), [](const Point& a, const Point& b) { return a.bytes < b.bytes; });
  const std::vector<std::uint64_t> distinct = sizes_of(pts);
  if (distinct.size() < 2) return fit;

  // Bandwidth regime: time per byte within a factor 1/kRegimeShare of the largest size's.
  const std::uint64_t largest = distinct.back();
  double per_byte_largest = 0;
  for (const auto& p : pts)
    if (p.bytes == largest) per_byte_largest = std::max(per_byte_largest, p.t / p.n);
  // The two largest sizes always take part (n = 0 has no time per byte).
  const std::uint64_t second = distinct[distinct.size() - 2];
  std::vector<Point> bw;
  for (const auto& p : pts)
    if (p.bytes >= second || (p.n > 0 && p.t / p.n * kRegimeShare <= per_byte_largest &&
                              p.t / p.n >= per_byte_largest * kRegimeShare))
      bw.push_back(p);
  const double beta = ls_slope(bw);
  if (!(beta > 0) || !std::isfinite(1.0 / beta)) return fit;

  // Latency regime: times within 1/kRegimeShare of the smallest time.
  double t_min = pts.front().t;
  for (const auto& p : pts) t_min = std::min(t_min, p.t);
  std::vector<Point> lat;
  std::vector<double> intercepts;
  for (const auto& p : pts) {
    if (p.t * kRegimeShare > t_min) continue;
    lat.push_back(p);
    intercepts.push_back(p.t - p.n * beta);
  }
  double alpha = median(intercepts);
  if (alpha < 0) {
    fit.alpha_clamped = true;
    alpha = 0;
  }

  fit.valid = true;
  fit.alpha_s = alpha;
  fit.beta_s_per_byte = beta;
  fit.W_bytes_per_s = 1.0 / beta;
  fit.bandwidth_sizes = sizes_of(bw);
  fit.latency_sizes = sizes_of(lat);
  for (const auto& p : pts) {
    const double r = std::abs(alpha + beta * p.n - p.t) / p.t;
    if (r > fit.max_rel_residual) {
      fit.max_rel_residual = r;
      fit.worst_size = p.bytes;
    }
  }
  return fit;
}

}  // namespace shardroof::link

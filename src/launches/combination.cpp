#include "launches/combination.h"
#include "timing/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

namespace shardroof::launches {
namespace {


double quantile_sorted(const std::vector<double>& s, double q) {
  if (s.empty()) return 0;
  const double pos = q * static_cast<double>(s.size() - 1);
  const auto i = static_cast<std::size_t>(std::floor(pos));
  const std::size_t j = std::min(i + 1, s.size() - 1);
  if (std::isinf(s[j]) || s[i] == 0) return q < 0.5 ? s[i] : s[j];
  return s[i] + (pos - static_cast<double>(i)) * (s[j] - s[i]);
}

// The regularized incomplete beta function I_x(a, b), by the continued
// fraction of Numerical Recipes' betacf (Lentz's method).
double incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front =
      std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log(1 - x));
  const auto cf = [](double aa, double bb, double xx) {
    constexpr double kTiny = 1e-300;
    double c = 1, d = 1 - (aa + bb) * xx / (aa + 1);
    if (std::abs(d) < kTiny) d = kTiny;
    d = 1 / d;
    double h = d;
    for (int m = 1; m <= 300; ++m) {
      const double m2 = 2.0 * m;
      double num = m * (bb - m) * xx / ((aa + m2 - 1) * (aa + m2));
      d = 1 + num * d;
      c = 1 + num / c;
      if (std::abs(d) < kTiny) d = kTiny;
      if (std::abs(c) < kTiny) c = kTiny;
      d = 1 / d;
      h *= d * c;
      num = -(aa + m) * (aa + bb + m) * xx / ((aa + m2) * (aa + m2 + 1));
      d = 1 + num * d;
      c = 1 + num / c;
      if (std::abs(d) < kTiny) d = kTiny;
      if (std::abs(c) < kTiny) c = kTiny;
      d = 1 / d;
      const double delta = d * c;
      h *= delta;
      if (std::abs(delta - 1) < 1e-14) break;
    }
    return h;
  };
  if (x < (a + 1) / (a + b + 2)) return front * cf(a, b, x) / a;
  return 1 - front * cf(b, a, 1 - x) / b;
}

// P(T <= t) for Student's t with df degrees of freedom.
double student_t_cdf(double t, int df) {
  const double v = df;
  const double x = v / (v + t * t);
  const double tail = 0.5 * incomplete_beta(v / 2, 0.5, x);
  return t >= 0 ? 1 - tail : tail;
}

}  // namespace

double student_t_quantile(double p, int df) {
  if (df < 1) df = 1;
  if (p == 0.5) return 0;
  if (p < 0.5) return -student_t_quantile(1 - p, df);
  // Bisection on the distribution function: monotone, and exact enough.
  double lo = 0, hi = 1;
  while (student_t_cdf(hi, df) < p) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
    const double mid = (lo + hi) / 2;
    (student_t_cdf(mid, df) < p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

double draw_from_percentiles(const std::vector<double>& p, double u) {
  if (p.empty()) return 0;
  if (p.size() == 1) return p.front();
  const double pos = std::clamp(u, 0.0, 1.0) * static_cast<double>(p.size() - 1);
  const auto i = std::min(static_cast<std::size_t>(std::floor(pos)), p.size() - 2);
  const double a = p[i], b = p[i + 1];
  if (std::isinf(a) || std::isinf(b) || a == 0 || b == 0) return pos - static_cast<double>(i) < 0.5 ? a : b;
  // Linear in log: the distributions are of positive, skewed quantities.
  return std::exp(std::log(a) + (pos - static_cast<double>(i)) * (std::log(b) - std::log(a)));
}

double within_sd(const LaunchEstimate& e) {
  if (e.percentiles.size() == 101) {
    const double lo = e.percentiles[16], hi = e.percentiles[84];
    if (lo > 0 && std::isfinite(hi) && hi >= lo) return (std::log(hi) - std::log(lo)) / 2;
  }
  if (e.low > 0 && std::isfinite(e.high) && e.high >= e.low) return (std::log(e.high) - std::log(e.low)) / (2 * 1.96);
  return 0;
}

Combined combine(const std::vector<LaunchEstimate>& launches, double level, int replicates, std::uint64_t seed) {
  Combined c;
  const std::size_t k = launches.size();
  c.launches = static_cast<int>(k);
  if (k == 0) return c;
  std::vector<double> values, logs;
  for (const auto& l : launches) {
    values.push_back(l.value);
    logs.push_back(std::log(l.value));
  }
  c.median = median_of(values);
  // The median's interval: launches, then a draw from each drawn launch's
  // own distribution (its rounds and samples); a launch without one gives
  // its estimate.
  std::mt19937_64 gen(seed);
  const auto uniform = [&] { return static_cast<double>(gen() >> 11) * 0x1.0p-53; };
  std::vector<double> medians;
  medians.reserve(static_cast<std::size_t>(std::max(replicates, 1)));
  std::vector<double> draw(k);
  for (int r = 0; r < replicates; ++r) {
    for (std::size_t i = 0; i < k; ++i) {
      const LaunchEstimate& l = launches[static_cast<std::size_t>(gen() % k)];
      draw[i] = l.percentiles.empty() ? l.value : draw_from_percentiles(l.percentiles, uniform());
    }
    medians.push_back(median_of(draw));
  }
  std::sort(medians.begin(), medians.end());
  const double tail = (1 - level) / 2;
  c.low = std::min(quantile_sorted(medians, tail), c.median);
  c.high = std::max(quantile_sorted(medians, 1 - tail), c.median);
  // Variance components on the log scale.
  double within = 0;
  for (const auto& l : launches) within += within_sd(l) * within_sd(l);
  within /= static_cast<double>(k);
  const double mean = std::accumulate(logs.begin(), logs.end(), 0.0) / static_cast<double>(k);
  double var = 0;
  for (const double v : logs) var += (v - mean) * (v - mean);
  var = k > 1 ? var / static_cast<double>(k - 1) : 0;
  const double between = std::max(0.0, var - within);
  c.between_sd = std::sqrt(between);
  c.within_sd = std::sqrt(within);
  if (between + within > 0) {
    c.between_share = between / (between + within);
    c.within_share = within / (between + within);
  }
  // The next launch: its own launch effect and its own noise, around a
  // mean known from k launches.
  if (k >= 2) {
    const double s = std::sqrt(std::max(var, within));
    const double t = student_t_quantile(1 - tail, static_cast<int>(k) - 1);
    const double half = t * s * std::sqrt(1 + 1.0 / static_cast<double>(k));
    c.predict_low = std::exp(mean - half);
    c.predict_high = std::exp(mean + half);
  }
  for (std::size_t i = 0; i < k; ++i) {
    const auto& l = launches[i];
    if (l.high < c.low || l.low > c.high) c.disagreeing.push_back(i);
  }
  return c;
}

}  // namespace shardroof::launches

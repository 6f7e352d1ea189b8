#include "stability/statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace shardroof::stability {
namespace {

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
    // One step of the fraction: d and c updated by the term's numerator.
    const auto step = [&](double num) {
      d = 1 + num * d;
      c = 1 + num / c;
      if (std::abs(d) < kTiny) d = kTiny;
      if (std::abs(c) < kTiny) c = kTiny;
      d = 1 / d;
      return d * c;
    };
    for (int m = 1; m <= 300; ++m) {
      const double m2 = 2.0 * m;
      h *= step(m * (bb - m) * xx / ((aa + m2 - 1) * (aa + m2)));
      const double delta = step(-(aa + m) * (aa + bb + m) * xx / ((aa + m2) * (aa + m2 + 1)));
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
  const double tail = 0.5 * incomplete_beta(v / 2, 0.5, v / (v + t * t));
  return t >= 0 ? 1 - tail : tail;
}

}  // namespace

double quantile_sorted(const std::vector<double>& sorted, double q, bool positive) {
  if (sorted.empty()) return 0;
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto i = static_cast<std::size_t>(std::floor(pos));
  const std::size_t j = std::min(i + 1, sorted.size() - 1);
  const double a = sorted[i], b = sorted[j];
  if ((positive && a == 0) || std::isinf(a) || std::isinf(b)) return q < 0.5 ? a : b;
  return a + (pos - static_cast<double>(i)) * (b - a);
}

Bounds central(const std::vector<double>& sorted, double level, bool positive) {
  const double tail = (1 - level) / 2;
  return {quantile_sorted(sorted, tail, positive), quantile_sorted(sorted, 1 - tail, positive)};
}

std::vector<double> percentiles_of(const std::vector<double>& sorted) {
  std::vector<double> out;
  if (sorted.empty()) return out;
  out.reserve(101);
  for (int p = 0; p <= 100; ++p) out.push_back(quantile_sorted(sorted, p / 100.0));
  return out;
}

MedianResampler::MedianResampler(const std::vector<SampleWindow>& windows) {
  std::vector<double> flat;
  for (const SampleWindow& w : windows) {
    if (!w.values || w.size == 0 || w.first + w.size > w.values->size()) continue;
    windows_.emplace_back(flat.size(), w.size);
    flat.insert(flat.end(), w.values->begin() + static_cast<std::ptrdiff_t>(w.first),
                w.values->begin() + static_cast<std::ptrdiff_t>(w.first + w.size));
  }
  std::vector<std::uint32_t> by_rank(flat.size());
  std::iota(by_rank.begin(), by_rank.end(), 0u);
  std::stable_sort(by_rank.begin(), by_rank.end(), [&](std::uint32_t a, std::uint32_t b) { return flat[a] < flat[b]; });
  rank_.resize(flat.size());
  sorted_.resize(flat.size());
  for (std::size_t k = 0; k < flat.size(); ++k) {
    rank_[by_rank[k]] = static_cast<std::uint32_t>(k);
    sorted_[k] = flat[by_rank[k]];
  }
  drawn_.assign(flat.size(), 0);
}

double MedianResampler::draw(IndexDraw& pick) {
  if (sorted_.empty()) return 0;
  std::fill(drawn_.begin(), drawn_.end(), 0u);
  std::size_t total = 0;
  for (std::size_t k = 0; k < windows_.size(); ++k) {
    const auto [first, size] = windows_[pick.below(windows_.size())];
    for (std::size_t i = 0; i < size; ++i) ++drawn_[rank_[first + pick.below(size)]];
    total += size;
  }
  // The values at positions (total - 1)/2 and total/2 of the draws in order
  // (the same one for an odd count).
  const std::size_t lo_at = (total - 1) / 2, hi_at = total / 2;
  std::size_t seen = 0, r = 0;
  while (seen + drawn_[r] <= lo_at) seen += drawn_[r++];
  const double lo = sorted_[r];
  while (seen + drawn_[r] <= hi_at) seen += drawn_[r++];
  return 0.5 * (lo + sorted_[r]);
}

MedianInterval median_interval(const TimeStats& t, double level, int replicates, std::uint64_t seed) {
  MedianInterval out;
  if (t.samples.empty() || replicates < 1 || t.samples.size() > 0xffffffffULL) return out;
  MedianResampler resample(windows_of(t));
  IndexDraw pick(seed);
  std::vector<double> medians;
  medians.reserve(static_cast<std::size_t>(replicates));
  for (int r = 0; r < replicates; ++r) medians.push_back(resample.draw(pick));
  std::sort(medians.begin(), medians.end());
  const Bounds b = central(medians, level);
  out.low = std::min(b.low, t.median);
  out.high = std::max(b.high, t.median);
  out.percentiles = percentiles_of(medians);
  return out;
}

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

double normal_quantile(double p) {
  double lo = -40, hi = 40;
  for (int i = 0; i < 200; ++i) {
    const double mid = (lo + hi) / 2;
    (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

Bounds next_launch_interval(double centre, double sd, int launches, int centred_on, double level) {
  const double t = student_t_quantile((1 + level) / 2, std::max(launches, 2) - 1);
  const double half = t * sd * std::sqrt(1 + 1.0 / std::max(centred_on, 1));
  return {std::exp(centre - half), std::exp(centre + half)};
}

}  // namespace shardroof::stability

#include "sweep/fit.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "stability/statistics.h"

namespace shardroof::sweep {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Where log(T_math/T_comm), linear in log D through (l0, r0) and (l1, r1),
// is 0, as a D; for a line that does not rise, the side its mean ratio
// points to (0: compute-bound throughout, +inf: communication-bound).
double line_crossing(double l0, double r0, double l1, double r1) {
  if (r1 > r0) return std::exp(l0 + r0 / (r0 - r1) * (l1 - l0));
  return r0 + r1 < 0 ? kInf : 0.0;
}

}  // namespace

std::string to_string(CrossingKind k) {
  switch (k) {
    case CrossingKind::NoPoints: return "no_points";
    case CrossingKind::Bracketed: return "bracketed";
    case CrossingKind::AboveRange: return "above_range";
    case CrossingKind::BelowRange: return "below_range";
    case CrossingKind::OnlyDownward: return "only_downward";
    case CrossingKind::Tied: return "tied";
  }
  return "?";
}

std::string EmpiricalCrossover::extend() const {
  if (kind == CrossingKind::AboveRange) return "up";
  if (kind == CrossingKind::BelowRange) return "down";
  return "";
}

EmpiricalCrossover empirical_crossover(const std::vector<double>& D, const std::vector<double>& t_math,
                                       const std::vector<double>& t_comm) {
  EmpiricalCrossover out;
  const std::size_t n = std::min({D.size(), t_math.size(), t_comm.size()});
  if (n == 0) return out;
  const auto compute_bound = [&](std::size_t i) { return t_math[i] >= t_comm[i]; };
  for (std::size_t i = 0; i + 1 < n; ++i) {
    if (compute_bound(i) == compute_bound(i + 1)) continue;
    // r = log(T_math/T_comm) is linear in log D between the two points.
    const double r0 = std::log(t_math[i] / t_comm[i]);
    const double r1 = std::log(t_math[i + 1] / t_comm[i + 1]);
    const double l0 = std::log(D[i]), l1 = std::log(D[i + 1]);
    const double frac = r1 != r0 ? r0 / (r0 - r1) : 0.5;
    out.crossings.push_back({std::exp(l0 + frac * (l1 - l0)), !compute_bound(i), i, D[i], D[i + 1]});
  }
  const auto up = std::find_if(out.crossings.begin(), out.crossings.end(), [](const Crossing& c) { return c.upward; });
  if (up != out.crossings.end()) {
    out.kind = CrossingKind::Bracketed;
    out.D = up->D;
    out.lower = up->lower;
  } else if (!out.crossings.empty()) {
    out.kind = CrossingKind::OnlyDownward;
  } else {
    bool tied = true;
    for (std::size_t i = 0; i < n; ++i) tied = tied && t_math[i] == t_comm[i];
    out.kind = tied ? CrossingKind::Tied : compute_bound(0) ? CrossingKind::BelowRange : CrossingKind::AboveRange;
  }
  return out;
}

LevelCrossing crossing_of_level(const std::vector<double>& D, const std::vector<double>& t_math, double level,
                                bool first_is_floor) {
  LevelCrossing out;
  const std::size_t n = std::min(D.size(), t_math.size());
  if (n == 0 || !(level > 0)) return out;
  std::size_t i = 0;
  while (i < n && t_math[i] < level) ++i;
  if (i == 0) {
    if (first_is_floor) {
      out.below_floor = true;
      return out;
    }
    out.D = D[0] * level / t_math[0];
    out.extrapolated = true;
  } else if (i == n) {
    out.D = D[n - 1] * level / t_math[n - 1];
    out.extrapolated = true;
  } else {
    const double l0 = std::log(D[i - 1]), l1 = std::log(D[i]);
    const double r0 = std::log(t_math[i - 1] / level), r1 = std::log(t_math[i] / level);
    const double frac = r1 != r0 ? r0 / (r0 - r1) : 0.5;
    out.D = std::exp(l0 + frac * (l1 - l0));
  }
  return out;
}

bool Interval::bounded() const { return low > 0 && std::isfinite(high); }

bool Interval::within(double centre, double fraction) const {
  return bounded() && low >= (1 - fraction) * centre && high <= (1 + fraction) * centre;
}

std::optional<Interval> crossing_interval(const BracketSamples& s, double level, int replicates, std::uint64_t seed) {
  const auto b = crossing_bootstrap(s, level, replicates, seed);
  if (!b) return std::nullopt;
  return b->interval;
}

std::optional<CrossingBootstrap> crossing_bootstrap(const BracketSamples& s, double level, int replicates,
                                                    std::uint64_t seed) {
  const std::vector<const std::vector<double>*> sets = {&s.t_math_low, &s.t_comm_low, &s.t_math_high, &s.t_comm_high};
  for (const auto* v : sets)
    if (v->empty()) return std::nullopt;
  if (replicates < 1 || !(s.D_low > 0) || !(s.D_high > s.D_low)) return std::nullopt;
  // Each replicate draws the measurements again with replacement, then the
  // samples within each drawn one, and takes their median
  // (stability/statistics.h).
  using stability::windows_of;
  stability::MedianResampler math_low(windows_of(s.t_math_low, s.windows_low));
  stability::MedianResampler math_high(windows_of(s.t_math_high, s.windows_high));
  // T_comm is the same collective at the same size at both points: one
  // level per replicate, drawn from both points' measurements together,
  // so a T_comm that changed between them widens the interval.
  std::vector<stability::SampleWindow> comm_windows = windows_of(s.t_comm_low, s.windows_low);
  for (const auto& w : windows_of(s.t_comm_high, s.windows_high)) comm_windows.push_back(w);
  stability::MedianResampler comm(comm_windows);
  stability::IndexDraw pick(seed);
  const double l0 = std::log(s.D_low), l1 = std::log(s.D_high);
  std::vector<double> crossings;
  crossings.reserve(static_cast<std::size_t>(replicates));
  for (int r = 0; r < replicates; ++r) {
    const double t_comm = comm.draw(pick);
    const double r0 = std::log(math_low.draw(pick) / t_comm);
    const double r1 = std::log(math_high.draw(pick) / t_comm);
    crossings.push_back(line_crossing(l0, r0, l1, r1));
  }
  std::sort(crossings.begin(), crossings.end());
  const stability::Bounds b = stability::central(crossings, level);
  return CrossingBootstrap{Interval{b.low, b.high}, stability::percentiles_of(crossings)};
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

}  // namespace shardroof::sweep

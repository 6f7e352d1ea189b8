#include "launches/combination.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "stability/statistics.h"
#include "timing/stats.h"

namespace shardroof::launches {

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
    const double lo = e.percentiles[kWithinLowPercentile], hi = e.percentiles[kWithinHighPercentile];
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
  stability::IndexDraw pick(seed);
  std::vector<double> medians;
  medians.reserve(static_cast<std::size_t>(std::max(replicates, 1)));
  std::vector<double> draw(k);
  for (int r = 0; r < replicates; ++r) {
    for (std::size_t i = 0; i < k; ++i) {
      const LaunchEstimate& l = launches[pick.below(k)];
      draw[i] = l.percentiles.empty() ? l.value : draw_from_percentiles(l.percentiles, pick.uniform());
    }
    medians.push_back(median_in_place(draw));
  }
  std::sort(medians.begin(), medians.end());
  const stability::Bounds m = stability::central(medians, level);
  c.low = std::min(m.low, c.median);
  c.high = std::max(m.high, c.median);
  // Variance components on the log scale, of every launch but `skip`
  // (none for skip = k), and where they place the next launch: its own
  // launch effect and its own noise, around a mean known from those
  // launches.
  struct Spread {
    double mean = 0, var = 0, within = 0;
    stability::Bounds next;
  };
  const auto spread = [&](std::size_t skip) {
    Spread s;
    const double n = static_cast<double>(skip < k ? k - 1 : k);
    for (std::size_t i = 0; i < k; ++i)
      if (i != skip) {
        s.mean += logs[i] / n;
        s.within += within_sd(launches[i]) * within_sd(launches[i]) / n;
      }
    for (std::size_t i = 0; i < k; ++i)
      if (i != skip) s.var += (logs[i] - s.mean) * (logs[i] - s.mean) / std::max(n - 1, 1.0);
    if (n >= 2)
      s.next = stability::next_launch_interval(s.mean, std::sqrt(std::max(s.var, s.within)), static_cast<int>(n),
                                               static_cast<int>(n), level);
    return s;
  };
  const Spread all = spread(k);
  const double between = std::max(0.0, all.var - all.within);
  c.between_sd = std::sqrt(between);
  c.within_sd = std::sqrt(all.within);
  if (between + all.within > 0) {
    c.between_share = between / (between + all.within);
    c.within_share = all.within / (between + all.within);
  }
  c.predict_low = all.next.low;  // 0 from fewer than two launches
  c.predict_high = all.next.high;
  // A launch disagrees when its own interval misses where the other
  // launches place the next one. Not the median's interval: that shrinks
  // like 1/sqrt(K), so with many launches nearly every launch would miss it.
  for (std::size_t i = 0; k >= 3 && i < k; ++i) {
    const stability::Bounds others = spread(i).next;
    if (launches[i].high < others.low || launches[i].low > others.high) c.disagreeing.push_back(i);
  }
  return c;
}

}  // namespace shardroof::launches

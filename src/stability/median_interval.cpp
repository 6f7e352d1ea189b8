#include "stability/median_interval.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace shardroof::stability {

MedianInterval median_interval(const TimeStats& t, double level, int replicates, std::uint64_t seed) {
  MedianInterval out;
  if (t.samples.empty() || replicates < 1) return out;
  // The measurements: [first, first + size) of the samples; one when the
  // window sizes do not add up.
  std::vector<std::pair<std::size_t, std::size_t>> windows;
  std::size_t sum = 0;
  for (const std::size_t w : t.windows) {
    windows.emplace_back(sum, w);
    sum += w;
  }
  if (windows.empty() || sum != t.samples.size()) windows = {{0, t.samples.size()}};
  std::mt19937_64 gen(seed);
  const auto pick = [&](std::size_t n) { return static_cast<std::size_t>(gen() % n); };
  std::vector<double> draw, medians;
  medians.reserve(static_cast<std::size_t>(replicates));
  for (int r = 0; r < replicates; ++r) {
    draw.clear();
    for (std::size_t k = 0; k < windows.size(); ++k) {
      const auto [first, size] = windows[pick(windows.size())];
      for (std::size_t i = 0; i < size; ++i) draw.push_back(t.samples[first + pick(size)]);
    }
    const std::size_t n = draw.size();
    std::nth_element(draw.begin(), draw.begin() + static_cast<std::ptrdiff_t>(n / 2), draw.end());
    double m = draw[n / 2];
    if (n % 2 == 0) m = 0.5 * (m + *std::max_element(draw.begin(), draw.begin() + static_cast<std::ptrdiff_t>(n / 2)));
    medians.push_back(m);
  }
  std::sort(medians.begin(), medians.end());
  const double tail = (1 - level) / 2;
  const auto at = [&](double q) {
    const double pos = q * static_cast<double>(medians.size() - 1);
    const auto i = static_cast<std::size_t>(std::floor(pos));
    const std::size_t j = std::min(i + 1, medians.size() - 1);
    return medians[i] + (pos - static_cast<double>(i)) * (medians[j] - medians[i]);
  };
  out.low = std::min(at(tail), t.median);
  out.high = std::max(at(1 - tail), t.median);
  return out;
}

}  // namespace shardroof::stability

#include "stability/median_interval.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "stability/resample.h"

namespace shardroof::stability {

MedianInterval median_interval(const TimeStats& t, double level, int replicates, std::uint64_t seed) {
  MedianInterval out;
  if (t.samples.empty() || replicates < 1 || t.samples.size() > 0xffffffffULL) return out;
  // The measurements: [first, first + size) of the samples; one when the
  // window sizes do not add up.
  std::vector<SampleWindow> windows;
  std::size_t sum = 0;
  for (const std::size_t w : t.windows) {
    windows.push_back({&t.samples, sum, w});
    sum += w;
  }
  if (windows.empty() || sum != t.samples.size()) windows = {{&t.samples, 0, t.samples.size()}};
  MedianResampler resample(windows);
  IndexDraw pick(seed);
  std::vector<double> medians;
  medians.reserve(static_cast<std::size_t>(replicates));
  for (int r = 0; r < replicates; ++r) medians.push_back(resample.draw(pick));
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
  out.percentiles.reserve(101);
  for (int p = 0; p <= 100; ++p) out.percentiles.push_back(at(p / 100.0));
  return out;
}

}  // namespace shardroof::stability

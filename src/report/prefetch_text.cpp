#include "report/prefetch_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace shardroof {

std::string prefetch_summary(const std::vector<sweep::PointRecord>& points, const sweep::SweepAnalysis& a,
                             int layers) {
  std::vector<double> errors, hid;
  for (std::size_t i = 0; i < points.size() && i < a.points.size(); ++i) {
    const auto& d = a.points[i].prefetch;
    if (!points[i].prefetch || !d) continue;
    errors.push_back(std::abs(d->predicted_error));
    if (d->efficiency.value) hid.push_back(*d->efficiency.value);
  }
  if (errors.empty()) return "";
  std::sort(errors.begin(), errors.end());
  std::string s = fmt::format(
      "\nprefetch over {} layers: the pipeline model (each layer's gather and GEMM timed alone, two weight buffers) "
      "predicted T_prefetch within a median {:.1f}% (worst {:.1f}%) over {} point{}",
      layers, 100 * errors[errors.size() / 2], 100 * errors.back(), errors.size(), errors.size() == 1 ? "" : "s");
  if (hid.empty()) {
    s += "; the hideable time (T_serial - the ideal pipeline) was below 1% of T_serial at every point.";  // sweep::kMinHideableFraction
    return s;
  }
  std::sort(hid.begin(), hid.end());
  s += fmt::format("; it hid a median {:.0f}% of what the ideal pipeline could hide (min {:.0f}%, max {:.0f}%, "
                   "over {} point{}).",
                   100 * hid[hid.size() / 2], 100 * hid.front(), 100 * hid.back(), hid.size(),
                   hid.size() == 1 ? "" : "s");
  return s;
}

}  // namespace shardroof

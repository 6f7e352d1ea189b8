#include "stability/resample.h"

#include <algorithm>
#include <numeric>

namespace shardroof::stability {

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

}  // namespace shardroof::stability

// The statistics every interval in shardroof is made of, written once:
// quantiles of sorted values, a measurement's windows, the two-stage
// bootstrap of a median (the measurements drawn again with replacement,
// then the samples within each drawn measurement), Student's t, and the
// interval the next launch's estimate falls in. Pure arithmetic, no MPI.
//
// The bootstrap's inner loop: a replicate's median depends only on how
// often it drew each sample, so draws are counted by the sample's rank
// among all of them and the counts are walked to the middle: no copy of the
// drawn values and no selection per replicate. Indices come from our own
// generator's 64-bit output (two per draw, multiply and shift), so every
// standard library and rank gives the same sequence for a seed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "timing/stats.h"

namespace shardroof::stability {

// The q-quantile (0 <= q <= 1) of sorted values, linear between order
// statistics; next to an unbounded value the outer neighbour, so that an
// interval never looks tighter than its replicates. Unbounded: an infinite
// value, and for a positive quantity (a D*, a time) also 0, which stands
// for "below every value" (a replicate that found none). 0 when empty.
double quantile_sorted(const std::vector<double>& sorted, double q, bool positive = true);

struct Bounds {
  double low = 0, high = 0;
};
// The central `level` of sorted values: their (1 - level)/2 and
// (1 + level)/2 quantiles.
Bounds central(const std::vector<double>& sorted, double level, bool positive = true);

// The 0th to 100th percentiles (101 values) of sorted values; empty when
// there are none.
std::vector<double> percentiles_of(const std::vector<double>& sorted);

// Uniform indices below n (n < 2^32), two from each 64-bit draw of
// xoshiro256++ (Blackman and Vigna, "Scrambled linear pseudorandom number
// generators", 2021), seeded through splitmix64: a few instructions per
// draw, where std::mt19937_64 took as long as the rest of the bootstrap.
class IndexDraw {
 public:
  explicit IndexDraw(std::uint64_t seed) {
    for (std::uint64_t& word : s_) {
      seed += 0x9e3779b97f4a7c15ULL;
      std::uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      word = z ^ (z >> 31);
    }
  }
  std::size_t below(std::size_t n) {
    if (!have_) {
      word_ = next();
      have_ = true;
    } else {
      word_ >>= 32;
      have_ = false;
    }
    return static_cast<std::size_t>(((word_ & 0xffffffffULL) * static_cast<std::uint64_t>(n)) >> 32);
  }
  // Uniform in [0, 1), from the top 53 bits of one draw.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[0] + s_[3], 23) + s_[0];
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  std::uint64_t s_[4];
  std::uint64_t word_ = 0;
  bool have_ = false;
};

// Measurements: each a run of consecutive values of one vector.
struct SampleWindow {
  const std::vector<double>* values = nullptr;
  std::size_t first = 0, size = 0;
};

// `values` cut into measurements of `counts` samples each, in order (empty
// counts left out); one measurement of all of them when there are no counts,
// a count is negative, or the counts do not add up to the samples.
template <typename Count>
std::vector<SampleWindow> windows_of(const std::vector<double>& values, const std::vector<Count>& counts) {
  std::vector<SampleWindow> out;
  std::size_t sum = 0;
  bool whole = counts.empty();
  for (const Count c : counts) {
    if (c < 0) whole = true;
    if (c <= 0) continue;
    out.push_back({&values, sum, static_cast<std::size_t>(c)});
    sum += static_cast<std::size_t>(c);
  }
  if (whole || sum != values.size()) out = {{&values, 0, values.size()}};
  return out;
}
inline std::vector<SampleWindow> windows_of(const TimeStats& t) { return windows_of(t.samples, t.windows); }

class MedianResampler {
 public:
  // Empty windows are left out; no window at all gives median 0.
  explicit MedianResampler(const std::vector<SampleWindow>& windows);
  // One replicate: as many measurements as there are, drawn with
  // replacement, each with its own number of samples drawn again; their
  // median (the mean of the middle two for an even count).
  double draw(IndexDraw& pick);
  bool empty() const { return sorted_.empty(); }

 private:
  std::vector<std::pair<std::size_t, std::size_t>> windows_;  // [first, size) in rank_
  std::vector<std::uint32_t> rank_;                           // each sample's rank, by window
  std::vector<double> sorted_;                                // the values by rank
  std::vector<std::uint32_t> drawn_;                          // draws of each rank in a replicate
};

// The interval a row's median should carry when its samples came in
// measurements spread over time (rounds): the two-stage bootstrap, so that
// measurements that disagree (the machine in another state) widen it,
// always holding the median itself. Deterministic for a seed.
struct MedianInterval {
  double low = 0, high = 0;
  // The replicates' 0th..100th percentiles (101 values): the distribution
  // `shardroof combine` draws this launch's median from. Empty for empty
  // statistics.
  std::vector<double> percentiles;
};
// Empty statistics give {0, 0}.
MedianInterval median_interval(const TimeStats& t, double level = 0.95, int replicates = 1000,
                               std::uint64_t seed = 1);

// The p-quantile (0 < p < 1) of Student's t with `df` degrees of freedom
// (df >= 1), from the inverse of its distribution function.
double student_t_quantile(double p, int df);

// The standard normal's p-quantile (0 < p < 1), the same way.
double normal_quantile(double p);

// Where the next launch's estimate falls, with probability `level`, on the
// log scale of a positive quantity:
//   exp(centre +- t(K-1) x s x sqrt(1 + 1/n))
// `sd` (s): one launch's standard deviation of log(value) (its launch
// effect and its own noise), estimated from `launches` (K >= 2) launches,
// hence Student's t on K-1 degrees of freedom; `centre`: the mean of log
// value over `centred_on` (n) launches, whose own error the next launch
// adds to its spread.
Bounds next_launch_interval(double centre, double sd, int launches, int centred_on, double level);

}  // namespace shardroof::stability

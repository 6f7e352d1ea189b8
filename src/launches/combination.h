// Launches combined: one quantity (a sweep's D*, a coll row's time)
// measured by several launches of the same settings, each with its own
// bootstrap distribution (the rounds and samples within that launch), and
// what they say together (Kalibera and Jones, "Rigorous Benchmarking in
// Reasonable Time", ISMM 2013: launches as the top level of a hierarchical
// design). Pure arithmetic on plain records, no MPI, no files.
//
// Everything is computed on the log of the quantity (D* and times are
// positive, and their spreads are ratios):
//   v_i     launch i's own estimate, log
//   w_i     its within-launch variance: the squared half-spread of its
//           bootstrap distribution between its 16th and 84th percentiles
//           (one standard deviation for a normal one), or, without a
//           distribution, from its 95% interval
//   between = max(0, var_i(v_i) - mean_i(w_i))   (the launch effect)
//   within  = mean_i(w_i)
// The across-launch median's interval is a hierarchical bootstrap: each
// replicate draws K launches with replacement, then for each drawn launch
// one value from its own distribution (which already draws its rounds,
// then its samples), and takes the median. The prediction interval for
// the next launch is mean(v) +- t(K-1) * s * sqrt(1 + 1/K) with
// s^2 = max(var(v), within): Student's t for an estimate of the spread
// from K launches, never below what one launch's own noise gives.
#pragma once

#include <cstdint>
#include <vector>

namespace shardroof::launches {

// A launch's within-launch spread is read between these percentiles of its
// distribution: one standard deviation either side for a normal one.
inline constexpr int kWithinLowPercentile = 16, kWithinHighPercentile = 84;

struct LaunchEstimate {
  double value = 0;                  // the launch's own estimate (> 0)
  double low = 0, high = 0;          // its own interval, as it printed it (high may be +inf)
  std::vector<double> percentiles;   // its bootstrap's 0th..100th percentiles; empty: none
};

struct Combined {
  int launches = 0;
  double median = 0;                      // across the launches' estimates
  double low = 0, high = 0;               // the median's interval (hierarchical bootstrap)
  double between_sd = 0, within_sd = 0;   // on the log scale
  double between_share = 0, within_share = 0;
  double predict_low = 0, predict_high = 0;  // where the next launch's estimate falls
  // Launches whose own interval misses the next launch's interval as the
  // other launches predict it (three launches at least).
  std::vector<std::size_t> disagreeing;
};

// `launches` at least 2, every value > 0. Deterministic for `seed`.
Combined combine(const std::vector<LaunchEstimate>& launches, double level = 0.95, int replicates = 4000,
                 std::uint64_t seed = 20240601);

// A draw from a distribution given by its 101 percentiles (0th..100th),
// at uniform u in [0, 1): linear between neighbouring percentiles.
double draw_from_percentiles(const std::vector<double>& percentiles, double u);

// A launch's within-launch standard deviation of log(value): half the
// spread between the kWithin*Percentile percentiles of its distribution, or,
// without one, its 95% interval's half-width / 1.96 (log scale). 0 where
// neither is finite.
double within_sd(const LaunchEstimate& e);

}  // namespace shardroof::launches

// Where a series changed: E-divisive means (Matteson and James, "A
// Nonparametric Approach for Multiple Change Point Analysis of Multivariate
// Data", JASA 2014), the method MongoDB's signal-processing-algorithms use to
// flag performance changes in CI.
//
// For a split of a segment x[a, b) at tau into X = x[a, tau) (n values) and
// Y = x[tau, b) (m values), with alpha = 1:
//   E(tau) = 2/(n m) sum |X_i - Y_j| - 1/C(n,2) sum_{i<k} |X_i - X_k|
//                                    - 1/C(m,2) sum_{j<l} |Y_j - Y_l|
//   Q(tau) = n m / (n + m) * E(tau)
// E is the energy distance between the two sides: zero when they come from
// one distribution, whatever its shape (no normality assumed). The best
// split of a segment is the tau of largest Q. Its significance is a
// permutation test: the values of the segment shuffled, the largest Q over
// splits recomputed, and p = (1 + #{shuffled Q >= observed}) / (1 + R).
// The test stops at the shuffle that settles its verdict: once so many
// shuffles matched the observed Q that p cannot end below the level, the
// remaining ones cannot keep the split (a curtailed test; with R = 199 at
// 1% that is the first such shuffle). A kept split ran all R shuffles.
// Change points are found one at a time (binary segmentation): the most
// significant split over all current segments is kept while its p is below
// the significance level.
//
// The significance level is a statistical convention (1%), not a threshold
// tuned on a machine; how large a change must be to matter to the caller is
// the caller's to say (stability/stability.h).
//
// Cost: O(L log L) per evaluation of a segment of L values (a Fenwick tree
// over the values' ranks, O(L) memory), at most R + 1 evaluations per test
// (a segment without a change stops after a few), at most
// 2 * max_change_points + 1 tests. ChangePointWork counts them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace shardroof::stability {

struct ChangePointOptions {
  double significance = 0.01;   // keep a split while its permutation p is below this
  int permutations = 199;       // R
  std::size_t min_segment = 3;  // values on each side of a split, at least
  std::size_t max_change_points = 8;
  std::uint64_t seed = 1;       // the permutations are deterministic for a seed
  // Stop a test once its verdict is settled (below). Off, every test runs
  // all R shuffles: the same change points and p-values of the kept ones,
  // at a higher cost (what the unit test compares).
  bool curtail = true;
};

struct ChangePoint {
  std::size_t index = 0;  // the first value of the later segment
  double p_value = 1;
  double q = 0;           // Q(tau) at the split
};

// What a search cost: segments tested, shuffles evaluated, and values
// scored over all evaluations (each O(log L)).
struct ChangePointWork {
  std::size_t tests = 0;
  std::size_t permutations = 0;
  std::size_t values = 0;
};

// The change points of `x`, in increasing index order. Values are compared
// by absolute difference: pass log times to compare ratios. Deterministic
// for options.seed; `work`, when given, is added to.
std::vector<ChangePoint> find_change_points(const std::vector<double>& x, const ChangePointOptions& options = {},
                                            ChangePointWork* work = nullptr);

// The largest Q(tau) over the splits of `x` that leave min_segment values on
// each side, and where it is; {0, 0} when no split does.
struct BestSplit {
  std::size_t index = 0;
  double q = 0;
};
BestSplit best_split(const std::vector<double>& x, std::size_t min_segment);

}  // namespace shardroof::stability

#include "stability/change_points.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace shardroof::stability {

BestSplit best_split(const std::vector<double>& x, std::size_t min_segment) {
  const std::size_t L = x.size();
  const std::size_t k = std::max<std::size_t>(min_segment, 2);
  BestSplit best;
  if (L < 2 * k) return best;
  // row[i][j] = |x_i - x_j|; prefix sums along each row make every sum
  // over a block of the matrix O(1) per row.
  std::vector<double> prefix((L + 1) * L, 0.0);  // prefix[i * (L + 1) + j] = sum_{c<j} |x_i - x_c|
  for (std::size_t i = 0; i < L; ++i)
    for (std::size_t j = 0; j < L; ++j)
      prefix[i * (L + 1) + j + 1] = prefix[i * (L + 1) + j] + std::abs(x[i] - x[j]);
  const auto row_sum = [&](std::size_t i, std::size_t from, std::size_t to) {
    return prefix[i * (L + 1) + to] - prefix[i * (L + 1) + from];
  };
  // within(0, tau) and within(tau, L) updated as tau moves right.
  double total = 0;  // sum over i < j of |x_i - x_j|
  for (std::size_t i = 0; i < L; ++i) total += row_sum(i, i + 1, L);
  double left = 0;  // sum over i < j < tau
  for (std::size_t i = 0; i < k; ++i) left += row_sum(i, i + 1, k);
  double right = 0;  // sum over tau <= i < j
  for (std::size_t i = k; i < L; ++i) right += row_sum(i, i + 1, L);
  for (std::size_t tau = k; tau + k <= L; ++tau) {
    if (tau > k) {
      // Value tau - 1 moved from the right side to the left.
      const std::size_t v = tau - 1;
      left += row_sum(v, 0, v);
      right -= row_sum(v, v + 1, L);
    }
    const double n = static_cast<double>(tau), m = static_cast<double>(L - tau);
    const double between = total - left - right;
    const double e = 2 * between / (n * m) - left / (n * (n - 1) / 2) - right / (m * (m - 1) / 2);
    const double q = n * m / (n + m) * e;
    if (q > best.q) best = {tau, q};
  }
  return best;
}

namespace {

struct Segment {
  std::size_t begin = 0, end = 0;
};

// The best split of x[s.begin, s.end) and its permutation p-value.
ChangePoint test_segment(const std::vector<double>& x, Segment s, const ChangePointOptions& o, std::mt19937_64& rng) {
  std::vector<double> part(x.begin() + static_cast<std::ptrdiff_t>(s.begin), x.begin() + static_cast<std::ptrdiff_t>(s.end));
  const BestSplit observed = best_split(part, o.min_segment);
  ChangePoint cp{s.begin + observed.index, 1.0, observed.q};
  if (observed.q <= 0) return cp;
  int as_large = 0;
  for (int r = 0; r < o.permutations; ++r) {
    std::shuffle(part.begin(), part.end(), rng);
    if (best_split(part, o.min_segment).q >= observed.q) ++as_large;
  }
  cp.p_value = (1.0 + as_large) / (1.0 + o.permutations);
  return cp;
}

}  // namespace

std::vector<ChangePoint> find_change_points(const std::vector<double>& x, const ChangePointOptions& options) {
  std::vector<ChangePoint> found;
  std::vector<Segment> segments{{0, x.size()}};
  std::mt19937_64 rng(options.seed);
  // Each segment's test is computed once and kept until the segment splits.
  std::vector<ChangePoint> tests{test_segment(x, segments.front(), options, rng)};
  while (found.size() < options.max_change_points) {
    std::size_t best = segments.size();
    for (std::size_t i = 0; i < segments.size(); ++i) {
      if (tests[i].q <= 0) continue;
      if (best == segments.size() || tests[i].p_value < tests[best].p_value ||
          (tests[i].p_value == tests[best].p_value && tests[i].q > tests[best].q))
        best = i;
    }
    if (best == segments.size() || !(tests[best].p_value < options.significance)) break;
    const ChangePoint cp = tests[best];
    found.push_back(cp);
    const Segment whole = segments[best];
    const Segment a{whole.begin, cp.index}, b{cp.index, whole.end};
    segments[best] = a;
    tests[best] = test_segment(x, a, options, rng);
    segments.insert(segments.begin() + static_cast<std::ptrdiff_t>(best) + 1, b);
    tests.insert(tests.begin() + static_cast<std::ptrdiff_t>(best) + 1, test_segment(x, b, options, rng));
  }
  std::sort(found.begin(), found.end(), [](const ChangePoint& p, const ChangePoint& q) { return p.index < q.index; });
  return found;
}

}  // namespace shardroof::stability

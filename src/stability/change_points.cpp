#include "stability/change_points.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace shardroof::stability {
namespace {

// The best split of a series whose values are fixed and whose order is
// not: the segment under test and its shuffles. What does not depend on
// the order is computed once: each value's rank, its summed distance to
// every other value, the sum over all pairs. A split is then scored in
// O(L log L) with a Fenwick tree over the ranks of the left side (no
// L x L matrix), and the buffers are reused from one shuffle to the next.
class SplitScorer {
 public:
  explicit SplitScorer(std::vector<double> values) : x_(std::move(values)) {
    const std::size_t L = x_.size();
    std::vector<std::size_t> by_value(L);
    std::iota(by_value.begin(), by_value.end(), std::size_t{0});
    std::stable_sort(by_value.begin(), by_value.end(), [&](std::size_t a, std::size_t b) { return x_[a] < x_[b]; });
    rank_.resize(L);
    to_all_.resize(L);
    // With the values sorted, value k is sum_{j<k}(v_k - v_j) +
    // sum_{j>k}(v_j - v_k) away from the others.
    double below = 0, all = 0;
    for (std::size_t k = 0; k < L; ++k) all += x_[by_value[k]];
    for (std::size_t k = 0; k < L; ++k) {
      const std::size_t i = by_value[k];
      const double v = x_[i];
      rank_[i] = k;
      const double above = all - below - v;
      to_all_[i] = v * static_cast<double>(k) - below + above - v * static_cast<double>(L - 1 - k);
      total_ += v * static_cast<double>(k) - below;  // each pair once, from its larger value
      below += v;
    }
    count_.assign(L + 1, 0);
    sum_.assign(L + 1, 0.0);
  }

  std::size_t size() const { return x_.size(); }

  // The best split of x_[order[0]], x_[order[1]], ... leaving at least
  // min_segment values on each side.
  BestSplit best(const std::vector<std::size_t>& order, std::size_t min_segment) {
    const std::size_t L = order.size();
    const std::size_t k = std::max<std::size_t>(min_segment, 2);
    BestSplit out;
    if (L < 2 * k) return out;
    std::fill(count_.begin(), count_.end(), 0);
    std::fill(sum_.begin(), sum_.end(), 0.0);
    double left = 0;     // sum over pairs within the left side
    double between = 0;  // sum over pairs with one value on each side
    double left_sum = 0;
    for (std::size_t tau = 1; tau + k <= L; ++tau) {
      // Value order[tau - 1] moves from the right side to the left.
      const std::size_t i = order[tau - 1];
      const double v = x_[i];
      std::size_t less = 0;
      double less_sum = 0;
      for (std::size_t r = rank_[i]; r > 0; r &= r - 1) {
        less += count_[r];
        less_sum += sum_[r];
      }
      const std::size_t more = tau - 1 - less;
      const double to_left = v * static_cast<double>(less) - less_sum + (left_sum - less_sum) - v * static_cast<double>(more);
      left += to_left;
      between += to_all_[i] - 2 * to_left;
      left_sum += v;
      for (std::size_t r = rank_[i] + 1; r <= L; r += r & (~r + 1)) {
        ++count_[r];
        sum_[r] += v;
      }
      if (tau < k) continue;
      const double n = static_cast<double>(tau), m = static_cast<double>(L - tau);
      const double right = total_ - left - between;
      const double e = 2 * between / (n * m) - left / (n * (n - 1) / 2) - right / (m * (m - 1) / 2);
      const double q = n * m / (n + m) * e;
      if (q > out.q) out = {tau, q};
    }
    return out;
  }

 private:
  std::vector<double> x_;
  std::vector<std::size_t> rank_;  // 0 = smallest; ties in order of position
  std::vector<double> to_all_;     // sum_j |x_i - x_j|
  double total_ = 0;               // sum over i < j of |x_i - x_j|
  std::vector<std::size_t> count_;  // Fenwick tree over ranks: values on the left side
  std::vector<double> sum_;         // and their sum
};

struct Segment {
  std::size_t begin = 0, end = 0;
};

// One generator per segment, from the seed and where the segment lies: a
// test's shuffles do not depend on how many an earlier test drew (which
// the early stop below varies).
std::mt19937_64 segment_rng(std::uint64_t seed, Segment s) {
  std::uint64_t z = seed ^ (0x9e3779b97f4a7c15ULL * (s.begin + 1)) ^ (0xbf58476d1ce4e5b9ULL * (s.end + 1));
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return std::mt19937_64(z ^ (z >> 31));
}

// The best split of x[s.begin, s.end) and its permutation p-value. The test
// stops at the shuffle that decides it: once `as_large` shuffles matched or
// beat the observed split, p = (1 + as_large)/(1 + R) cannot end below
// `significance` whatever the remaining shuffles give, so the verdict is the
// one all R shuffles would give (a curtailed test); p is then the least the
// full test could have given, at least the level. A split that is kept ran
// all R shuffles and carries its exact p.
ChangePoint test_segment(const std::vector<double>& x, Segment s, const ChangePointOptions& o,
                         ChangePointWork& work) {
  SplitScorer scorer(std::vector<double>(x.begin() + static_cast<std::ptrdiff_t>(s.begin),
                                         x.begin() + static_cast<std::ptrdiff_t>(s.end)));
  std::vector<std::size_t> order(scorer.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  ++work.tests;
  work.values += order.size();
  const BestSplit observed = scorer.best(order, o.min_segment);
  ChangePoint cp{s.begin + observed.index, 1.0, observed.q};
  if (observed.q <= 0) return cp;
  std::mt19937_64 rng = segment_rng(o.seed, s);
  const double R = static_cast<double>(o.permutations);
  int as_large = 0;
  for (int r = 0; r < o.permutations; ++r) {
    std::shuffle(order.begin(), order.end(), rng);
    ++work.permutations;
    work.values += order.size();
    if (scorer.best(order, o.min_segment).q >= observed.q && (1.0 + ++as_large) / (1.0 + R) >= o.significance &&
        o.curtail)
      break;
  }
  cp.p_value = (1.0 + as_large) / (1.0 + R);
  return cp;
}

}  // namespace

BestSplit best_split(const std::vector<double>& x, std::size_t min_segment) {
  SplitScorer scorer(x);
  std::vector<std::size_t> order(x.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  return scorer.best(order, min_segment);
}

std::vector<ChangePoint> find_change_points(const std::vector<double>& x, const ChangePointOptions& options,
                                            ChangePointWork* work) {
  ChangePointWork local;
  ChangePointWork& w = work ? *work : local;
  std::vector<ChangePoint> found;
  std::vector<Segment> segments{{0, x.size()}};
  // Each segment's test is computed once and kept until the segment splits.
  std::vector<ChangePoint> tests{test_segment(x, segments.front(), options, w)};
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
    tests[best] = test_segment(x, a, options, w);
    segments.insert(segments.begin() + static_cast<std::ptrdiff_t>(best) + 1, b);
    tests.insert(tests.begin() + static_cast<std::ptrdiff_t>(best) + 1, test_segment(x, b, options, w));
  }
  std::sort(found.begin(), found.end(), [](const ChangePoint& p, const ChangePoint& q) { return p.index < q.index; });
  return found;
}

}  // namespace shardroof::stability

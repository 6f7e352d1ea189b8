// Unit tests of the sweep's pure parts: sharding along D, the empirical
// crossover fit, interpolation, the link fit and the predictions.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "model/roofline.h"
#include "sweep/ceilings.h"
#include "sweep/check.h"
#include "sweep/fit.h"
#include "sweep/plan.h"

namespace shardroof::sweep {
namespace {

TEST(Sharding, CoversDInOrderWithBalancedShards) {
  for (int n = 1; n <= 5; ++n) {
    for (std::size_t D : {0ul, 1ul, 3ul, 4ul, 7ul, 64ul, 1000ul, 1001ul}) {
      std::size_t next = 0, biggest = 0, smallest = D + 1;
      for (int r = 0; r < n; ++r) {
        const Shard s = shard_of(D, n, r);
        EXPECT_EQ(s.offset, next) << "D=" << D << " n=" << n << " r=" << r;
        next += s.size;
        biggest = std::max(biggest, s.size);
        smallest = std::min(smallest, s.size);
      }
      EXPECT_EQ(next, D);
      EXPECT_LE(biggest - smallest, 1u);
      EXPECT_DOUBLE_EQ(static_cast<double>(biggest), model::slowest_shard(static_cast<double>(D), n));
    }
  }
}

TEST(Sharding, FewerColumnsThanRanksLeavesSomeRanksEmpty) {
  EXPECT_EQ(shard_of(2, 4, 0).size, 1u);
  EXPECT_EQ(shard_of(2, 4, 1).size, 1u);
  EXPECT_EQ(shard_of(2, 4, 2).size, 0u);
  EXPECT_EQ(shard_of(2, 4, 3).size, 0u);
  EXPECT_EQ(shard_of(2, 4, 3).offset, 2u);
}

// T_comm constant, T_math = D / rate: the exact crossing is c * rate.
std::vector<double> linear_math(const std::vector<double>& D, double rate) {
  std::vector<double> t;
  for (double d : D) t.push_back(d / rate);
  return t;
}

TEST(EmpiricalCrossover, FindsAKnownCrossingExactlyForPowerLaws) {
  const std::vector<double> D = {16, 32, 64, 128, 256, 512};
  const auto tm = linear_math(D, 1e6);  // T_math = D * 1e-6
  const std::vector<double> tc(D.size(), 100e-6);  // crosses at D = 100
  const auto c = empirical_crossover(D, tm, tc);
  ASSERT_TRUE(c.D.has_value());
  EXPECT_NEAR(*c.D, 100.0, 1e-9);
  EXPECT_EQ(c.sign_changes, 1);
  EXPECT_EQ(c.lower, 2u);  // between 64 and 128
}

TEST(EmpiricalCrossover, NotBracketedSaysWhichWayToExtend) {
  const std::vector<double> D = {16, 32, 64};
  const auto tm = linear_math(D, 1e6);
  const auto up = empirical_crossover(D, tm, std::vector<double>(3, 1.0));
  EXPECT_FALSE(up.D.has_value());
  EXPECT_EQ(up.extend, "up");
  const auto down = empirical_crossover(D, tm, std::vector<double>(3, 1e-9));
  EXPECT_FALSE(down.D.has_value());
  EXPECT_EQ(down.extend, "down");
}

TEST(EmpiricalCrossover, SinglePointIsNeverBracketed) {
  const auto c = empirical_crossover({64}, {1e-3}, {2e-3});
  EXPECT_FALSE(c.D.has_value());
  EXPECT_EQ(c.extend, "up");
  const auto none = empirical_crossover({}, {}, {});
  EXPECT_FALSE(none.D.has_value());
}

TEST(EmpiricalCrossover, NoisyPointsTakeTheFirstUpwardCrossingAndCountTheOthers) {
  const std::vector<double> D = {16, 32, 64, 128, 256, 512, 1024};
  // Crosses near 48, dips back under at 256 (noise), then stays above.
  const std::vector<double> tm = {0.2, 0.6, 1.3, 2.1, 0.9, 5.0, 9.0};
  const std::vector<double> tc = {1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0};
  const auto c = empirical_crossover(D, tm, tc);
  ASSERT_TRUE(c.D.has_value());
  EXPECT_GT(*c.D, 32);
  EXPECT_LT(*c.D, 64);
  EXPECT_EQ(c.sign_changes, 3);
  // The interpolated point lies on the log-log chord between its neighbours.
  const double r0 = std::log(0.6), r1 = std::log(1.3);
  EXPECT_NEAR(std::log(*c.D), std::log(32.0) + r0 / (r0 - r1) * std::log(2.0), 1e-12);
}

TEST(Interpolation, LogLogIsExactForPowerLawsAndClampsAtTheEnds) {
  const std::vector<double> x = {10, 100, 1000};
  const std::vector<double> y = {1, 10, 100};  // y = x / 10
  EXPECT_NEAR(interpolate_loglog(x, y, 31.6227766), 3.16227766, 1e-6);
  EXPECT_DOUBLE_EQ(interpolate_loglog(x, y, 1), 1);
  EXPECT_DOUBLE_EQ(interpolate_loglog(x, y, 1e6), 100);
  EXPECT_DOUBLE_EQ(interpolate_loglog({5}, {7}, 100), 7);
}

TEST(LeastSquares, RecoversALineAndRefusesNegativeIntercepts) {
  const std::vector<double> x = {1, 2, 4, 8};
  std::vector<double> y;
  for (double v : x) y.push_back(3e-6 + 2e-9 * v);
  const auto fit = least_squares(x, y);
  EXPECT_NEAR(fit.intercept, 3e-6, 1e-15);
  EXPECT_NEAR(fit.slope, 2e-9, 1e-18);
  EXPECT_NEAR(fit.r2, 1.0, 1e-12);
  EXPECT_FALSE(fit.through_origin);
  const auto forced = least_squares({1, 2, 3}, {0.5, 2.1, 3.3});  // free intercept < 0
  EXPECT_TRUE(forced.through_origin);
  EXPECT_DOUBLE_EQ(forced.intercept, 0);
  EXPECT_GT(forced.slope, 0);
}

TEST(LeastSquares, ANegativeInterceptKeepsTheLineThroughTheCentroid) {
  // Times with a constant head start (a shaped link's burst): T = (S - h)/W.
  const std::vector<double> x = {2e6, 3e6, 4e6, 5e6, 6e6};
  std::vector<double> y;
  for (double v : x) y.push_back((v - 0.25e6) / 1e8);
  const auto fit = least_squares(x, y);
  EXPECT_TRUE(fit.through_origin);
  EXPECT_DOUBLE_EQ(fit.intercept, 0);
  // At the mean size the line gives the mean time, as the free fit would
  // (the least-squares line through the origin, slope sum xy / sum x^2, is
  // 0.7% high here).
  EXPECT_NEAR((fit.intercept + fit.slope * 4e6) / ((4e6 - 0.25e6) / 1e8), 1.0, 1e-12);
}

TEST(LeastSquares, TimesThatDoNotGrowWithSizeStillGiveAPositiveSlopeThroughTheCentroid) {
  // Noise above the bandwidth term: the free line falls with x.
  const auto fit = least_squares({1e5, 2e5, 3e5}, {12e-6, 11e-6, 10e-6});
  EXPECT_TRUE(fit.through_origin);
  EXPECT_DOUBLE_EQ(fit.intercept, 0);
  EXPECT_NEAR(fit.slope, 11e-6 / 2e5, 1e-18);
  const auto link = link_from_line(fit, model::Collective::AllReduce, 2, 4, 0);
  EXPECT_GT(link.W_bytes_per_s, 0);
}

TEST(FitSizes, AreCentredOnTheModelsSize) {
  for (const std::uint64_t S : {std::uint64_t{4} << 20, std::uint64_t{1000} * 4, std::uint64_t{3} * 1024 * 1024 * 2}) {
    const auto sizes = fit_sizes(S, 4);
    ASSERT_EQ(sizes.size(), 5u);
    double mean = 0;
    for (const auto b : sizes) {
      EXPECT_EQ(b % 4, 0u);
      mean += static_cast<double>(b) / 5;
    }
    EXPECT_NEAR(mean / static_cast<double>(S), 1.0, 1e-3);
    EXPECT_EQ(sizes[2], S);
  }
  EXPECT_EQ(fit_sizes(4, 4), std::vector<std::uint64_t>{4});  // one element: nothing smaller to time
}

TEST(FitSizes, GiveTheTimeAtTheCentreForCurvedTimings) {
  // A transport whose time per byte grows with the size (T = k S^1.4, as a
  // shaped TCP link whose queue delays the acknowledgements) and one whose
  // small sizes are cheap (a burst's head start): the model uses the line at
  // S alone, which must stay close to T(S).
  const double S = 4.0 * (1 << 20);
  const auto line_at_S = [&](const std::vector<std::uint64_t>& sizes, auto T) {
    std::vector<double> x, y;
    for (const auto b : sizes) {
      x.push_back(static_cast<double>(b));
      y.push_back(T(static_cast<double>(b)));
    }
    const auto fit = least_squares(x, y);
    return (fit.intercept + fit.slope * S) / T(S);
  };
  const auto convex = [](double b) { return 1e-9 * std::pow(b, 1.4); };
  const auto burst = [](double b) { return std::max(b - 0.25 * (1 << 20), 0.0) / 3e7; };
  // Only the curvature over S/2..3S/2 remains: the mean of S^1.4 there is 3.6% high.
  EXPECT_NEAR(line_at_S(fit_sizes(static_cast<std::uint64_t>(S), 4), convex), 1.0, 0.04);
  EXPECT_NEAR(line_at_S(fit_sizes(static_cast<std::uint64_t>(S), 4), burst), 1.0, 1e-9);
  // The former sizes S/8..2S gave 1.22 here: T_comm, and so D*, 22% high.
  const std::vector<std::uint64_t> wide = {1 << 19, 1 << 20, 1 << 21, 1 << 22, 1 << 23};
  EXPECT_GT(line_at_S(wide, convex), 1.08);
}

TEST(LinkFit, InvertsTheRingModel) {
  for (const auto coll : {model::Collective::AllReduce, model::Collective::ReduceScatter}) {
    for (int n : {2, 3, 8}) {
      model::Shape shape;
      shape.ranks = n;
      shape.bytes_per_elem = 4;
      shape.collective = coll;
      model::Ceilings truth;
      truth.link_bytes_per_s = 5e9;
      truth.latency_s = 2e-6;
      truth.reduce_s_per_elem = 0.3e-9;
      // Times of the model at several sizes, then the inverse.
      std::vector<double> S, T;
      for (double bytes : {1e5, 1e6, 4e6}) {
        shape.B = bytes / 4;
        shape.F = 1;
        S.push_back(bytes);
        T.push_back(model::t_comm(shape, truth));
      }
      const auto link = link_from_line(least_squares(S, T), coll, n, 4, truth.reduce_s_per_elem);
      EXPECT_NEAR(link.W_bytes_per_s / truth.link_bytes_per_s, 1.0, 1e-9);
      EXPECT_NEAR(link.alpha_s / truth.latency_s, 1.0, 1e-6);
      EXPECT_TRUE(link.reduction_separated);
      EXPECT_LT(link.W_effective_bytes_per_s, link.W_bytes_per_s);
    }
  }
}

TEST(PredictedCrossover, ConstantRateMatchesTheClosedForm) {
  model::Shape shape{1024, 1024, 2, 4, model::Collective::AllReduce};
  model::Ceilings link;
  link.link_bytes_per_s = 2e9;
  link.latency_s = 5e-6;
  const std::vector<double> D = {16, 64, 256, 1024, 4096};
  const std::vector<double> C(D.size(), 4e10);
  const auto p = predicted_crossover(D, C, shape, link);
  ASSERT_TRUE(p.has_value());
  model::Ceilings c = link;
  c.flops_per_s = 4e10;
  EXPECT_NEAR(p->D / model::d_star(shape, c), 1.0, 1e-9);
  EXPECT_FALSE(p->extrapolated);
}

TEST(PredictedCrossover, RateThatGrowsWithDIsSolvedSelfConsistently) {
  model::Shape shape{1024, 1024, 2, 4, model::Collective::AllReduce};
  model::Ceilings link;
  link.link_bytes_per_s = 1e8;
  // C = 1e9 * sqrt(D/16), so D*(D) = s*C/W = 10*sqrt(D): the fixed point is D = 100.
  const std::vector<double> D = {16, 64, 256};
  const std::vector<double> C = {1e9, 2e9, 4e9};
  const auto p = predicted_crossover(D, C, shape, link);
  ASSERT_TRUE(p.has_value());
  EXPECT_NEAR(p->D, 100, 1e-6);
  EXPECT_NEAR(p->C_at_D, 2.5e9, 1e-3);
  EXPECT_FALSE(p->extrapolated);
}

TEST(PredictedCrossover, OutsideTheRangeExtrapolatesWithTheEndRate) {
  model::Shape shape{1024, 1024, 2, 4, model::Collective::AllReduce};
  model::Ceilings link;
  link.link_bytes_per_s = 1e6;  // very slow link: D* far above the range
  const auto p = predicted_crossover({16, 32}, {1e9, 2e9}, shape, link);
  ASSERT_TRUE(p.has_value());
  EXPECT_TRUE(p->extrapolated);
  EXPECT_NEAR(p->D, 4 * 2e9 / 1e6, 1e-6);
  EXPECT_FALSE(predicted_crossover({}, {}, shape, link).has_value());
}

TEST(RoofsCrossover, EqualsTheClosedFormWithoutAMemoryRoof) {
  model::Shape shape{1024, 1024, 2, 4, model::Collective::AllReduce};
  model::Ceilings c;
  c.flops_per_s = 1e11;
  c.link_bytes_per_s = 1e10;
  const auto d = roofs_crossover(shape, c);
  ASSERT_TRUE(d.has_value());
  // ceil(D/N) makes T_math a staircase: agreement to one shard step.
  EXPECT_NEAR(*d, model::d_star(shape, c), 2.0);
  c.memory_bytes_per_s = 1e9;  // a slow memory pulls the crossover down
  EXPECT_LT(*roofs_crossover(shape, c), *d);
}

TEST(CheckTolerance, GrowsWithTheInnerLengthAndTheDatatype) {
  EXPECT_LT(product_tolerance(coll::DataType::Double, 64, 2), product_tolerance(coll::DataType::Float, 64, 2));
  EXPECT_LT(product_tolerance(coll::DataType::Float, 64, 2), product_tolerance(coll::DataType::BFloat16, 64, 2));
  EXPECT_LT(product_tolerance(coll::DataType::Float, 64, 2), product_tolerance(coll::DataType::Float, 4096, 2));
}

}  // namespace
}  // namespace shardroof::sweep

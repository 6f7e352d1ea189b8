// Unit tests of the sweep's pure parts: sharding along D, the empirical
// crossover and its edge cases, its bootstrap interval, interpolation and
// the predictions.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "model/roofline.h"
#include "sweep/check.h"
#include "sweep/fit.h"
#include "sweep/plan.h"
#include "sweep/two_level.h"

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
  EXPECT_EQ(c.kind, CrossingKind::Bracketed);
  EXPECT_EQ(c.sign_changes(), 1);
  EXPECT_EQ(c.lower, 2u);  // between 64 and 128
  EXPECT_EQ(c.extend(), "");
}

// The edge cases, each with what the points say.
TEST(EmpiricalCrossover, EveryPointOnOneSideSaysWhichWayToExtend) {
  const std::vector<double> D = {16, 32, 64};
  const auto tm = linear_math(D, 1e6);
  const auto up = empirical_crossover(D, tm, std::vector<double>(3, 1.0));
  EXPECT_FALSE(up.D.has_value());
  EXPECT_EQ(up.kind, CrossingKind::AboveRange);
  EXPECT_EQ(up.extend(), "up");
  const auto down = empirical_crossover(D, tm, std::vector<double>(3, 1e-9));
  EXPECT_FALSE(down.D.has_value());
  EXPECT_EQ(down.kind, CrossingKind::BelowRange);
  EXPECT_EQ(down.extend(), "down");
}

TEST(EmpiricalCrossover, ASinglePointOrNoneIsNeverBracketed) {
  const auto c = empirical_crossover({64}, {1e-3}, {2e-3});
  EXPECT_FALSE(c.D.has_value());
  EXPECT_EQ(c.kind, CrossingKind::AboveRange);
  EXPECT_EQ(empirical_crossover({64}, {3e-3}, {2e-3}).kind, CrossingKind::BelowRange);
  const auto none = empirical_crossover({}, {}, {});
  EXPECT_FALSE(none.D.has_value());
  EXPECT_EQ(none.kind, CrossingKind::NoPoints);
  EXPECT_EQ(none.extend(), "");
}

TEST(EmpiricalCrossover, CrossingOnlyDownwardIsNotACrossover) {
  // Compute-bound at 16 and 32, communication-bound above: T_comm grew with D.
  const std::vector<double> D = {16, 32, 64, 128};
  const auto c = empirical_crossover(D, {2, 2, 2, 2}, {1, 1.5, 3, 4});
  EXPECT_FALSE(c.D.has_value());
  EXPECT_EQ(c.kind, CrossingKind::OnlyDownward);
  EXPECT_EQ(c.extend(), "");  // neither way helps
  ASSERT_EQ(c.sign_changes(), 1);
  EXPECT_FALSE(c.crossings[0].upward);
  // r = log(T_math/T_comm): log(4/3) at 32, log(2/3) at 64, log(2) apart, so
  // the crossing is log(4/3)/log(2) of the way in log D: 32 * 4/3.
  EXPECT_NEAR(c.crossings[0].D, 32 * 4 / 3.0, 1e-9);
  EXPECT_EQ(c.crossings[0].D_below, 32);
  EXPECT_EQ(c.crossings[0].D_above, 64);
}

TEST(EmpiricalCrossover, EqualTimesEverywhereAreTied) {
  const std::vector<double> D = {16, 32, 64};
  const std::vector<double> t = {1e-3, 1e-3, 1e-3};
  const auto c = empirical_crossover(D, t, t);
  EXPECT_EQ(c.kind, CrossingKind::Tied);
  EXPECT_FALSE(c.D.has_value());
  EXPECT_EQ(c.extend(), "");
  // The same times at every D but T_math below T_comm: every point is
  // communication-bound, D* above.
  EXPECT_EQ(empirical_crossover(D, t, {2e-3, 2e-3, 2e-3}).kind, CrossingKind::AboveRange);
}

TEST(EmpiricalCrossover, SeveralCrossingsTakeTheFirstUpwardOneAndListEvery) {
  const std::vector<double> D = {16, 32, 64, 128, 256, 512, 1024};
  // Crosses up near 48, back down before 256 (noise), then up again.
  const std::vector<double> tm = {0.2, 0.6, 1.3, 2.1, 0.9, 5.0, 9.0};
  const std::vector<double> tc = {1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0};
  const auto c = empirical_crossover(D, tm, tc);
  ASSERT_TRUE(c.D.has_value());
  EXPECT_EQ(c.kind, CrossingKind::Bracketed);
  EXPECT_GT(*c.D, 32);
  EXPECT_LT(*c.D, 64);
  ASSERT_EQ(c.sign_changes(), 3);
  EXPECT_TRUE(c.crossings[0].upward);
  EXPECT_FALSE(c.crossings[1].upward);
  EXPECT_TRUE(c.crossings[2].upward);
  // The interpolated point lies on the log-log chord between its neighbours.
  const double r0 = std::log(0.6), r1 = std::log(1.3);
  EXPECT_NEAR(std::log(*c.D), std::log(32.0) + r0 / (r0 - r1) * std::log(2.0), 1e-12);
}

TEST(EmpiricalCrossover, StartingComputeBoundThenCrossingUpReportsTheUpwardCrossing) {
  const std::vector<double> D = {16, 32, 64, 128};
  const auto c = empirical_crossover(D, {2, 0.5, 0.8, 3}, {1, 1, 1, 1});
  ASSERT_TRUE(c.D.has_value());
  EXPECT_GT(*c.D, 64);
  EXPECT_LT(*c.D, 128);
  ASSERT_EQ(c.sign_changes(), 2);
  EXPECT_FALSE(c.crossings[0].upward);
  EXPECT_EQ(c.lower, 2u);
}

// Samples whose medians cross exactly at D = 100 between 64 and 128.
BracketSamples samples_crossing_at_100(double spread) {
  BracketSamples s;
  s.D_low = 64;
  s.D_high = 128;
  const std::vector<double> jitter = {1 - spread, 1, 1 + spread, 1 - spread / 2, 1 + spread / 2};
  for (double j : jitter) {
    s.t_math_low.push_back(64e-6 * j);
    s.t_comm_low.push_back(100e-6 * j);
    s.t_math_high.push_back(128e-6 * j);
    s.t_comm_high.push_back(100e-6 / j);
  }
  return s;
}

TEST(CrossingInterval, IdenticalSamplesGiveAPointAndNoiseAnIntervalAroundIt) {
  const auto exact = crossing_interval(samples_crossing_at_100(0), 0.95, 500, 1);
  ASSERT_TRUE(exact.has_value());
  EXPECT_NEAR(exact->low, 100, 1e-9);
  EXPECT_NEAR(exact->high, 100, 1e-9);
  const auto noisy = crossing_interval(samples_crossing_at_100(0.2), 0.95, 2000, 1);
  ASSERT_TRUE(noisy.has_value());
  EXPECT_LT(noisy->low, 100);
  EXPECT_GT(noisy->high, 100);
  EXPECT_TRUE(noisy->bounded());
  EXPECT_FALSE(noisy->within(100, 0.01));
  // Wider noise, a wider interval; the same seed, the same interval.
  const auto wider = crossing_interval(samples_crossing_at_100(0.4), 0.95, 2000, 1);
  EXPECT_GT(wider->high / wider->low, noisy->high / noisy->low);
  const auto again = crossing_interval(samples_crossing_at_100(0.2), 0.95, 2000, 1);
  EXPECT_EQ(again->low, noisy->low);
  EXPECT_EQ(again->high, noisy->high);
}

// Two measurements at the lower point: 5 iterations, then 15 (as --D auto
// takes them). When their T_comm agree the interval stays narrow; when the
// second took 1.5x as long (a link in another state), the replicates draw
// the three measurements' T_comm (these two and the upper point's) in
// different mixes, and the interval widens to show that they disagree.
TEST(CrossingInterval, MeasurementsThatDisagreeWidenIt) {
  const auto two_measurements = [](double second) {
    BracketSamples s = samples_crossing_at_100(0.05);
    const std::vector<double> tm = s.t_math_low, tc = s.t_comm_low;
    for (int k = 0; k < 3; ++k)
      for (std::size_t i = 0; i < tm.size(); ++i) {
        s.t_math_low.push_back(tm[i]);
        s.t_comm_low.push_back(tc[i] * second);
      }
    s.windows_low = {5, 15};
    return s;
  };
  const auto width = [](const BracketSamples& s) {
    const auto i = crossing_interval(s, 0.95, 2000, 3);
    return i->high / i->low;
  };
  EXPECT_GT(width(two_measurements(1.5)), 1.2 * width(two_measurements(1.0)));
  // Counts that do not add up to the samples: one measurement.
  BracketSamples odd = two_measurements(1.0);
  odd.windows_low = {5, 14};
  EXPECT_TRUE(crossing_interval(odd, 0.95, 2000, 3).has_value());
}

// T_comm does not depend on D: when it changed between the two points'
// measurements (130 us at the upper one, 100 at the lower), the replicates'
// T_comm level is drawn from both, and the interval widens.
TEST(CrossingInterval, ATCommThatChangedBetweenThePointsWidensIt) {
  const auto width = [](const BracketSamples& s) {
    const auto i = crossing_interval(s, 0.95, 2000, 5);
    return i->high / i->low;
  };
  BracketSamples changed = samples_crossing_at_100(0.05);
  for (double& t : changed.t_comm_high) t *= 1.3;
  EXPECT_GT(width(changed), 1.2 * width(samples_crossing_at_100(0.05)));
}

TEST(CrossingInterval, ReplicatesThatDoNotCrossMakeItUnbounded) {
  // At the upper point T_math is 0.5 or 3 against T_comm = 2: about half
  // the replicates' medians fall below the lower point's ratio, a line
  // that never rises to a crossing, so the upper side is open.
  BracketSamples s;
  s.D_low = 64;
  s.D_high = 128;
  s.t_math_low = {1, 1, 1, 1};
  s.t_comm_low = {2, 2, 2, 2};
  s.t_math_high = {0.5, 3, 0.5, 3, 0.5};
  s.t_comm_high = {2, 2, 2, 2, 2};
  const auto i = crossing_interval(s, 0.95, 2000, 7);
  ASSERT_TRUE(i.has_value());
  EXPECT_FALSE(i->bounded());
  EXPECT_TRUE(std::isinf(i->high));
  EXPECT_FALSE(i->within(128, 0.5));
  EXPECT_FALSE(crossing_interval({}, 0.95, 100, 1).has_value());
}

TEST(Interpolation, LogLogIsExactForPowerLawsAndClampsAtTheEnds) {
  const std::vector<double> x = {10, 100, 1000};
  const std::vector<double> y = {1, 10, 100};  // y = x / 10
  EXPECT_NEAR(interpolate_loglog(x, y, 31.6227766), 3.16227766, 1e-6);
  EXPECT_DOUBLE_EQ(interpolate_loglog(x, y, 1), 1);
  EXPECT_DOUBLE_EQ(interpolate_loglog(x, y, 1e6), 100);
  EXPECT_DOUBLE_EQ(interpolate_loglog({5}, {7}, 100), 7);
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

TEST(PredictedCrossover, BelowTheRangeExtrapolatesWithTheFirstRate) {
  model::Shape shape{1024, 1024, 2, 4, model::Collective::AllReduce};
  model::Ceilings link;
  link.link_bytes_per_s = 1e12;  // very fast link: D* = 4*C/W far below the range
  const auto p = predicted_crossover({256, 512}, {1e9, 2e9}, shape, link);
  ASSERT_TRUE(p.has_value());
  EXPECT_TRUE(p->extrapolated);
  EXPECT_DOUBLE_EQ(p->C_at_D, 1e9);
  EXPECT_NEAR(p->D, 4 * 1e9 / 1e12, 1e-12);
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

TEST(CheckTolerance, GrowsWithTheInnerLengthAndTheDatatype) {
  EXPECT_LT(product_tolerance(coll::DataType::Double, 64, 2), product_tolerance(coll::DataType::Float, 64, 2));
  EXPECT_LT(product_tolerance(coll::DataType::Float, 64, 2), product_tolerance(coll::DataType::BFloat16, 64, 2));
  EXPECT_LT(product_tolerance(coll::DataType::Float, 64, 2), product_tolerance(coll::DataType::Float, 4096, 2));
}

link::AlphaBetaFit fit_of(double W, double alpha, bool valid = true) {
  link::AlphaBetaFit f;
  f.valid = valid;
  f.W_bytes_per_s = W;
  f.alpha_s = alpha;
  return f;
}

TEST(TwoLevelLinks, OneFlowBetweenNodesIsTheFastestMeasurement) {
  // One ring alone read half the link (its two directions serialized), the
  // other the whole; the whole ring's probe matched.
  model::LinkLevel w = one_flow_between_nodes({fit_of(59e6, 1e-4), fit_of(118e6, 5e-5)}, {117e6, 9e-5}, 2e9);
  EXPECT_DOUBLE_EQ(w.bytes_per_s, 118e6);
  EXPECT_DOUBLE_EQ(w.latency_s, 5e-5);
  // Both rings alone at half: the whole ring's probe.
  w = one_flow_between_nodes({fit_of(30e6, 1e-4), fit_of(30e6, 2e-4)}, {59e6, 9e-5}, 2e9);
  EXPECT_DOUBLE_EQ(w.bytes_per_s, 59e6);
  EXPECT_DOUBLE_EQ(w.latency_s, 9e-5);
  // The whole ring is slower inside the nodes than across: it says nothing
  // of the link between them.
  w = one_flow_between_nodes({fit_of(30e6, 1e-4)}, {59e6, 9e-5}, 50e6);
  EXPECT_DOUBLE_EQ(w.bytes_per_s, 30e6);
  // Invalid fits are skipped; nothing measured: 0.
  w = one_flow_between_nodes({fit_of(500e6, 1e-4, false), fit_of(40e6, 1e-4)}, {}, 2e9);
  EXPECT_DOUBLE_EQ(w.bytes_per_s, 40e6);
  EXPECT_DOUBLE_EQ(one_flow_between_nodes({}, {}, 2e9).bytes_per_s, 0);
}

}  // namespace
}  // namespace shardroof::sweep

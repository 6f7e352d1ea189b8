// The statistics module against hand values (quantiles, central intervals,
// windows, the resampled median, the next launch's interval), then change
// points and stability verdicts on constructed series: a step is found
// where it is, noise alone is one distribution, a small step is
// drift and a large one unstable, blocks join two measurements only when
// they are shorter than a block, levels and states carry what the reports
// print, a curtailed permutation test decides as the full one, and the
// work of a search stays bounded however many windows a run has.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "stability/change_points.h"
#include "stability/statistics.h"
#include "stability/stability.h"

namespace shardroof::stability {
namespace {

std::vector<double> noise(std::size_t n, double level, double spread, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> d(0, spread);
  std::vector<double> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(level + d(rng));
  return out;
}

TEST(ChangePoints, AStepIsFoundWhereItIs) {
  std::vector<double> x = noise(40, 0.0, 0.1, 1);
  const std::vector<double> after = noise(30, 1.0, 0.1, 2);
  x.insert(x.end(), after.begin(), after.end());
  const auto cps = find_change_points(x);
  ASSERT_EQ(cps.size(), 1u);
  EXPECT_EQ(cps[0].index, 40u);
  EXPECT_LT(cps[0].p_value, 0.01);
}

TEST(ChangePoints, TwoStepsAreBothFoundInOrder) {
  std::vector<double> x = noise(30, 0.0, 0.1, 3);
  for (const double v : noise(30, 1.5, 0.1, 4)) x.push_back(v);
  for (const double v : noise(30, 0.0, 0.1, 5)) x.push_back(v);
  const auto cps = find_change_points(x);
  ASSERT_EQ(cps.size(), 2u);
  EXPECT_EQ(cps[0].index, 30u);
  EXPECT_EQ(cps[1].index, 60u);
}

TEST(ChangePoints, NoiseAloneHasNone) {
  // At a 1% level a few of many seeds may find one; these do not, and over
  // twenty series at most one may.
  int found = 0;
  for (std::uint64_t seed = 10; seed < 30; ++seed) found += !find_change_points(noise(80, 0.0, 0.3, seed), {}).empty();
  EXPECT_LE(found, 1);
}

TEST(ChangePoints, TooShortASeriesCannotSplit) {
  EXPECT_TRUE(find_change_points({0, 0, 1, 1}).empty());
  EXPECT_EQ(best_split({0, 0, 0, 5, 5, 5}, 3).index, 3u);
  EXPECT_EQ(best_split({0, 0, 0, 5, 5}, 3).q, 0);
}

TEST(ChangePoints, ACurtailedTestKeepsWhatTheFullTestKeeps) {
  // Stopping a test once no later shuffle can make it significant must not
  // change a verdict: the same change points, the same p-values of the kept
  // ones, over series with and without steps; and it must save most of the
  // shuffles of a segment without a change.
  std::size_t curtailed_work = 0, full_work = 0, null_curtailed = 0, null_full = 0;
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    const std::size_t n = 20 + static_cast<std::size_t>(seed * 7 % 100);
    std::vector<double> x = noise(n, 0.0, 0.2, seed);
    const bool steps = seed % 3 != 0;
    if (steps)
      for (std::size_t i = n / 3; i < n; ++i) x[i] += i < 2 * n / 3 ? 0.5 : 0.2;
    ChangePointOptions curtailed, full;
    full.curtail = false;
    ChangePointWork a, b;
    const auto cut = find_change_points(x, curtailed, &a);
    const auto all = find_change_points(x, full, &b);
    ASSERT_EQ(cut.size(), all.size()) << "seed " << seed;
    for (std::size_t i = 0; i < cut.size(); ++i) {
      EXPECT_EQ(cut[i].index, all[i].index) << "seed " << seed;
      EXPECT_EQ(cut[i].p_value, all[i].p_value) << "seed " << seed;
    }
    EXPECT_LE(a.permutations, b.permutations);
    curtailed_work += a.permutations;
    full_work += b.permutations;
    if (!steps) {
      null_curtailed += a.permutations;
      null_full += b.permutations;
    }
  }
  EXPECT_LT(curtailed_work, full_work);
  EXPECT_LT(null_curtailed * 5, null_full);
}

// Windows of `samples` samples of `level` (+-5%), one every second.
std::vector<TimedWindow> windows(int count, double level, double start_s, std::uint64_t label, int samples = 10) {
  std::vector<TimedWindow> out;
  std::mt19937_64 rng(static_cast<std::uint64_t>(start_s * 1000) + label);
  std::uniform_real_distribution<double> u(0.95, 1.05);
  for (int w = 0; w < count; ++w) {
    TimedWindow t;
    t.label = label;
    for (int i = 0; i < samples; ++i) {
      t.samples.push_back(level * u(rng));
      t.stamps.push_back(start_s + w + 0.01 * i);
    }
    out.push_back(t);
  }
  return out;
}

std::vector<TimedWindow> join(std::vector<TimedWindow> a, const std::vector<TimedWindow>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(Stability, OneLevelIsStable) {
  const Stability s = assess(windows(20, 1e-3, 0, 8), 1.22);
  EXPECT_EQ(s.verdict, Verdict::Stable);
  ASSERT_EQ(s.levels.size(), 1u);
  EXPECT_NEAR(s.levels[0].median, 1e-3, 5e-5);
  EXPECT_EQ(s.levels[0].samples, 200u);
  EXPECT_EQ(s.samples, 200u);
  ASSERT_EQ(s.states.size(), 1u);
  EXPECT_DOUBLE_EQ(s.states[0].share, 1.0);
}

TEST(Stability, AFourfoldChangeIsUnstableWithItsTimeAndLabels) {
  // 0.36 ms at D = 11 for 12 s, then 1.46 ms at D = 13: the example the
  // console's line is made for.
  const Stability s = assess(join(windows(12, 0.36e-3, 0, 11), windows(12, 1.46e-3, 12, 13)), 1.22);
  EXPECT_EQ(s.verdict, Verdict::Unstable);
  ASSERT_EQ(s.levels.size(), 2u);
  EXPECT_NEAR(s.levels[0].median, 0.36e-3, 2e-5);
  EXPECT_NEAR(s.levels[1].median, 1.46e-3, 8e-5);
  EXPECT_NEAR(s.levels[1].begin_s, 12, 1e-9);
  EXPECT_EQ(s.levels[0].last_label, 11u);
  EXPECT_EQ(s.levels[1].first_label, 13u);
  EXPECT_NEAR(s.max_ratio, 1.46 / 0.36, 0.2);
  ASSERT_EQ(s.states.size(), 2u);
  EXPECT_NEAR(s.states[0].share, 0.5, 1e-9);
}

TEST(Stability, ASmallChangeIsDriftNotUnstable) {
  // 10% up: significant over so many blocks, but within the 1.22x that matters.
  const Stability s = assess(join(windows(15, 1e-3, 0, 1), windows(15, 1.1e-3, 15, 1)), 1.22);
  EXPECT_EQ(s.verdict, Verdict::Drift);
  EXPECT_EQ(s.levels.size(), 1u);
  EXPECT_GE(s.change_points, 1u);
}

TEST(Stability, AlternatingStatesAreThreeLevelsAndTwoStates) {
  const Stability s =
      assess(join(join(windows(10, 1e-3, 0, 1), windows(10, 3e-3, 10, 1)), windows(10, 1.05e-3, 20, 1)), 1.22);
  EXPECT_EQ(s.verdict, Verdict::Unstable);
  EXPECT_EQ(s.levels.size(), 3u);
  ASSERT_EQ(s.states.size(), 2u);
  EXPECT_NEAR(s.states[0].share, 2.0 / 3, 1e-9);
  EXPECT_LT(s.states[0].median, s.states[1].median);
}

TEST(Stability, BlocksKeepToTheirWindowAndTimeOrdersThem) {
  // Two interleaved measurements (labels 1 and 2) whose windows alternate
  // in time: a change at 10 s shows in both, whatever order they are given.
  std::vector<TimedWindow> all;
  for (int w = 0; w < 20; ++w) {
    const double level = w < 10 ? 1e-3 : 2e-3;
    for (const std::uint64_t label : {2u, 1u}) {
      TimedWindow t;
      t.label = label;
      for (int i = 0; i < 6; ++i) {
        t.samples.push_back(level * (1 + 0.01 * i));
        t.stamps.push_back(w + (label == 1 ? 0.0 : 0.5) + 0.01 * i);
      }
      all.push_back(t);
    }
  }
  const Stability s = assess(all, 1.22);
  EXPECT_EQ(s.verdict, Verdict::Unstable);
  ASSERT_EQ(s.levels.size(), 2u);
  EXPECT_NEAR(s.levels[1].begin_s, 10, 1e-9);
  EXPECT_EQ(s.blocks, 40u);  // one block per window of 6 samples
}

TEST(Stability, ShortWindowsJoinInTimeOrder) {
  // Windows of 2 samples (a block holds at least 5): each block joins
  // three windows in time order, and a change still shows where it was.
  std::vector<TimedWindow> all;
  for (int w = 0; w < 100; ++w) {
    TimedWindow t;
    t.label = static_cast<std::uint64_t>(w % 3);
    for (int i = 0; i < 2; ++i) {
      t.samples.push_back((w < 51 ? 1e-3 : 3e-3) * (1 + 0.01 * i));
      t.stamps.push_back(w + 0.1 * i);
    }
    all.push_back(t);
  }
  const Stability s = assess(all, 1.22);
  EXPECT_EQ(s.blocks, 33u);  // 100 windows, three to a block (the last block four)
  EXPECT_EQ(s.verdict, Verdict::Unstable);
  ASSERT_EQ(s.levels.size(), 2u);
  EXPECT_NEAR(s.levels[1].begin_s, 51, 1e-9);
  EXPECT_EQ(s.levels[0].labels.size(), 3u);
}

TEST(Stability, ItsCostIsBoundedHoweverManyWindows) {
  // A long run of many short rounds: 24 rows x 2000 windows of 20 samples
  // over 100 s, the machine twice as slow from 30 to 60 s. The change-point
  // search sees at most kMaxBlocks blocks and runs at most
  // 2 * max_change_points + 1 tests of at most R shuffles each: its work
  // does not grow with the windows.
  std::vector<TimedWindow> all;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0.95, 1.05);
  for (std::uint64_t row = 0; row < 24; ++row)
    for (int w = 0; w < 2000; ++w) {
      TimedWindow t;
      t.label = row;
      const double start = w * 0.05 + row * 0.002;
      for (int i = 0; i < 20; ++i) {
        const double stamp = start + i * 1e-4;
        t.samples.push_back((stamp >= 30 && stamp < 60 ? 2.0 : 1.0) * u(rng));
        t.stamps.push_back(stamp);
      }
      all.push_back(std::move(t));
    }
  const ChangePointOptions options;
  const Stability s = assess(all, 1.22, options);
  EXPECT_EQ(s.samples, 24u * 2000u * 20u);
  EXPECT_LE(s.blocks, kMaxBlocks);
  EXPECT_GE(s.blocks, kMaxBlocks / 2);
  EXPECT_EQ(s.verdict, Verdict::Unstable);
  EXPECT_EQ(s.states.size(), 2u);
  const std::size_t tests = 2 * options.max_change_points + 1;
  const auto R = static_cast<std::size_t>(options.permutations);
  EXPECT_LE(s.work.tests, tests);
  EXPECT_LE(s.work.permutations, tests * R);
  EXPECT_LE(s.work.values, tests * (R + 1) * kMaxBlocks);
}

TEST(Stability, TooFewSamplesSaySo) {
  const Stability s = assess(windows(2, 1e-3, 0, 1, 5), 1.22);
  EXPECT_EQ(s.verdict, Verdict::TooFew);
  EXPECT_EQ(assess({}, 1.22).verdict, Verdict::TooFew);
}

TimeStats rounds_of(const std::vector<double>& levels, int per_round) {
  std::vector<double> all;
  std::vector<std::size_t> windows;
  for (const double l : levels) {
    for (int i = 0; i < per_round; ++i) all.push_back(l * (1 + 0.001 * i));
    windows.push_back(static_cast<std::size_t>(per_round));
  }
  TimeStats t = summarize(all);
  t.windows = windows;
  return t;
}

TEST(Statistics, QuantilesAsByHand) {
  const std::vector<double> v = {1, 2, 3, 4, 5};
  EXPECT_DOUBLE_EQ(quantile_sorted(v, 0.5), 3);
  EXPECT_DOUBLE_EQ(quantile_sorted(v, 0.25), 2);
  EXPECT_DOUBLE_EQ(quantile_sorted(v, 0.1), 1.4);
  EXPECT_DOUBLE_EQ(quantile_sorted(v, 1), 5);
  EXPECT_EQ(quantile_sorted({}, 0.5), 0);
  // Next to an unbounded value, the outer neighbour: 0 for a positive
  // quantity, +inf always; a log-scale value of 0 is an ordinary value.
  EXPECT_DOUBLE_EQ(quantile_sorted({0, 2, 4}, 0.25), 0);
  EXPECT_DOUBLE_EQ(quantile_sorted({0, 2, 4}, 0.25, false), 1);
  EXPECT_TRUE(std::isinf(quantile_sorted({1, 2, INFINITY}, 0.75)));
  const Bounds quartiles = central(v, 0.5);
  EXPECT_DOUBLE_EQ(quartiles.low, 2);
  EXPECT_DOUBLE_EQ(quartiles.high, 4);
  const std::vector<double> p = percentiles_of(v);
  ASSERT_EQ(p.size(), 101u);
  EXPECT_DOUBLE_EQ(p[0], 1);
  EXPECT_DOUBLE_EQ(p[50], 3);
  EXPECT_DOUBLE_EQ(p[10], 1.4);
  EXPECT_DOUBLE_EQ(p[100], 5);
}

TEST(Statistics, WindowsFromCountsOrOneForAll) {
  const std::vector<double> v = {1, 2, 3, 4, 5};
  const auto two = windows_of(v, std::vector<int>{2, 0, 3});
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[1].first, 2u);
  EXPECT_EQ(two[1].size, 3u);
  EXPECT_EQ(windows_of(v, std::vector<int>{2, 2}).size(), 1u);   // do not add up
  EXPECT_EQ(windows_of(v, std::vector<int>{6, -1}).size(), 1u);  // a negative count
  const auto all = windows_of(v, std::vector<std::size_t>{});
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].size, 5u);
}

TEST(Statistics, TheResampledMedianOfOneValueIsThatValue) {
  const std::vector<double> same(10, 7.0), mixed = {1, 2, 3, 4, 5, 6};
  MedianResampler r({{&same, 0, 4}, {&same, 4, 6}});
  IndexDraw pick(3);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(r.draw(pick), 7.0);
  // Every replicate's median is a median of drawn values: within their range.
  MedianResampler m(windows_of(mixed, std::vector<int>{3, 3}));
  for (int i = 0; i < 100; ++i) {
    const double x = m.draw(pick);
    EXPECT_GE(x, 1);
    EXPECT_LE(x, 6);
  }
  EXPECT_EQ(MedianResampler({}).draw(pick), 0);
}

TEST(Statistics, TheNextLaunchAsByHand) {
  // t(2) at 97.5% = 4.3027: exp(log 100 +- 4.3027 x 0.1 x sqrt(1 + 1/3)).
  const Bounds three = next_launch_interval(std::log(100.0), 0.1, 3, 3, 0.95);
  EXPECT_NEAR(three.low, 100 * std::exp(-4.3027 * 0.1 * std::sqrt(4.0 / 3)), 1e-3);
  EXPECT_NEAR(three.high, 100 * std::exp(4.3027 * 0.1 * std::sqrt(4.0 / 3)), 1e-3);
  // Ten launches' spread around one launch's value: t(9) = 2.2622, sqrt(2).
  const Bounds one = next_launch_interval(std::log(50.0), 0.2, 10, 1, 0.95);
  EXPECT_NEAR(std::log(one.high / 50), 2.2622 * 0.2 * std::sqrt(2.0), 1e-4);
  EXPECT_NEAR(std::log(50 / one.low), 2.2622 * 0.2 * std::sqrt(2.0), 1e-4);
  // 90%: t(4) at 95% = 2.1318.
  const Bounds ninety = next_launch_interval(0, 1, 5, 5, 0.90);
  EXPECT_NEAR(std::log(ninety.high), 2.1318 * std::sqrt(1.2), 1e-3);
}

TEST(MedianInterval, RoundsThatAgreeGiveATightIntervalAndRoundsThatDisagreeAWideOne) {
  const TimeStats same = rounds_of({1.0, 1.0, 1.0, 1.0, 1.0}, 20);
  const MedianInterval tight = median_interval(same);
  EXPECT_LE(tight.low, same.median);
  EXPECT_GE(tight.high, same.median);
  EXPECT_LT(tight.high / tight.low, 1.03);
  // Three rounds at 1, two at 3: a bootstrap over the rounds sees either.
  const TimeStats split = rounds_of({1.0, 3.0, 1.0, 3.0, 1.0}, 20);
  const MedianInterval wide = median_interval(split);
  EXPECT_LT(wide.low, 1.05);
  EXPECT_GT(wide.high, 2.9);
  EXPECT_EQ(median_interval(TimeStats{}).high, 0);
}

}  // namespace
}  // namespace shardroof::stability

// The straggler analysis (timing/stragglers.h): each rank's percentiles, the
// finish time (skew + own time) that names a rank, and the 10% threshold
// against the median rank; measurements taken again keep each rank's times.
#include <gtest/gtest.h>

#include "timing/stragglers.h"

namespace shardroof {
namespace {

TimeStats with_ranks(std::vector<std::vector<double>> own, std::vector<std::vector<double>> skew = {}) {
  TimeStats t;
  t.per_rank = std::move(own);
  t.per_rank_skew = std::move(skew);
  return t;
}

TEST(Stragglers, SummarizesEachRanksTimesSkewsAndFinish) {
  const auto ranks = rank_summaries(with_ranks({{1, 2, 3}, {4, 5, 6}}, {{0, 0, 1}, {1, 1, 0}}));
  ASSERT_EQ(ranks.size(), 2u);
  EXPECT_EQ(ranks[1].rank, 1);
  EXPECT_DOUBLE_EQ(ranks[0].time.p50, 2);
  EXPECT_DOUBLE_EQ(ranks[0].time.p99, 3);
  EXPECT_DOUBLE_EQ(ranks[0].skew.p50, 0);
  EXPECT_DOUBLE_EQ(ranks[0].finish.p50, 2);  // 1, 2, 4
  EXPECT_DOUBLE_EQ(ranks[1].finish.p50, 6);  // 5, 6, 6
  // Without skews the finish time is the own time.
  EXPECT_DOUBLE_EQ(rank_summaries(with_ranks({{7}, {8}}))[1].finish.p50, 8);
}

TEST(Stragglers, NamesTheSlowestRankOverTheThresholdAgainstTheMedianRank) {
  // Four ranks: the median rank is the lower middle one (finish 10).
  const auto four = rank_summaries(with_ranks({{9}, {10}, {10.5}, {11.5}}));
  const auto named = find_straggler(four);
  ASSERT_TRUE(named);
  EXPECT_EQ(named->slowest.rank, 3);
  EXPECT_EQ(named->median.rank, 1);
  EXPECT_NEAR(named->slower, 0.15, 1e-12);
  EXPECT_FALSE(find_straggler(rank_summaries(with_ranks({{10}, {10}, {10.9}}))));
  EXPECT_FALSE(find_straggler(rank_summaries(with_ranks({{10}}))));
  EXPECT_FALSE(find_straggler({}));
}

TEST(Stragglers, ARankThatOnlyWaitedForALateOneIsNotNamed) {
  // Rank 1 entered 5 late each time; rank 0 waited for it inside a
  // collective, so its own time is the longer, but both left together.
  const auto ranks = rank_summaries(with_ranks({{10, 10, 10}, {5, 5, 5}}, {{0, 0, 0}, {5, 5, 5}}));
  EXPECT_FALSE(find_straggler(ranks));
  // Working slowly after a late entry does name it.
  const auto late = rank_summaries(with_ranks({{10, 10, 10}, {7, 7, 7}}, {{0, 0, 0}, {5, 5, 5}}));
  const auto named = find_straggler(late);
  ASSERT_TRUE(named);
  EXPECT_EQ(named->slowest.rank, 1);
  EXPECT_DOUBLE_EQ(named->slowest.skew.p50, 5);
}

TEST(Stragglers, JoinedMeasurementsKeepEachRanksTimesAndSkews) {
  TimeStats a = summarize({1, 2});
  a.per_rank = {{1, 2}, {0.5, 1}};
  a.per_rank_skew = {{0, 0}, {0.1, 0.2}};
  TimeStats b = summarize({3});
  b.per_rank = {{3}, {2}};
  b.per_rank_skew = {{0.3}, {0}};
  const TimeStats j = joined(a, b);
  EXPECT_EQ(j.samples, (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(j.per_rank[1], (std::vector<double>{0.5, 1, 2}));
  EXPECT_EQ(j.per_rank_skew[0], (std::vector<double>{0, 0, 0.3}));
  // Different rank counts: the per-rank times cannot be joined.
  b.per_rank.pop_back();
  EXPECT_TRUE(joined(a, b).per_rank.empty());
}

}  // namespace
}  // namespace shardroof

// The timing module: the interleaved measurement (every iteration runs the
// operations in turn, warm-up first, and each operation's samples are its
// own per-iteration maxima over ranks), each rank's own times, and the
// batched mode.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "timing/timing.h"
#include "../mpi_test_util.h"

namespace shardroof {
namespace {

using shardroof::testing::world_rank;
using shardroof::testing::world_size;

// Reports a time that names the rank and the order of the timed call, so
// the test can tell which sample went where.
class CountingClock final : public Clock {
 public:
  void start() override {}
  double stop() override { return 1000.0 * (world_rank() + 1) + calls_++; }

 private:
  int calls_ = 0;
};

TEST(TimeInterleaved, RunsTheOperationsInTurnAndKeepsEachOnesMaxima) {
  const TimingPlan plan{2, 4};
  CountingClock clock;
  std::vector<std::string> order;
  std::vector<IterationFn> ops;
  for (const char* name : {"a", "b", "c"})
    ops.push_back([&order, name](int it) { order.push_back(std::string(name) + std::to_string(it)); });
  const auto samples = time_interleaved(MPI_COMM_WORLD, plan, clock, ops);

  const std::vector<std::string> expected = {"a-1", "b-1", "c-1", "a-2", "b-2", "c-2", "a0", "b0", "c0",
                                             "a1",  "b1",  "c1",  "a2",  "b2",  "c2",  "a3", "b3", "c3"};
  EXPECT_ALL_RANKS(order == expected, "operations ran out of turn");
  bool ok = samples.size() == 3;
  for (std::size_t k = 0; ok && k < 3; ++k) {
    ok = samples[k].size() == 4;
    // Timed call i*3 + k of the slowest (highest) rank.
    for (std::size_t i = 0; ok && i < 4; ++i) ok = samples[k][i] == 1000.0 * world_size() + static_cast<double>(i * 3 + k);
  }
  EXPECT_ALL_RANKS(ok, "samples are not the per-operation maxima over ranks");

  const auto stats = measure_interleaved(MPI_COMM_WORLD, plan, clock, ops);
  ASSERT_EQ(stats.size(), 3u);
  // The second measurement's timed calls are 12..23; operation 1 took 13, 16, 19, 22.
  EXPECT_DOUBLE_EQ(stats[1].min, 1000.0 * world_size() + 13);
  EXPECT_DOUBLE_EQ(stats[1].max, 1000.0 * world_size() + 22);
  EXPECT_DOUBLE_EQ(stats[1].median, 1000.0 * world_size() + 17.5);
}

TEST(TimeInterleaved, BalancedIterationsFollowTheRowsOfAWilliamsDesign) {
  const TimingPlan plan{1, 4};
  CountingClock clock;
  std::vector<std::string> order;
  std::vector<IterationFn> ops;
  for (const char* name : {"a", "b", "c"})
    ops.push_back([&order, name](int it) { order.push_back(std::string(name) + std::to_string(it)); });
  const auto stats = measure_interleaved(MPI_COMM_WORLD, plan, clock, ops, {}, TurnOrder::Balanced);
  const std::vector<std::string> expected = {"a-1", "b-1", "c-1", "a0", "b0", "c0", "b1", "c1", "a1",
                                             "c2",  "a2",  "b2",  "c3", "b3", "a3"};
  EXPECT_ALL_RANKS(order == expected, "balanced iterations ran out of turn");
  ASSERT_EQ(stats.size(), 3u);
  // Each operation's samples stay its own: b ran as timed calls 1, 3, 8 and 10.
  const double slowest = 1000.0 * world_size();
  EXPECT_EQ(stats[1].samples, (std::vector<double>{slowest + 1, slowest + 3, slowest + 8, slowest + 10}));
}

// An untimed preparation never overlaps a peer's timed call: the last rank
// to finish a call (here rank 0, 20 ms late) has finished it before any
// rank starts preparing the next one.
TEST(MeasureInterleaved, NoRankPreparesWhileAPeerIsStillInItsCall) {
  // The ranks' stamps are compared with each other: steady_clock (the
  // system-wide CLOCK_MONOTONIC) is one clock only for processes of one
  // host. Every rank sees the same verdict, so they skip together.
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int node_size = 0;
  MPI_Comm_size(node, &node_size);
  MPI_Comm_free(&node);
  int one_host = node_size == world_size() ? 1 : 0, all_one_host = 0;
  MPI_Allreduce(&one_host, &all_one_host, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all_one_host) GTEST_SKIP() << "the ranks span several hosts, whose steady clocks do not compare";
  const TimingPlan plan{1, 3};
  CountingClock clock;
  using Stamp = std::chrono::steady_clock;
  const auto now_us = [] {
    return static_cast<double>(
        std::chrono::duration_cast<std::chrono::microseconds>(Stamp::now().time_since_epoch()).count());
  };
  std::vector<double> call_ends, prepare_starts;  // in the order they happened on this rank
  const auto op = [&](int) {
    if (world_rank() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    call_ends.push_back(now_us());
  };
  const auto prepare = [&](int) { prepare_starts.push_back(now_us()); };
  measure_interleaved(MPI_COMM_WORLD, plan, clock, {op, op}, {prepare, prepare}, TurnOrder::Balanced);
  // Timed calls only: warm-up calls end before the first timed preparation too.
  const std::size_t timed = 2 * 3;
  ASSERT_GE(call_ends.size(), timed);
  ASSERT_EQ(prepare_starts.size(), timed + 2);  // two warm-up preparations, then one per timed call
  std::vector<double> ends(call_ends.end() - static_cast<std::ptrdiff_t>(timed), call_ends.end());
  std::vector<double> starts(prepare_starts.end() - static_cast<std::ptrdiff_t>(timed), prepare_starts.end());
  const int n = world_size();
  std::vector<double> all_ends(timed * static_cast<std::size_t>(n)), all_starts(all_ends.size());
  MPI_Allgather(ends.data(), static_cast<int>(timed), MPI_DOUBLE, all_ends.data(), static_cast<int>(timed), MPI_DOUBLE,
                MPI_COMM_WORLD);
  MPI_Allgather(starts.data(), static_cast<int>(timed), MPI_DOUBLE, all_starts.data(), static_cast<int>(timed),
                MPI_DOUBLE, MPI_COMM_WORLD);
  bool ok = true;
  // Preparation j + 1 (of any rank) starts after call j ended on every rank.
  for (std::size_t j = 0; j + 1 < timed; ++j)
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b)
        ok = ok && all_starts[static_cast<std::size_t>(b) * timed + j + 1] >= all_ends[static_cast<std::size_t>(a) * timed + j];
  EXPECT_ALL_RANKS(ok, "a rank prepared the next call while a peer was still in the previous one");
}

TEST(BalancedOrder, EveryOperationFollowsEveryOtherEquallyOftenAndLeadsEquallyOften) {
  for (std::size_t n = 1; n <= 9; ++n) {
    const std::size_t rows = n % 2 == 0 ? n : 2 * n;
    std::vector<std::vector<int>> follows(n, std::vector<int>(n, 0));
    std::vector<int> leads(n, 0);
    for (std::size_t i = 0; i < rows; ++i) {
      const std::vector<std::size_t> row = balanced_order(i, n);
      ASSERT_EQ(row.size(), n);
      std::vector<std::size_t> sorted = row;
      std::sort(sorted.begin(), sorted.end());
      for (std::size_t k = 0; k < n; ++k) ASSERT_EQ(sorted[k], k) << "row " << i << " of " << n << " is no permutation";
      ++leads[row.front()];
      for (std::size_t j = 1; j < n; ++j) ++follows[row[j - 1]][row[j]];
      // The design repeats: iteration i and i + rows run in the same order.
      EXPECT_EQ(balanced_order(i + rows, n), row);
    }
    const int pair_count = n % 2 == 0 ? 1 : 2;
    for (std::size_t a = 0; a < n; ++a) {
      EXPECT_EQ(leads[a], static_cast<int>(rows / n)) << "n = " << n << ", operation " << a;
      for (std::size_t b = 0; b < n; ++b)
        EXPECT_EQ(follows[a][b], a == b ? 0 : pair_count) << "n = " << n << ": " << b << " after " << a;
    }
  }
  EXPECT_TRUE(balanced_order(3, 0).empty());
}

TEST(TimeInterleaved, NoOperationsOrNoIterationsGiveEmptySamples) {
  CountingClock clock;
  EXPECT_TRUE(time_interleaved(MPI_COMM_WORLD, {1, 3}, clock, {}).empty());
  const auto none = time_interleaved(MPI_COMM_WORLD, {0, 0}, clock, {[](int) {}});
  ASSERT_EQ(none.size(), 1u);
  EXPECT_TRUE(none[0].empty());
}

TEST(Measure, KeepsEachRanksOwnTimesBesideTheMaxima) {
  const TimingPlan plan{1, 3};
  CountingClock clock;
  const TimeStats s = measure(MPI_COMM_WORLD, plan, clock, [](int) {});
  const int n = world_size();
  bool ok = static_cast<int>(s.per_rank.size()) == n;
  for (int r = 0; ok && r < n; ++r) {
    ok = s.per_rank[static_cast<std::size_t>(r)].size() == 3;
    for (std::size_t i = 0; ok && i < 3; ++i)
      ok = s.per_rank[static_cast<std::size_t>(r)][i] == 1000.0 * (r + 1) + static_cast<double>(i);
  }
  EXPECT_ALL_RANKS(ok, "per_rank does not hold each rank's own per-iteration times");
  EXPECT_EQ(s.samples, s.per_rank.back());  // the highest rank is the slowest here
  const TimeStats half = scaled(s, 0.5);
  EXPECT_DOUBLE_EQ(half.per_rank.front().front(), 500.0);
}

TEST(Measure, WithAnAlignedClockKeepsEachRanksArrivalSkew) {
  const TimingPlan plan{1, 4};
  CountingClock clock;
  const AlignedClock aligned;  // one host: the same clock on every rank
  const TimeStats s = measure(MPI_COMM_WORLD, plan, clock, [](int) {}, {}, &aligned);
  const auto n = static_cast<std::size_t>(world_size());
  bool ok = s.per_rank_skew.size() == n;
  for (std::size_t i = 0; ok && i < 4; ++i) {
    double first = 1e9;
    for (const auto& rank : s.per_rank_skew) {
      ok = ok && rank.size() == 4 && rank[i] >= 0;
      if (ok) first = std::min(first, rank[i]);
    }
    ok = ok && first == 0;  // skews count from the earliest rank
  }
  EXPECT_ALL_RANKS(ok, "per_rank_skew is not each rank's arrival after the earliest one");
  EXPECT_TRUE(measure(MPI_COMM_WORLD, plan, clock, [](int) {}).per_rank_skew.empty());
}

// A clock that reports how many calls ran since start(), in seconds.
class CallCountingClock final : public Clock {
 public:
  explicit CallCountingClock(const int& calls) : calls_(calls) {}
  void start() override { at_start_ = calls_; }
  double stop() override { return calls_ - at_start_; }

 private:
  const int& calls_;
  int at_start_ = 0;
};

TEST(Measure, BatchedRunsBackToBackCallsAndDividesByTheBatch) {
  int calls = 0;
  CallCountingClock clock(calls);
  std::vector<int> iterations, prepared;
  const TimingPlan plan{3, 2, TimingMode::Batched, 5};
  const TimeStats s = measure(
      MPI_COMM_WORLD, plan, clock,
      [&](int it) {
        ++calls;
        iterations.push_back(it);
      },
      [&](int it) { prepared.push_back(it); });
  // Warm-up: 3 calls after one barrier (one prepare); then 2 batches of 5.
  const std::vector<int> want = {-1, -2, -3, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1};
  EXPECT_ALL_RANKS(iterations == want, "batched mode ran the calls out of order");
  EXPECT_ALL_RANKS(prepared == std::vector<int>({-1, 0, 1}), "batched mode prepared other than once per batch");
  ASSERT_EQ(s.samples.size(), 2u);
  EXPECT_DOUBLE_EQ(s.samples[0], 1.0);  // 5 calls counted, divided by 5
  EXPECT_DOUBLE_EQ(s.median, 1.0);
  EXPECT_EQ(parse_timing_mode("batched"), TimingMode::Batched);
  EXPECT_EQ(parse_timing_mode("per-iteration"), TimingMode::PerIteration);
  EXPECT_EQ(parse_timing_mode("averaged"), std::nullopt);
  EXPECT_NE(aggregation_note(plan).find("5 back-to-back calls"), std::string::npos);
  EXPECT_NE(aggregation_note(plan).find("max over ranks"), std::string::npos);
}

TEST(Summarize, MedianPercentilesAndSamplesInIterationOrder) {
  // 1..20 shuffled: nearest-rank p95 is the 19th smallest, p99 the 20th.
  std::vector<double> v;
  for (int i = 0; i < 20; ++i) v.push_back(static_cast<double>((i * 7) % 20 + 1));
  const TimeStats s = summarize(v);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 20);
  EXPECT_DOUBLE_EQ(s.median, 10.5);
  EXPECT_DOUBLE_EQ(s.p95, 19);
  EXPECT_DOUBLE_EQ(s.p99, 20);
  EXPECT_DOUBLE_EQ(s.iqm, 10.5);  // the mean of 6..15
  EXPECT_EQ(s.samples, v);
  EXPECT_DOUBLE_EQ(summarize({1, 2, 100}).iqm, 103.0 / 3);  // fewer than four: the mean
  EXPECT_DOUBLE_EQ(summarize({1, 10, 10, 100}).iqm, 10);
  const TimeStats one = summarize({3.0});
  EXPECT_DOUBLE_EQ(one.p95, 3);
  EXPECT_DOUBLE_EQ(one.p99, 3);
  EXPECT_TRUE(summarize({}).samples.empty());
}

}  // namespace
}  // namespace shardroof

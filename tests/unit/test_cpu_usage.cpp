// The CPU accounting of the overlap model's transport term
// (timing/cpu_usage.h): /proc/stat's aggregate line parsed, and a span's
// counts bounded by what the span did (a busy loop, a sleep).
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "timing/cpu_usage.h"

namespace shardroof {
namespace {

TEST(CpuUsage, ParsesTheAggregateLineOfProcStat) {
  // user nice system idle iowait irq softirq steal guest guest_nice, at 100 ticks/s.
  const auto t = parse_proc_stat("cpu  100 5 50 1000 20 3 7 11 0 0\ncpu0 50 2 25 500 10 1 3 5 0 0\n", 100);
  ASSERT_TRUE(t.has_value());
  EXPECT_DOUBLE_EQ(t->idle_s, 10.2);  // idle + iowait
  EXPECT_DOUBLE_EQ(t->softirq_s, 0.07);
  EXPECT_DOUBLE_EQ(t->steal_s, 0.11);
  EXPECT_DOUBLE_EQ(parse_proc_stat("cpu 250 0 0 500 0 0 0 0", 250)->idle_s, 2);
}

TEST(CpuUsage, RefusesWhatIsNotTheAggregateLine) {
  EXPECT_FALSE(parse_proc_stat("cpu0 1 2 3 4 5 6 7 8", 100));  // a CPU's own line
  EXPECT_FALSE(parse_proc_stat("intr 1 2 3 4 5 6 7 8", 100));
  EXPECT_FALSE(parse_proc_stat("cpu 1 2 3 4 5 6 7", 100));  // before steal (kernels before 2.6.11)
  EXPECT_FALSE(parse_proc_stat("", 100));
  EXPECT_FALSE(parse_proc_stat("cpu 1 2 3 4 5 6 7 8", 0));
}

TEST(CpuUsage, ABusySpanCountsItsCpuAndASleepingOneNone) {
  // Busy until this thread has used 0.2 s of CPU (however long the machine
  // takes to give it): the thread's count holds that, the process's at
  // least as much, the wall at least as much, and the node (CPUs x span
  // less idle and steal) as much, within the file's 10 ms unit per read.
  const CpuSpan busy;
  volatile double sink = 0;
  for (;;) {
    for (int i = 0; i < 100000; ++i) sink = sink + 1e-9 * i;
    if (busy.stop().thread_s >= 0.2) break;
  }
  const CpuSpan::Result b = busy.stop();
  EXPECT_GE(b.thread_s, 0.2);
  EXPECT_GE(b.process_s, b.thread_s - 1e-6);
  EXPECT_GE(b.wall_s, b.thread_s - 1e-3);
  if (b.node_busy_s) {
    EXPECT_GE(*b.node_busy_s, 0.9 * b.thread_s - 0.03);
  }

  const CpuSpan sleeping;
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const CpuSpan::Result s = sleeping.stop();
  EXPECT_GE(s.wall_s, 0.05);
  EXPECT_LT(s.thread_s, 0.02);
}

}  // namespace
}  // namespace shardroof

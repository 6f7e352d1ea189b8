// The ceilings' formulas (sweep/ceilings.h) on synthetic timings, against
// values computed by hand (the arithmetic is beside each), not against the
// code that produced them: the per-iteration samples go through the timing
// module's summary, and its median through each formula.
#include <gtest/gtest.h>

#include "ceilings/ceilings.h"
#include "timing/timing.h"

namespace shardroof::sweep {
namespace {

// Five iterations of 3, 1, 2, 5 and 4 ms: the median is 3 ms.
TEST(CeilingFormulas, GemmIsTwoMnkOverTheMedian) {
  const TimeStats t = summarize({3e-3, 1e-3, 2e-3, 5e-3, 4e-3});
  ASSERT_DOUBLE_EQ(t.median, 3e-3);
  // 2 * 1024 * 512 * 256 = 268435456 FLOPs in 3 ms.
  EXPECT_DOUBLE_EQ(gemm_flops_per_s(1024, 512, 256, t.median), 268435456.0 / 3e-3);
  EXPECT_NEAR(gemm_flops_per_s(1024, 512, 256, t.median), 8.9478485333e10, 1e0);
  // Not square: m, n and k each count once. 2 * 3 * 5 * 7 = 210 FLOPs in 1 us.
  EXPECT_DOUBLE_EQ(gemm_flops_per_s(3, 5, 7, 1e-6), 2.1e8);
}

// One million doubles per array in 2 ms: copy reads one array and writes
// one (16 MB), triad reads two and writes one (24 MB).
TEST(CeilingFormulas, StreamBytesCountEveryArrayTouched) {
  const TimeStats t = summarize({2e-3, 2.5e-3, 1.5e-3});
  ASSERT_DOUBLE_EQ(t.median, 2e-3);
  EXPECT_DOUBLE_EQ(copy_bytes_per_s(1000000, t.median), 8e9);
  EXPECT_DOUBLE_EQ(triad_bytes_per_s(1000000, t.median), 1.2e10);
}

// g: 2^20 elements reduced in 1.048576 ms is 1 ns per element.
TEST(CeilingFormulas, ReductionRateIsSecondsPerElement) {
  const TimeStats t = summarize({1.048576e-3, 2e-3, 1e-3});
  ASSERT_DOUBLE_EQ(t.median, 1.048576e-3);
  EXPECT_DOUBLE_EQ(reduce_s_per_elem(1 << 20, t.median), 1e-9);
}

// A time that is not positive (an empty or failed measurement) gives no
// rate rather than an infinite one; no elements give no g.
TEST(CeilingFormulas, NoTimeNoRate) {
  EXPECT_EQ(gemm_flops_per_s(64, 64, 64, 0), 0);
  EXPECT_EQ(gemm_flops_per_s(64, 64, 64, -1e-3), 0);
  EXPECT_EQ(copy_bytes_per_s(1000, 0), 0);
  EXPECT_EQ(triad_bytes_per_s(1000, 0), 0);
  EXPECT_EQ(reduce_s_per_elem(0, 1e-3), 0);
}

}  // namespace
}  // namespace shardroof::sweep

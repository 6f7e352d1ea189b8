// The roofline model (README, "The model") against the book's worked numbers and
// against cases computed by hand (the arithmetic is in the comments).
#include <gtest/gtest.h>

#include <algorithm>

#include "cli/ceiling_flags.h"
#include "model/checked_prediction.h"
#include "model/roofline.h"
#include "util/error.h"

namespace shardroof::model {
namespace {

Shape shape(int ranks, double s, Collective coll, double B = 1024, double F = 1024) {
  Shape sh;
  sh.ranks = ranks;
  sh.bytes_per_elem = s;
  sh.collective = coll;
  sh.B = B;
  sh.F = F;
  return sh;
}

Ceilings ceilings(double C, double W, double a = 0, double g = 0, double M = 0) {
  Ceilings c;
  c.flops_per_s = C;
  c.link_bytes_per_s = W;
  c.latency_s = a;
  c.reduce_s_per_elem = g;
  c.memory_bytes_per_s = M;
  return c;
}

// "How to Scale Your Model", rooflines: 2 x TPU v5e, bf16, 1.97e14 FLOP/s,
// 4.5e10 B/s each way: D* = 2C/W = 8755.
TEST(Roofline, BookTwoTpuV5eAllReduce) {
  const auto sh = shape(2, 2, Collective::AllReduce);
  const auto c = ceilings(1.97e14, 4.5e10);
  EXPECT_NEAR(d_star_bandwidth(sh, c), 8755, 1);
  EXPECT_NEAR(d_star(sh, c), 8755, 1);  // a = g = 0: nothing else
  EXPECT_NEAR(critical_intensity(c), 1.97e14 / 4.5e10, 1e-9);
  // B and F cancel in the bandwidth term.
  EXPECT_DOUBLE_EQ(d_star(shape(2, 2, Collective::AllReduce, 7, 13), c), d_star(sh, c));
}

// Peak FLOP/s over HBM bandwidth: 240 for v5e, about 295 for H100.
TEST(Roofline, BookMemoryCriticalIntensities) {
  EXPECT_NEAR(memory_critical_intensity(ceilings(1.97e14, 1, 0, 0, 8.2e11)), 240, 1);
  EXPECT_NEAR(memory_critical_intensity(ceilings(9.89e14, 1, 0, 0, 3.35e12)), 295, 1);
  EXPECT_EQ(memory_critical_intensity(ceilings(1e12, 1)), 0);  // no M: no memory roof
}

// N = 4, float, C = 1e12, W = 1e10, B = F = 1000, AllReduce.
//   bandwidth: (N-1)*s*C/W        = 3*4*1e12/1e10          = 1200
//   latency:   N(N-1)*a*C/(B*F)   = 12*1e-6*1e12/1e6        = 12
//   reduction: (N-1)*g*C/2        = 3*1e-9*1e12/2           = 1500
TEST(Roofline, FourRanksAllReduceByHand) {
  const auto sh = shape(4, 4, Collective::AllReduce, 1000, 1000);
  EXPECT_NEAR(d_star_bandwidth(sh, ceilings(1e12, 1e10)), 1200, 1e-9);
  EXPECT_NEAR(d_star(sh, ceilings(1e12, 1e10)), 1200, 1e-9);
  EXPECT_NEAR(d_star(sh, ceilings(1e12, 1e10, 1e-6)), 1212, 1e-9);
  const auto full = ceilings(1e12, 1e10, 1e-6, 1e-9);
  EXPECT_NEAR(d_star(sh, full), 2712, 1e-9);
  // T_comm = 2*3*1e-6 + 2*3/4*4e6/1e10 + 3/4*1e6*1e-9 = 6e-6 + 6e-4 + 7.5e-4
  EXPECT_NEAR(t_comm(sh, full), 1.356e-3, 1e-15);
  // At D* (a multiple of N) compute and communication take equally long.
  EXPECT_NEAR(t_math(sh, full, 2712), t_comm(sh, full), 1e-15);
  const Point p = evaluate(sh, full, 2712);
  EXPECT_NEAR(p.frac_peak_no_overlap, 0.5, 1e-12);
  EXPECT_NEAR(p.frac_peak_overlap, 1.0, 1e-12);
  // About 9*D* is needed for 90% without overlap.
  EXPECT_NEAR(evaluate(sh, full, 9 * 2712).frac_peak_no_overlap, 0.9, 1e-12);
  // Below D*: communication-bound, and the overlap fraction is T_math/T_comm.
  const Point low = evaluate(sh, full, 1356);
  EXPECT_FALSE(low.compute_bound);
  EXPECT_NEAR(low.frac_peak_overlap, 0.5, 1e-12);
}

// N = 8, bfloat16, C = 2e14, W = 5e10, a = 2e-6, B = 2048, F = 4096, ReduceScatter.
//   bandwidth: (N-1)*s*C/(2W)       = 7*2*2e14/1e11            = 28000
//   latency:   N(N-1)*a*C/(2*B*F)   = 56*2e-6*2e14/(2*8388608) = 2.24e10/16777216
TEST(Roofline, EightRanksReduceScatterByHand) {
  const auto sh = shape(8, 2, Collective::ReduceScatter, 2048, 4096);
  EXPECT_NEAR(d_star_bandwidth(sh, ceilings(2e14, 5e10)), 28000, 1e-6);
  EXPECT_NEAR(d_star(sh, ceilings(2e14, 5e10)), 28000, 1e-6);
  const auto c = ceilings(2e14, 5e10, 2e-6);
  EXPECT_NEAR(d_star(sh, c), 28000 + 2.24e10 / 16777216.0, 1e-6);
  // T_comm = 7*2e-6 + 7/8 * 2048*4096*2 / 5e10
  EXPECT_NEAR(t_comm(sh, c), 1.4e-5 + 7.0 / 8.0 * 16777216.0 / 5e10, 1e-15);
  // ReduceScatter sends half of AllReduce's bytes: intensity 2D/((N-1)*s).
  EXPECT_NEAR(intensity(sh, 7000), 1000, 1e-12);
}

// ReduceScatter with every term, g pinned by hand: N = 4, float, B = F = 1000,
// C = 1e12, W = 1e10, a = 1e-6, g = 1e-9.
//   T_comm = (N-1)*a + (N-1)/N*B*F*s/W + (N-1)/N*B*F*g
//          = 3e-6    + 3/4*4e6/1e10    + 3/4*1e6*1e-9   = 3e-6 + 3e-4 + 7.5e-4 = 1.053e-3
//   D*     = (N-1)*s*C/(2W) + N(N-1)*a*C/(2*B*F) + (N-1)*g*C/2 = 600 + 6 + 1500 = 2106
TEST(Roofline, FourRanksReduceScatterWithReductionByHand) {
  const auto sh = shape(4, 4, Collective::ReduceScatter, 1000, 1000);
  const auto c = ceilings(1e12, 1e10, 1e-6, 1e-9);
  EXPECT_NEAR(t_comm(sh, c), 1.053e-3, 1e-15);
  // The reduction term alone: 3/4 * 1e6 elements * 1e-9 s.
  EXPECT_NEAR(t_comm(sh, c) - t_comm(sh, ceilings(1e12, 1e10, 1e-6)), 7.5e-4, 1e-15);
  EXPECT_NEAR(d_star(sh, c), 2106, 1e-9);
  // Just below D*: D = 2104 is 526 columns per rank, 2*B*526*F/C = 1.052e-3 s,
  // communication-bound; D = 2108 (527 columns, 1.054e-3 s) is compute-bound.
  EXPECT_NEAR(t_math(sh, c, 2104), 1.052e-3, 1e-15);
  EXPECT_FALSE(evaluate(sh, c, 2104).compute_bound);
  EXPECT_TRUE(evaluate(sh, c, 2108).compute_bound);
}

// N = 8, float, C = 1e13, W = 1e11, AllReduce without latency: 7*4*100 = 2800;
// with a = 5e-6, B = F = 4096: + 56*5e-6*1e13/16777216.
TEST(Roofline, EightRanksAllReduceByHand) {
  const auto sh = shape(8, 4, Collective::AllReduce, 4096, 4096);
  EXPECT_NEAR(d_star(sh, ceilings(1e13, 1e11)), 2800, 1e-9);
  EXPECT_NEAR(d_star(sh, ceilings(1e13, 1e11, 5e-6)), 2800 + 2.8e9 / 16777216.0, 1e-9);
  EXPECT_NEAR(intensity(sh, 2800), 100, 1e-12);  // = C/W at D*
}

// The slowest shard counts: D = 10 on 4 ranks is ceil(10/4) = 3 columns.
TEST(Roofline, SlowestShardRoundsUp) {
  const auto sh = shape(4, 4, Collective::AllReduce, 10, 10);
  EXPECT_EQ(slowest_shard(10, 4), 3);
  EXPECT_NEAR(t_math(sh, ceilings(1e6, 1e6), 10), 2.0 * 10 * 3 * 10 / 1e6, 1e-15);
}

// The local memory roof. N = 2, float, B = F = 1024, C = 1e12, W = 1e9, M = 2e9:
//   T_comm = 2*(1/2)*1024*1024*4/1e9             = 4.194304e-3
//   memory time of shard d: ((B+F)*d + B*F)*4/M  = 4.096e-6*d + 2.097152e-3
//   -> equals T_comm at d = 512, D = 1024; compute alone: D* = 4*1e12/1e9 = 4000.
TEST(Roofline, MemoryRoof) {
  const auto sh = shape(2, 4, Collective::AllReduce, 1024, 1024);
  const auto c = ceilings(1e12, 1e9, 0, 0, 2e9);
  EXPECT_NEAR(t_comm(sh, c), 4.194304e-3, 1e-15);
  EXPECT_NEAR(local_bytes(sh, 1024), (1024.0 * 512 * 2 + 1024.0 * 1024) * 4, 1e-6);
  EXPECT_NEAR(t_math(sh, c, 1024), 4.194304e-3, 1e-15);                 // memory-bound here
  EXPECT_NEAR(t_math_compute_only(sh, c, 1024), 2.0 * 1024 * 512 * 1024 / 1e12, 1e-15);
  EXPECT_NEAR(d_star(sh, c), 4000, 1e-9);                               // compute roof only
  EXPECT_NEAR(d_star_with_memory(sh, c), 1024, 1e-9);
  // A faster memory (M = 1e10) no longer binds: the compute crossover wins.
  EXPECT_NEAR(d_star_with_memory(sh, ceilings(1e12, 1e9, 0, 0, 1e10)), 4000, 1e-9);
  // Writing the result alone takes T_comm (M = 1e9): memory-bound from D = 0.
  EXPECT_EQ(d_star_with_memory(sh, ceilings(1e12, 1e9, 0, 0, 1e9)), 0);
  // Without M the memory roof is off.
  EXPECT_NEAR(d_star_with_memory(sh, ceilings(1e12, 1e9)), 4000, 1e-9);
  // Fractions of peak count only useful compute time.
  const Point p = evaluate(sh, c, 1024);
  EXPECT_NEAR(p.frac_peak_overlap, (2.0 * 1024 * 512 * 1024 / 1e12) / 4.194304e-3, 1e-12);
}

TEST(Roofline, PredictCollectsPoints) {
  const auto sh = shape(4, 4, Collective::AllReduce, 1000, 1000);
  const auto c = ceilings(1e12, 1e10, 1e-6);
  const Prediction p = predict(sh, c, {400, 1212, 4848});
  EXPECT_NEAR(p.d_star, 1212, 1e-9);
  EXPECT_NEAR(p.d_star_bandwidth, 1200, 1e-9);
  EXPECT_NEAR(p.critical_intensity, 100, 1e-12);
  ASSERT_EQ(p.points.size(), 3u);
  EXPECT_FALSE(p.points[0].compute_bound);
  EXPECT_NEAR(p.points[1].t_math, p.points[1].t_comm, 1e-15);  // at D* (up to rounding)
  EXPECT_NEAR(p.points[1].frac_peak_no_overlap, 0.5, 1e-12);
  EXPECT_TRUE(p.points[2].compute_bound);
  EXPECT_NEAR(p.points[2].frac_peak_no_overlap, 0.8, 1e-12);
}

TEST(Roofline, DefaultDValuesSpanTheCrossover) {
  const auto sh = shape(4, 4, Collective::AllReduce);
  const auto Ds = default_D_values(sh, 1212);
  ASSERT_FALSE(Ds.empty());
  EXPECT_TRUE(std::is_sorted(Ds.begin(), Ds.end()));
  EXPECT_LE(Ds.front(), 1212.0 / 8);
  EXPECT_GE(Ds.back(), 1212.0 * 8);
  EXPECT_NE(std::find(Ds.begin(), Ds.end(), 1212.0), Ds.end());  // D* rounded up to a multiple of N
  for (double D : Ds) EXPECT_GE(D, 4);
}

// sweep --model-hw: measured compute beside a preset's link.
TEST(Roofline, CompareWithPreset) {
  const auto sh = shape(2, 4, Collective::AllReduce, 1024, 1024);
  const auto measured = ceilings(1e11, 5e9, 2e-5, 1e-10, 2e10);
  const auto preset = ceilings(9.89e14, 4.5e11, 3.4e-6, 0, 3.35e12);
  const auto cmp = compare_with_preset(sh, measured, preset, {1024, 4096});
  EXPECT_DOUBLE_EQ(cmp.measured.d_star, d_star(sh, measured));
  EXPECT_DOUBLE_EQ(cmp.preset.d_star, d_star(sh, preset));
  // Hybrid: C, M, g measured; W and a from the preset.
  EXPECT_EQ(cmp.hybrid.ceilings.flops_per_s, 1e11);
  EXPECT_EQ(cmp.hybrid.ceilings.memory_bytes_per_s, 2e10);
  EXPECT_EQ(cmp.hybrid.ceilings.reduce_s_per_elem, 1e-10);
  EXPECT_EQ(cmp.hybrid.ceilings.link_bytes_per_s, 4.5e11);
  EXPECT_EQ(cmp.hybrid.ceilings.latency_s, 3.4e-6);
  // By hand: 1*4*1e11/4.5e11 + 2*1*3.4e-6*1e11/1048576 + 1*1e-10*1e11/2
  EXPECT_NEAR(cmp.hybrid.d_star, 4e11 / 4.5e11 + 6.8e5 / 1048576.0 + 5.0, 1e-9);
  EXPECT_NEAR(cmp.hybrid.d_star_bandwidth, 4e11 / 4.5e11, 1e-12);
  ASSERT_EQ(cmp.hybrid.points.size(), 2u);
  EXPECT_EQ(cmp.preset.points[1].D, 4096);
}

// ---- predict's checks: absurd numbers are usage errors, at once --------

std::string usage_message(const Shape& sh, const Ceilings& c, const std::vector<double>& D = {}) {
  try {
    checked_predict(sh, c, D);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(CheckedPrediction, AnInfiniteCrossoverIsAUsageError) {
  // predict --flops 1e300 --bw 1e-300 once built its D list for a minute
  // (D* = 4e600, not a double) and died of std::bad_alloc; its W is below
  // one byte per second. C = 1e308 over W = 1: D* = 2e308, infinite.
  const auto sh = shape(2, 2, Collective::AllReduce);
  EXPECT_NE(usage_message(sh, ceilings(1e300, 1e-300)).find("--bw: 1e-300 bytes/s is less than one per second"),
            std::string::npos);
  const std::string m = usage_message(sh, ceilings(1e308, 1));
  EXPECT_NE(m.find("D* is not a finite number"), std::string::npos) << m;
  EXPECT_NE(m.find("--flops"), std::string::npos) << m;
  // Finite but beyond any dimension: 2*1e24/1 = 2e24 > 2^53.
  EXPECT_NE(usage_message(sh, ceilings(1e24, 1)).find("beyond any matrix dimension"), std::string::npos);
}

TEST(CheckedPrediction, RatesBelowOnePerSecondAreUsageErrors) {
  const auto sh = shape(2, 2, Collective::AllReduce);
  // C = 1e-300: D* underflows to 0 and T_math is 2e306 s, infinite in us.
  EXPECT_NE(usage_message(sh, ceilings(1e-300, 1e300)).find("--flops: 1e-300 FLOP/s is less than one per second"),
            std::string::npos);
  // M = 1e-300: every D memory-bound for ever.
  EXPECT_NE(usage_message(sh, ceilings(1e12, 1e10, 0, 0, 1e-300)).find("--memory-bw: 1e-300"), std::string::npos);
  EXPECT_NE(usage_message(sh, ceilings(1e12, 1e-3)).find("--bw: 0.001 bytes/s is less than one"), std::string::npos);
  EXPECT_NE(usage_message(sh, ceilings(1e12, 1e10, 0, 10)).find("--reduce-rate: 0.1 elements/s"), std::string::npos);
}

TEST(CheckedPrediction, BadCeilingsAndDValuesNameTheirFlag) {
  const auto sh = shape(2, 4, Collective::AllReduce);
  EXPECT_NE(usage_message(sh, ceilings(0, 1e9)).find("--flops"), std::string::npos);
  EXPECT_NE(usage_message(sh, ceilings(1e12, -1)).find("--bw"), std::string::npos);
  EXPECT_NE(usage_message(sh, ceilings(1e12, 1e9, -1e-6)).find("--latency"), std::string::npos);
  EXPECT_NE(usage_message(sh, ceilings(1e12, 1e9, 0, 0, -1)).find("--memory-bw"), std::string::npos);
  EXPECT_NE(usage_message(sh, ceilings(1e12, 1e9), {64, 1e17}).find("--D: "), std::string::npos);
  Ceilings c;
  EXPECT_THROW(shardroof::apply_ceiling_flags({"1e12", "fast", "", "", ""}, c), UsageError);
  EXPECT_THROW(shardroof::apply_ceiling_flags({"", "", "", "", "-5"}, c), UsageError);
  EXPECT_EQ(shardroof::apply_ceiling_flags({"1e12", "1e9", "", "", "2e9"}, c),
            (std::vector<std::string>{"--flops", "--bw", "--reduce-rate"}));
  EXPECT_EQ(c.flops_per_s, 1e12);
  EXPECT_EQ(c.reduce_s_per_elem, 0.5e-9);
}

TEST(CheckedPrediction, SaneInputsGiveTheUncheckedPrediction) {
  const auto sh = shape(4, 4, Collective::AllReduce, 1000, 1000);
  const auto c = ceilings(1e12, 1e10, 1e-6);
  const Prediction p = checked_predict(sh, c, {});
  EXPECT_NEAR(p.d_star, 1212, 1e-9);
  EXPECT_EQ(p.points.size(), default_D_values(sh, p.d_star).size());
  // Near the limit the default list stops at 2^53 instead of growing on.
  const Prediction far = checked_predict(shape(2, 2, Collective::AllReduce), ceilings(1e15, 1e0), {});
  EXPECT_LE(far.points.back().D, kMaxD);
  EXPECT_LT(far.points.size(), 64u);
}

}  // namespace
}  // namespace shardroof::model

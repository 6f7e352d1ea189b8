// The crossover as a user reads it: the analysis of measured points (the
// three D*s, the interval, the error budget) on a case worked out by hand,
// the summary text for every shape the points can take, and the `--D auto`
// search's choices.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "report/combine_report.h"
#include "report/stability_report.h"
#include "report/sweep_report.h"
#include "sweep/analysis.h"
#include "sweep/search.h"
#include "timing/timing.h"

namespace shardroof::sweep {
namespace {

constexpr double kS = 4.0 * 1024 * 1024;  // B = F = 1024 floats

SweepPlan plan_2x1024() {
  SweepPlan p;
  p.B = 1024;
  p.F = 1024;
  return p;
}

// A point on 2 ranks whose every iteration took `tm` (T_math) and `tc` (T_comm).
PointRecord point(std::uint64_t D, std::vector<double> tm, std::vector<double> tc) {
  PointRecord p;
  p.D = D;
  p.shard_max = (D + 1) / 2;
  std::vector<double> ts;
  for (std::size_t i = 0; i < tm.size(); ++i) ts.push_back(tm[i] + tc[i % tc.size()]);
  p.iterations = static_cast<int>(tm.size());
  p.windows = {p.iterations};
  p.t_math = summarize(std::move(tm));
  p.t_comm = summarize(std::move(tc));
  p.t_step = summarize(std::move(ts));
  p.flops_per_s = 2.0 * 1024 * static_cast<double>(p.shard_max) * 1024 / p.t_math.median;
  p.check.checked = true;
  p.check.method = "full";
  return p;
}

PointRecord steady(std::uint64_t D, double tm, double tc, int iters = 10) {
  return point(D, std::vector<double>(static_cast<std::size_t>(iters), tm),
               std::vector<double>(static_cast<std::size_t>(iters), tc));
}

// C_peak = 1e11 FLOP/s; the link (ring probe) W = 1e9 B/s, alpha = g = 0;
// the collective at S measured at `t_comm` every time.
RunCeilings ceilings(double t_comm) {
  RunCeilings c;
  c.peak_gemm.flops_per_s = 1e11;
  c.link.W_bytes_per_s = 1e9;
  c.link.source = "ring probe";
  c.collective.bytes = static_cast<std::uint64_t>(kS);
  c.collective.time = summarize(std::vector<double>(20, t_comm));
  return c;
}

// By hand, 2 ranks, B = F = 1024 floats (S = 4 MiB):
//  - the GEMM runs at C = 5e10 at every D: T_math = 2*1024*(D/2)*1024/5e10
//    = D * 2.097152e-5 s; T_comm = 8.388608 ms. They cross at D = 400;
//    points at 256 (5.369 ms, communication-bound) and 512 (10.737 ms).
//  - calibrated: W_eff = 2(N-1)/N * S / T_comm = 4194304 / 8.388608e-3 = 5e8,
//    D* = (N-1)*s*C/W_eff = 4*5e10/5e8 = 400: error 0.
//  - book: W = 1e9: D* = 4*5e10/1e9 = 200: error -50%.
//  - from C_peak: calibrated 4*1e11/5e8 = 800 = (N-1)*s*C_peak/W_eff with
//    C_peak/W_eff = 200 FLOP/byte; book 4*1e11/1e9 = 400.
//  - budget: T_comm_book = S/W = 4.194304 ms, comm = 4.194304/8.388608 = 0.5,
//    compute = 5e10/1e11 = 0.5: 400 x 0.5 / 0.5 x residual 1.
constexpr double kTcomm = 8.388608e-3;
double t_math_at(double D) { return D * 2.097152e-5; }

TEST(SweepAnalysis, ThreeCrossoversAndTheBudgetByHand) {
  const std::vector<PointRecord> points = {steady(256, t_math_at(256), kTcomm), steady(512, t_math_at(512), kTcomm)};
  const SweepAnalysis a = analyze(plan_2x1024(), 2, ceilings(kTcomm), points);
  ASSERT_TRUE(a.empirical.D.has_value());
  EXPECT_NEAR(*a.empirical.D, 400, 1e-9);
  ASSERT_TRUE(a.interval.has_value());  // identical samples: the interval is the point
  EXPECT_NEAR(a.interval->low, 400, 1e-9);
  EXPECT_NEAR(a.interval->high, 400, 1e-9);
  EXPECT_NEAR(a.W_eff_bytes_per_s, 5e8, 1e-3);
  EXPECT_EQ(a.t_comm_samples, 20);  // the two points around D*
  EXPECT_EQ(a.t_comm_run_samples, 40);
  ASSERT_TRUE(a.predicted && a.book_predicted && a.rel_error && a.book_rel_error);
  EXPECT_NEAR(a.predicted->D, 400, 1e-6);
  EXPECT_NEAR(*a.rel_error, 0, 1e-9);
  EXPECT_NEAR(a.book_predicted->D, 200, 1e-6);
  EXPECT_NEAR(*a.book_rel_error, -0.5, 1e-9);
  EXPECT_NEAR(*a.D_peak, 800, 1e-6);
  EXPECT_NEAR(a.critical_intensity(), 200, 1e-9);
  EXPECT_NEAR(*a.D_peak, (2 - 1) * 4 * a.critical_intensity(), 1e-9);
  EXPECT_NEAR(a.t_comm_book_s, 4.194304e-3, 1e-15);
  ASSERT_TRUE(a.budget.has_value());
  EXPECT_NEAR(a.budget->D_book_peak, 400, 1e-9);
  EXPECT_NEAR(a.budget->compute_efficiency, 0.5, 1e-9);
  EXPECT_NEAR(a.budget->comm_efficiency, 0.5, 1e-9);
  EXPECT_NEAR(a.budget->residual, 1.0, 1e-9);
}

// The collective's time jumps by 30% just above S (as a ring did between 4
// and 5 MiB). A line fitted over S/2 .. 3S/2 passes through the mean of its
// points: (0.5 + 0.75 + 1 + 1.3*1.25 + 1.3*1.5)/5 = 1.165 times the
// T_comm(S) of a smooth T ~ S, 16.5% high. The calibrated model takes the
// samples at S only: its T_comm at S is the measured one exactly, and so
// is D_peak = N*C_peak*T_comm(S)/(2*B*F).
TEST(SweepAnalysis, CalibrationIsTheTimeAtSEvenWhenTJumpsJustAboveS) {
  const auto T = [](double bytes) { return bytes / 5e8 * (bytes > 1.05 * kS ? 1.3 : 1.0); };
  double centred_mean = 0;
  for (const double f : {0.5, 0.75, 1.0, 1.25, 1.5}) centred_mean += T(f * kS) / 5;
  EXPECT_NEAR(centred_mean / T(kS), 1.165, 1e-12);
  const SweepAnalysis a = analyze(plan_2x1024(), 2, ceilings(T(kS)), {});
  EXPECT_DOUBLE_EQ(a.t_comm_measured_s, T(kS));
  EXPECT_NEAR(model::t_comm(a.shape, a.calibrated) / T(kS), 1.0, 1e-12);
  EXPECT_NEAR(*a.D_peak, 2 * 1e11 * T(kS) / (2 * 1024.0 * 1024.0), 1e-9);
}

TEST(SweepAnalysis, TheCalibrationTakesTheTwoPointsAroundTheCrossing) {
  // 20 samples of 1 ms before the points, then 10 of 3 ms at each of two
  // points that bracket the crossing and 10 of 4 ms at a third: the
  // calibration takes the 20 of 3 ms; over the run's 50 samples the median
  // is 3 ms too (20 of 1, 20 of 3, 10 of 4), and the points' medians span 3 .. 4.
  const std::vector<PointRecord> points = {steady(64, 1e-3, 3e-3), steady(128, 5e-3, 3e-3),
                                           steady(256, 10e-3, 4e-3)};
  const SweepAnalysis a = analyze(plan_2x1024(), 2, ceilings(1e-3), points);
  EXPECT_EQ(a.t_comm_samples, 20);
  EXPECT_DOUBLE_EQ(a.t_comm_measured_s, 3e-3);
  EXPECT_EQ(a.t_comm_run_samples, 50);
  EXPECT_DOUBLE_EQ(a.t_comm_run_s, 3e-3);
  EXPECT_DOUBLE_EQ(a.t_comm_points_min_s, 3e-3);
  EXPECT_DOUBLE_EQ(a.t_comm_points_max_s, 4e-3);
  // Without a crossing (every point communication-bound): every sample of
  // the run, 20 of 1 ms and 10 of 3 ms: 1 ms.
  const SweepAnalysis none = analyze(plan_2x1024(), 2, ceilings(1e-3), {steady(64, 1e-3, 3e-3)});
  EXPECT_EQ(none.t_comm_samples, 30);
  EXPECT_DOUBLE_EQ(none.t_comm_measured_s, 1e-3);
}

// A memory so slow that writing the B x F result alone takes longer than
// T_comm: every D is memory-bound, D* = 0 with the memory roof, as `predict`
// says for the same case (one function serves both).
TEST(SweepAnalysis, TheMemoryRoofAgreesWithPredict) {
  RunCeilings c = ceilings(kTcomm);
  c.memory.triad_bytes_per_s = 1e8;  // 4 MiB / 1e8 = 41.9 ms > 8.4 ms
  const SweepAnalysis a = analyze(plan_2x1024(), 2, c, {});
  ASSERT_TRUE(a.D_roofs.has_value());
  EXPECT_EQ(*a.D_roofs, 0.0);
  EXPECT_EQ(*a.D_roofs, model::d_star_with_memory(a.shape, a.calibrated));
}

// Every point at the GEMM's floor: a shard of one column (D = 2 on 2 ranks)
// takes 0.5 ms, the exchange 0.3 ms: there is no crossover at any D, and
// the summary says so with both numbers instead of "extend D down".
TEST(SweepAnalysis, BelowTheFloorThereIsNoCrossover) {
  RunCeilings c = ceilings(0.3e-3);
  c.memory.triad_bytes_per_s = 1e10;  // writing 4 MiB: 0.42 ms, most of the 0.5 ms floor
  c.floor_gemm.time = summarize(std::vector<double>(10, 0.5e-3));
  const std::vector<PointRecord> points = {steady(2, 0.5e-3, 0.3e-3), steady(4, 0.52e-3, 0.3e-3)};
  const SweepPlan plan = plan_2x1024();
  const SweepAnalysis a = analyze(plan, 2, c, points);
  ASSERT_TRUE(a.no_crossover.has_value());
  EXPECT_DOUBLE_EQ(a.no_crossover->t_comm_s, 0.3e-3);
  EXPECT_DOUBLE_EQ(a.no_crossover->floor_s, 0.5e-3);
  EXPECT_EQ(a.no_crossover->cause, model::Roof::Memory);
  EXPECT_EQ(a.roofs_measured.kind, model::CrossoverKind::BelowFloor);
  EXPECT_EQ(a.points[0].regime.bound, model::Bound::Memory);
  const std::string s = sweep_summary_text(points, a, c, plan);
  EXPECT_NE(s.find("no crossover: the exchange of the partial sums takes 0.300 ms; the GEMM's floor (a shard of one "
                   "column, D = 2), writing them at M, 0.500 ms: communication never bounds this step"),
            std::string::npos)
      << s;
  EXPECT_EQ(s.find("extend D down"), std::string::npos) << s;
}

// The crossing at D* = 400 on a GEMM at half of C_peak throughout: on the
// compute roof, slope 1 between its two points.
TEST(SweepAnalysis, TheCrossingsRoofAndConditioning) {
  const std::vector<PointRecord> points = {steady(256, t_math_at(256), kTcomm), steady(512, t_math_at(512), kTcomm)};
  RunCeilings c = ceilings(kTcomm);
  c.memory.triad_bytes_per_s = 1e10;
  const SweepAnalysis a = analyze(plan_2x1024(), 2, c, points);
  ASSERT_TRUE(a.crossing_regime.has_value());
  EXPECT_EQ(a.crossing_regime->roof, model::Roof::Compute);
  EXPECT_NEAR(a.crossing_regime->measured.slope, 1.0, 1e-9);
  EXPECT_FALSE(a.crossing_regime->measured.ill_conditioned);
  EXPECT_EQ(a.points[0].regime.bound, model::Bound::Communication);
  EXPECT_EQ(a.points[1].regime.bound, model::Bound::Compute);
  EXPECT_NEAR(a.points[1].regime.roof_fraction, 0.5, 1e-9);  // C = C_peak / 2
  const std::string s = sweep_summary_text(points, a, c, plan_2x1024());
  EXPECT_NE(s.find("D* falls on the GEMM's compute roof; slope of T_math there k = 1.00 measured"), std::string::npos)
      << s;
}

// The reference GEMM ran at 20 ms, then at 40 ms (the machine changed): C_peak
// is the fast state's rate, not the pooled median's. 8 blocks of 24 in the
// fast state: a shuffle scores the observed split with probability
// 2/C(24,8), so the 199-shuffle test keeps it whatever its seed (with 4 of
// 12 that probability is 1/250, and the test missed the change about half
// the time).
TEST(SweepAnalysis, CPeakIsTheReferenceGemmsFastestState) {
  RunCeilings c = ceilings(kTcomm);
  c.peak_gemm.m = c.peak_gemm.n = c.peak_gemm.k = 1024;
  std::vector<double> samples, stamps;
  for (int i = 0; i < 120; ++i) {
    samples.push_back(i < 40 ? 20e-3 : 40e-3);
    stamps.push_back(i);
  }
  c.peak_gemm.time = summarize(samples);
  c.peak_gemm.time.stamps = stamps;
  c.peak_gemm.time.windows = std::vector<std::size_t>(24, 5);
  c.peak_gemm.flops_per_s = 2.0 * 1024 * 1024 * 1024 / c.peak_gemm.time.median;
  const SweepAnalysis a = analyze(plan_2x1024(), 2, c, {});
  EXPECT_EQ(a.stability.gemm.verdict, stability::Verdict::Unstable);
  EXPECT_NEAR(a.C_peak, 2.0 * 1024 * 1024 * 1024 / 20e-3, 1e3);
  EXPECT_DOUBLE_EQ(a.book.flops_per_s, a.C_peak);
}

// The book in one state of the machine: the ring probe's samples taken
// while the machine was in it. The probe moved its 1 MiB and 2 MiB steps at
// 1e9 B/s for 10 s, then at 0.5e9 B/s: in the second state the book's W is
// the slower one, and T_comm = S/W doubles.
TEST(SweepAnalysis, TheBooksTCommInAStateComesFromTheProbesSamplesInIt) {
  RunCeilings c = ceilings(kTcomm);
  c.origin_s = 100;
  link::RingProbeResult probe;
  probe.bytes = {1u << 20, 2u << 20};
  for (const double bytes : {1048576.0, 2097152.0}) {
    std::vector<double> samples, stamps;
    for (int i = 0; i < 20; ++i) {
      samples.push_back(bytes / (i < 10 ? 1e9 : 0.5e9));
      stamps.push_back(100 + i);
    }
    TimeStats t = summarize(samples);
    t.stamps = stamps;
    probe.step_time.push_back(t);
  }
  c.link.probe = probe;
  model::Ceilings book;
  book.flops_per_s = 1e11;
  stability::State slow;
  slow.spans = {{10, 19}};
  const auto t = book_t_comm_in_state(model_shape(plan_2x1024(), 2), c, book, slow);
  ASSERT_TRUE(t.has_value());
  EXPECT_NEAR(*t, kS / 0.5e9, 1e-9);  // 2(N-1)/N * S / W on 2 ranks
  stability::State never;
  never.spans = {{50, 60}};
  EXPECT_FALSE(book_t_comm_in_state(model_shape(plan_2x1024(), 2), c, book, never).has_value());
}

// ---- the summary a user reads ----------------------------------------

std::string summary(const std::vector<PointRecord>& points, int ranks = 2) {
  const SweepPlan plan = plan_2x1024();
  const RunCeilings c = ceilings(kTcomm);
  return shardroof::sweep_summary_text(points, analyze(plan, ranks, c, points), c, plan);
}

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

TEST(SweepSummary, ABracketedCrossingWithItsIntervalPredictionsAndBudget) {
  const std::string s = summary({steady(256, t_math_at(256), kTcomm), steady(512, t_math_at(512), kTcomm)});
  EXPECT_TRUE(has(s, "D* = 400 [400, 400] (95% interval within this launch); compute-bound above it. The interval covers this launch")) << s;
  EXPECT_TRUE(has(s, "calibrated D* = 400 (error +0.0%)")) << s;
  EXPECT_TRUE(has(s, "book D* = 200 (error -50.0%)")) << s;
  EXPECT_TRUE(has(s, "from C_peak: calibrated D* = 800 (C_peak/W_eff = 200.0 FLOP/byte")) << s;
  EXPECT_TRUE(has(s, "budget: D* = D*_book(C_peak) 400 x compute 0.50 / comm 0.50 x residual 1.00")) << s;
  EXPECT_FALSE(has(s, "CAUTION")) << s;
}

TEST(SweepSummary, EveryPointCommunicationBoundSaysExtendUp) {
  const std::string s = summary({steady(16, 1e-4, kTcomm), steady(32, 2e-4, kTcomm)});
  EXPECT_TRUE(has(s, "every point is communication-bound (T_math < T_comm from D = 16 to 32), so D* lies above 32: "
                     "extend D up")) << s;
}

TEST(SweepSummary, EveryPointComputeBoundSaysExtendDown) {
  const std::string s = summary({steady(1024, 0.03, kTcomm), steady(2048, 0.06, kTcomm)});
  EXPECT_TRUE(has(s, "every point is compute-bound (T_math >= T_comm from D = 1024 to 2048), so D* lies below 1024: "
                     "extend D down")) << s;
}

TEST(SweepSummary, ASinglePointSaysWhichSideD_StarIsOn) {
  EXPECT_TRUE(has(summary({steady(64, 1e-4, kTcomm)}),
                  "the only point (D = 64) is communication-bound, so D* lies above it"));
  EXPECT_TRUE(
      has(summary({steady(4096, 0.1, kTcomm)}), "the only point (D = 4096) is compute-bound, so D* lies below it"));
}

TEST(SweepSummary, CrossingOnlyDownwardIsNotCalledCommunicationBound) {
  // Compute-bound at 16, communication-bound at 32 and 64: T_comm grew.
  const std::string s = summary({steady(16, 2e-3, 1e-3), steady(32, 2e-3, 3e-3), steady(64, 2e-3, 4e-3)});
  EXPECT_FALSE(has(s, "every point is communication-bound")) << s;
  EXPECT_TRUE(has(s, "no crossover located: T_math and T_comm cross only downward (down at 24.8)")) << s;
  EXPECT_TRUE(has(s, "the opposite of the roofline")) << s;
}

TEST(SweepSummary, SeveralCrossingsAreAllNamed) {
  // Up between 32 and 64, down between 128 and 256, up again between 256 and 512.
  const std::string s = summary({steady(16, 0.2e-3, 1e-3), steady(32, 0.6e-3, 1e-3), steady(64, 1.3e-3, 1e-3),
                                 steady(128, 2.1e-3, 1e-3), steady(256, 0.9e-3, 1e-3), steady(512, 5e-3, 1e-3)});
  EXPECT_TRUE(has(s, "D* = 50.6")) << s;
  EXPECT_TRUE(has(s, "CAUTION: T_math and T_comm cross 3 times (up at 50.6, down at 235, up at 267): D* is the first "
                     "upward crossing")) << s;
}

TEST(SweepSummary, TiedTimesAndNoPoints) {
  EXPECT_TRUE(has(summary({steady(64, 1e-3, 1e-3), steady(128, 1e-3, 1e-3)}),
                  "T_math equals T_comm at every point (2 points): neither side to extend"));
  EXPECT_TRUE(has(summary({}), "no point was measured"));
  EXPECT_TRUE(has(summary({steady(64, 1e-3, 0)}, 1), "one rank: there is no communication"));
}

// ---- the --D auto search ----------------------------------------------

SearchPlan search_plan() {
  SearchPlan p;
  p.D_start = 128;
  p.D_max = 1 << 20;
  p.timing = {2, 10};
  p.budget_s = 40;
  return p;
}

SearchStep next_step(const CrossoverSearch& s, const std::vector<PointRecord>& points, double elapsed = 1) {
  return s.next(points, analyze(plan_2x1024(), 2, ceilings(kTcomm), points), elapsed);
}

// Noisy samples whose medians are tm and tc (+-20% around them).
PointRecord noisy(std::uint64_t D, double tm, double tc, int iters = 10) {
  std::vector<double> a, b;
  for (int i = 0; i < iters; ++i) {
    const double j = 1 + 0.2 * ((i % 5) - 2) / 2;
    a.push_back(tm * j);
    b.push_back(tc / j);
  }
  return point(D, a, b);
}

TEST(CrossoverSearch, StartsAtItsStartAndBracketsByFactorsOfTwo) {
  const CrossoverSearch s(search_plan());
  const SearchStep first = next_step(s, {});
  EXPECT_EQ(first.stop, SearchStop::None);
  EXPECT_EQ(first.D, 128u);
  EXPECT_EQ(first.iters, 10);
  EXPECT_EQ(next_step(s, {steady(128, 1e-3, kTcomm)}).D, 256u);   // communication-bound: up
  EXPECT_EQ(next_step(s, {steady(128, 0.03, kTcomm)}).D, 64u);    // compute-bound: down
}

TEST(CrossoverSearch, BisectsAWideBracketInLogD) {
  const CrossoverSearch s(search_plan());
  const SearchStep step = next_step(s, {noisy(64, 0.6 * kTcomm, kTcomm), noisy(128, 1.2 * kTcomm, kTcomm)});
  EXPECT_EQ(step.stop, SearchStop::None);
  EXPECT_EQ(step.D, 91u);  // sqrt(64 * 128) = 90.5
  EXPECT_EQ(step.why, "bisect");
}

// A point's measurements spread over time: `windows` measurements, the
// k-th starting at k * every_s seconds (each sample 1 ms after the one before).
PointRecord spread(PointRecord p, int windows, double every_s) {
  PointRecord out;
  for (int k = 0; k < windows; ++k) {
    PointRecord w = p;
    for (TimeStats* t : {&w.t_math, &w.t_comm, &w.t_step}) {
      t->stamps.clear();
      for (std::size_t i = 0; i < t->samples.size(); ++i) t->stamps.push_back(k * every_s + 1e-3 * static_cast<double>(i));
    }
    if (k == 0)
      out = w;
    else
      merge_point(out, w);
  }
  return out;
}

TEST(CrossoverSearch, ANarrowBracketGetsRoundsOfBothPoints) {
  // 91/76 = 1.197 < 1.1/0.9: no bisection; a round measures both points
  // again with the plan's iterations (and the ceilings: `round`).
  const CrossoverSearch s(search_plan());
  const SearchStep step = next_step(s, {noisy(76, 0.8 * kTcomm, kTcomm), noisy(91, 1.1 * kTcomm, kTcomm)});
  EXPECT_EQ(step.stop, SearchStop::None);
  EXPECT_TRUE(step.round);
  EXPECT_EQ(step.D, 76u);
  EXPECT_EQ(step.D2, 91u);
  EXPECT_EQ(step.iters, 10);
  EXPECT_EQ(step.why, "round");
}

TEST(CrossoverSearch, ConvergesOnlyWithEnoughRoundsOverEnoughTime) {
  SearchPlan plan = search_plan();
  plan.min_rounds = 5;
  plan.min_span_s = 30;
  const CrossoverSearch s(plan);
  // Noise-free points around D* = 400: the interval is the point itself.
  const PointRecord lo = steady(380, t_math_at(380), kTcomm), hi = steady(420, t_math_at(420), kTcomm);
  // Four rounds over 40 s: too few rounds.
  EXPECT_TRUE(next_step(s, {spread(lo, 4, 10), spread(hi, 4, 10)}).round);
  // Six rounds within 5 s: too short a span.
  EXPECT_TRUE(next_step(s, {spread(lo, 6, 1), spread(hi, 6, 1)}).round);
  // Six rounds over 50 s: converged.
  const SearchStep done = next_step(s, {spread(lo, 6, 10), spread(hi, 6, 10)});
  EXPECT_EQ(done.stop, SearchStop::Converged);
  EXPECT_TRUE(done.why.find("6 rounds over 50 s") != std::string::npos) << done.why;
}

TEST(CrossoverSearch, AMachineThatChangedStateDoesNotConverge) {
  SearchPlan plan = search_plan();
  plan.min_rounds = 5;
  plan.min_span_s = 10;
  const CrossoverSearch s(plan);
  // T_comm 3x larger in the last 4 of 12 rounds, at both points: the
  // crossing stays between them (the medians are the fast state's), the
  // interval holds both states' crossings, and the search goes on.
  PointRecord lo = spread(steady(380, t_math_at(380), kTcomm), 8, 2);
  PointRecord hi = spread(steady(420, t_math_at(420), kTcomm), 8, 2);
  PointRecord lo_slow = spread(steady(380, t_math_at(380), 3 * kTcomm), 4, 2);
  PointRecord hi_slow = spread(steady(420, t_math_at(420), 3 * kTcomm), 4, 2);
  for (PointRecord* p : {&lo_slow, &hi_slow})
    for (TimeStats* t : {&p->t_math, &p->t_comm, &p->t_step})
      for (double& stamp : t->stamps) stamp += 20;
  merge_point(lo, lo_slow);
  merge_point(hi, hi_slow);
  const std::vector<PointRecord> points = {lo, hi};
  const SweepAnalysis a = analyze(plan_2x1024(), 2, ceilings(kTcomm), points);
  EXPECT_TRUE(a.stability.unstable());
  ASSERT_TRUE(a.interval.has_value());
  EXPECT_NEAR(*a.empirical.D, 400, 1e-6);
  EXPECT_NEAR(a.interval->high, 1200, 1e-6);  // the slow state's crossing, extrapolated on the compute roof
  ASSERT_EQ(a.stability.states.size(), 2u);
  EXPECT_EQ(a.stability.states[0].quantity, "t_comm");
  EXPECT_NEAR(*a.stability.states[0].crossing.D, 400, 1e-6);
  EXPECT_FALSE(a.stability.states[0].crossing.extrapolated);
  EXPECT_TRUE(a.stability.states[1].crossing.extrapolated);
  EXPECT_NEAR(a.stability.states[1].share, 80.0 / 260, 1e-9);  // 2 x 40 slow of 260 with the ceilings' 20
  const std::string text = sweep_summary_text(points, a, ceilings(kTcomm), plan_2x1024());
  EXPECT_NE(text.find("UNSTABLE: the collective's time (T_comm at S) changed 3.0x during the run: 8.389 ms until 20.0 "
                      "s (the ceilings .. D = 420), 25.166 ms after (D = 380 .. D = 420)"),
            std::string::npos)
      << text;
  const SearchStep step = s.next(points, a, 1);
  EXPECT_EQ(step.stop, SearchStop::None);
  EXPECT_TRUE(step.round);
  // Out of budget, the reason names what the rounds lacked.
  const SearchStep late = s.next(points, a, 41);
  EXPECT_EQ(late.stop, SearchStop::Budget);
  EXPECT_TRUE(late.why.find("the machine changed state during the run") != std::string::npos) << late.why;
}

TEST(CrossoverSearch, StartsNoMeasurementThatWouldEndPastTheBudget) {
  CrossoverSearch s(search_plan());
  const std::vector<PointRecord> points = {noisy(64, 0.6 * kTcomm, kTcomm), noisy(128, 1.2 * kTcomm, kTcomm)};
  // The last measurement at 128 took 25 s (a loaded machine): the next would too.
  s.record({SearchStop::None, 128, 0, false, 10, "bisect"}, 25.0);
  EXPECT_GT(s.estimate_s(points, 91, 10), 24.0);
  EXPECT_EQ(next_step(s, points, 10).stop, SearchStop::None);
  const SearchStep late = next_step(s, points, 20);
  EXPECT_EQ(late.stop, SearchStop::Budget);
  EXPECT_TRUE(late.why.find("the budget") != std::string::npos) << late.why;
}

TEST(CrossoverSearch, StopsAtTheUpperEndOfTheRange) {
  SearchPlan p = search_plan();
  p.D_max = 256;
  const CrossoverSearch s(p);
  EXPECT_EQ(next_step(s, {steady(128, 1e-4, kTcomm)}).D, 256u);
  EXPECT_EQ(next_step(s, {steady(128, 1e-4, kTcomm), steady(256, 2e-4, kTcomm)}).stop, SearchStop::RangeEnd);
}

TEST(CrossoverSearch, BelowTheFloorItMeasuresRoundsAtAShardOfOneColumnThenSaysSo) {
  SearchPlan p = search_plan();
  p.D_min = 2;  // 2 ranks: every D <= 2 holds a shard of one column
  p.min_rounds = 3;
  p.min_span_s = 5;
  const CrossoverSearch s(p);
  // Compute-side at 8: down by halves, to D = 2 and no further.
  EXPECT_EQ(next_step(s, {steady(8, 0.05, kTcomm)}).D, 4u);
  EXPECT_EQ(next_step(s, {steady(4, 0.05, kTcomm), steady(8, 0.06, kTcomm)}).D, 2u);
  // At the floor: rounds at D = 2 (one point), then no crossover.
  const SearchStep round = next_step(s, {steady(2, 0.05, kTcomm), steady(4, 0.05, kTcomm)});
  EXPECT_TRUE(round.round);
  EXPECT_EQ(round.D, 2u);
  EXPECT_EQ(round.D2, 0u);
  const SearchStep stop = next_step(s, {spread(steady(2, 0.05, kTcomm), 4, 2), steady(4, 0.05, kTcomm)});
  EXPECT_EQ(stop.stop, SearchStop::NoCrossover);
  EXPECT_TRUE(stop.why.find("below the GEMM's floor") != std::string::npos) << stop.why;
}

TEST(CrossoverSearch, ADownwardCrossingGetsRoundsThenGivesUp) {
  SearchPlan p = search_plan();
  p.min_rounds = 3;
  p.min_span_s = 5;
  const CrossoverSearch s(p);
  const SearchStep more = next_step(s, {steady(64, 2e-3, 1e-3), steady(128, 2e-3, 3e-3)});
  EXPECT_EQ(more.stop, SearchStop::None);
  EXPECT_TRUE(more.round);
  EXPECT_EQ(more.D, 64u);
  EXPECT_EQ(more.D2, 128u);
  EXPECT_EQ(next_step(s, {spread(steady(64, 2e-3, 1e-3), 4, 2), spread(steady(128, 2e-3, 3e-3), 4, 2)}).stop,
            SearchStop::NotLocated);
}

TEST(CrossoverSearch, StartsAtThePowerOfTwoNearestThePrediction) {
  EXPECT_EQ(nearest_power_of_two(97.6, 1, 1 << 20), 128u);  // log2 97.6 = 6.61
  EXPECT_EQ(nearest_power_of_two(90, 1, 1 << 20), 64u);     // log2 90 = 6.49
  EXPECT_EQ(nearest_power_of_two(1e30, 1, 4096), 4096u);
  EXPECT_EQ(nearest_power_of_two(0, 1, 4096), 1u);
  EXPECT_EQ(nearest_power_of_two(std::nan(""), 1, 4096), 1u);
}

// --history: the next launch by the formula combine uses
// (stability::next_launch_interval), around this launch's D* with the
// history's spread and its count of launches.
TEST(SweepAnalysis, TheNextLaunchFromHistoryIsCombinesFormula) {
  const std::vector<PointRecord> points = {steady(256, t_math_at(256), kTcomm), steady(512, t_math_at(512), kTcomm)};
  AnalysisOptions o;
  launches::LaunchHistory history;
  history.path = "history.json";
  history.launches = 5;
  history.between_sd_log = 0.1;
  history.within_sd_log = 0.05;
  history.median = 400;
  o.history = history;
  const SweepAnalysis a = analyze(plan_2x1024(), 2, ceilings(kTcomm), points, o);
  ASSERT_TRUE(a.empirical.D && a.next_launch_interval);
  const double sd = std::sqrt(0.1 * 0.1 + 0.05 * 0.05);
  // t(4) at 97.5% = 2.7764, one launch at the centre: sqrt(2).
  EXPECT_NEAR(std::log(a.next_launch_interval->high / *a.empirical.D), 2.7764 * sd * std::sqrt(2.0), 1e-4);
  EXPECT_NEAR(std::log(*a.empirical.D / a.next_launch_interval->low), 2.7764 * sd * std::sqrt(2.0), 1e-4);
}

// One compute-bound point: the summary advises a smaller D, and --D auto
// only where it was not given.
TEST(SweepSummary, AdvisesDAutoOnlyWhereItWasNotGiven) {
  const std::vector<PointRecord> points = {steady(4096, t_math_at(4096), kTcomm)};
  const RunCeilings c = ceilings(kTcomm);
  SweepPlan plan = plan_2x1024();
  const SweepAnalysis a = analyze(plan, 2, c, points);
  ASSERT_EQ(a.empirical.kind, CrossingKind::BelowRange);
  EXPECT_NE(sweep_summary_text(points, a, c, plan).find("measure smaller D (or --D auto)"), std::string::npos);
  plan.swept_auto = true;
  const std::string s = sweep_summary_text(points, a, c, plan);
  EXPECT_NE(s.find("measure smaller D"), std::string::npos) << s;
  EXPECT_EQ(s.find("--D auto"), std::string::npos) << s;
}

// The method sentences take their numbers from the constants that make
// them: rendered with other values, they say those.
TEST(MethodSentences, FollowTheirConstants) {
  EXPECT_NE(crossover_method().find(std::to_string(kBootstrapReplicates) + " replicates"), std::string::npos);
  const std::string crossover = crossover_method(1234);
  EXPECT_NE(crossover.find("(1234 replicates)"), std::string::npos) << crossover;
  stability::ChangePointOptions o;
  o.permutations = 99;
  o.significance = 0.05;
  const std::string verdict = stability_method(o, 64);
  EXPECT_NE(verdict.find("a 99-permutation test at 5%"), std::string::npos) << verdict;
  EXPECT_NE(verdict.find("at most 64 blocks"), std::string::npos) << verdict;
  EXPECT_NE(stability_method().find(fmt::format("at most {} blocks", stability::kMaxBlocks)), std::string::npos);
  const std::string launches = combine_method(10, 90);
  EXPECT_NE(launches.find("its 10th-90th percentiles"), std::string::npos) << launches;
  EXPECT_NE(combine_method().find(fmt::format("its {}th-{}th percentiles", launches::kWithinLowPercentile,
                                              launches::kWithinHighPercentile)),
            std::string::npos);
}

}  // namespace
}  // namespace shardroof::sweep

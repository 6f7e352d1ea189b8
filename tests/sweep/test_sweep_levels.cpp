// sweep --levels' analysis (sweep/levels.h) against hand-worked values:
// the ring's model from each group's flat ring probe, hier's as the sum of
// the levels' rings (model/topology.h), a level of one unit skipped, a
// probe without a fit leaving its model out, and every D* where a T_math
// curve of slope 1 reaches the level (D = P_l x shard).
#include <gtest/gtest.h>

#include <vector>

#include "sweep/levels.h"

namespace shardroof::sweep {
namespace {

link::RingProbeResult probe(double W, double alpha, bool valid = true) {
  link::RingProbeResult r;
  r.fit.W_bytes_per_s = W;
  r.fit.alpha_s = alpha;
  r.fit.valid = valid;
  return r;
}

LevelComm comm(int level, long long ranks, double ring, std::optional<double> hier) {
  LevelComm c;
  c.level = level;
  c.ranks = ranks;
  c.ring.median = ring;
  if (hier) {
    c.hier = TimeStats{};
    c.hier->median = *hier;
  }
  return c;
}

// B = F = 100 floats: S = 40,000 B, E = 10,000; g = 0. Levels 2 x 1 x 2 x 2:
// level 1 (one unit per unit) moves nothing.
LevelMeasurements measurements() {
  LevelMeasurements m;
  m.probes.sizes = {2, 1, 2, 2};
  m.probes.levels = {{0, 2, 2, probe(1e9, 1e-6), probe(1e9, 1e-6)},
                     {2, 2, 4, probe(5e8, 2e-6), probe(4e8, 3e-6)},
                     {3, 2, 8, probe(2.5e8, 4e-6), probe(0, 0, false)}};
  m.comm = {comm(0, 2, 50e-6, std::nullopt), comm(2, 4, 160e-6, 90e-6), comm(3, 8, 300e-6, 140e-6)};
  return m;
}

// T_math = 1 us per column of the shard, at shards 10, 100 and 1,000.
std::vector<PointRecord> points() {
  std::vector<PointRecord> out;
  for (const std::uint64_t shard : {10u, 100u, 1000u}) {
    PointRecord p;
    p.D = shard * 8;
    p.shard_max = shard;
    p.t_math.median = 1e-6 * static_cast<double>(shard);
    out.push_back(p);
  }
  return out;
}

SweepPlan plan() {
  SweepPlan p;
  p.B = 100;
  p.F = 100;
  return p;
}

TEST(SweepLevels, ModelsAndCrossingsMatchTheHandWorkedValues) {
  const auto a = analyze_levels(plan(), RunCeilings{}, measurements(), points());
  ASSERT_TRUE(a);
  EXPECT_EQ(a->sizes, (std::vector<int>{2, 1, 2, 2}));
  ASSERT_EQ(a->levels.size(), 3u);
  const LevelCrossover& l0 = a->levels[0];
  const LevelCrossover& l2 = a->levels[1];
  const LevelCrossover& l3 = a->levels[2];
  EXPECT_EQ(l2.level, 2);
  EXPECT_EQ(l3.ranks, 8);
  // Level 0: 2a + S/W = 2 + 40 us, ring and hier alike; no hier measured: the ring's.
  ASSERT_TRUE(l0.t_ring_model_s && l0.t_hier_model_s);
  EXPECT_NEAR(*l0.t_ring_model_s, 42e-6, 1e-12);
  EXPECT_NEAR(*l0.t_hier_model_s, 42e-6, 1e-12);
  EXPECT_EQ(l0.t_hier_s, l0.t_ring_s);
  // Level 2 (P = 4): ring 2*3*3 us + 2*(3/4)*S/4e8 = 18 + 150 us; hier 42 us
  // + level 1's nothing + 2*2 us + (S/2)/5e8 = 42 + 4 + 40 us.
  EXPECT_NEAR(*l2.t_ring_model_s, 168e-6, 1e-12);
  EXPECT_NEAR(*l2.t_hier_model_s, 86e-6, 1e-12);
  // Level 3: no flat ring fit, no ring model; hier adds 2*4 us + (S/4)/2.5e8.
  EXPECT_FALSE(l3.t_ring_model_s);
  EXPECT_NEAR(*l3.t_hier_model_s, 134e-6, 1e-12);
  // D* = P x T / (1 us per column), inside the curve.
  const auto d = [](const LevelCrossing& c) { return c.D.value_or(-1); };
  EXPECT_NEAR(d(l0.d_ring), 2 * 50.0, 1e-6);
  EXPECT_NEAR(d(l0.d_ring_model), 2 * 42.0, 1e-6);
  EXPECT_NEAR(d(l2.d_ring), 4 * 160.0, 1e-6);
  EXPECT_NEAR(d(l2.d_hier), 4 * 90.0, 1e-6);
  EXPECT_NEAR(d(l2.d_ring_model), 4 * 168.0, 1e-6);
  EXPECT_NEAR(d(l2.d_hier_model), 4 * 86.0, 1e-6);
  EXPECT_NEAR(d(l3.d_ring), 8 * 300.0, 1e-6);
  EXPECT_NEAR(d(l3.d_hier), 8 * 140.0, 1e-6);
  EXPECT_NEAR(d(l3.d_hier_model), 8 * 134.0, 1e-6);
  EXPECT_FALSE(l3.d_ring_model.D);
  EXPECT_FALSE(l2.d_ring.extrapolated);
}

TEST(SweepLevels, OutsideTheCurveExtrapolatesOrStopsAtTheFloor) {
  LevelMeasurements m = measurements();
  m.comm[0].ring.median = 5e-6;   // below the first point (shard 10)
  m.comm[2].ring.median = 2e-3;   // above the last (shard 1,000)
  auto a = analyze_levels(plan(), RunCeilings{}, m, points());
  ASSERT_TRUE(a);
  EXPECT_TRUE(a->levels[0].d_ring.extrapolated);
  EXPECT_NEAR(a->levels[0].d_ring.D.value_or(-1), 2 * 5.0, 1e-6);
  EXPECT_TRUE(a->levels[2].d_ring.extrapolated);
  EXPECT_NEAR(a->levels[2].d_ring.D.value_or(-1), 8 * 2000.0, 1e-6);
  // A curve that starts at a shard of one column is the GEMM's floor: nothing below it.
  std::vector<PointRecord> floor = points();
  floor.front().shard_max = 1;
  floor.front().t_math.median = 1e-6 * 10;
  a = analyze_levels(plan(), RunCeilings{}, m, floor);
  ASSERT_TRUE(a);
  EXPECT_TRUE(a->levels[0].d_ring.below_floor);
  EXPECT_FALSE(a->levels[0].d_ring.D);
}

TEST(SweepLevels, AProbeWithoutAFitLeavesHierUnmodelledFromThereUp) {
  LevelMeasurements m = measurements();
  m.probes.levels[1].phase = probe(0, 0, false);
  const auto a = analyze_levels(plan(), RunCeilings{}, m, points());
  ASSERT_TRUE(a);
  EXPECT_TRUE(a->levels[0].t_hier_model_s);
  EXPECT_FALSE(a->levels[1].t_hier_model_s);
  EXPECT_FALSE(a->levels[2].t_hier_model_s);
  EXPECT_TRUE(a->levels[1].t_ring_model_s);  // the flat ring's probe still fits
}

TEST(SweepLevels, NothingMeasuredNothingAnalysed) {
  EXPECT_FALSE(analyze_levels(plan(), RunCeilings{}, std::nullopt, points()));
  LevelMeasurements empty;
  empty.probes.sizes = {2, 2};
  EXPECT_FALSE(analyze_levels(plan(), RunCeilings{}, empty, points()));
}

}  // namespace
}  // namespace shardroof::sweep

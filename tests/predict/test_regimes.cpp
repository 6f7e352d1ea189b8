// The regimes of a step and the roof model's crossover on constructed
// ceilings: a crossing on the compute roof, one on the memory roof, none
// below the GEMM's floor, one beyond the range, an overhead-bound GEMM, and
// each point's bound and roof fraction.
#include <gtest/gtest.h>

#include <cmath>

#include "model/regimes.h"

namespace shardroof::model {
namespace {

// 2 ranks, B = F = 1024 floats: the partial sum is 4 MiB.
Shape shape() {
  Shape s;
  s.B = 1024;
  s.F = 1024;
  s.ranks = 2;
  s.bytes_per_elem = 4;
  return s;
}

// C = 1e11 FLOP/s, M = 1e10 B/s: memory at shard 1 = 4*(2048 + 1048576)/1e10
// = 0.420 ms; compute at shard k = 2*1024*k*1024/1e11 = 20.97 us * k.
Ceilings ceilings() {
  Ceilings c;
  c.flops_per_s = 1e11;
  c.memory_bytes_per_s = 1e10;
  return c;
}

constexpr double kMemShard1 = 4.0 * (2048 + 1048576) / 1e10;

GemmFloor memory_floor() {
  GemmFloor f;
  f.time_s = 0.45e-3;  // a little above the memory roof at shard 1
  f.memory_s = kMemShard1;
  f.call_s = 1e-6;
  return f;
}

TEST(Regimes, TheFloorsCause) {
  EXPECT_EQ(memory_floor().cause(), Roof::Memory);
  GemmFloor f = memory_floor();
  f.time_s = 3 * f.memory_s;  // the bfloat16 GEMM's per-call cost: six times the memory floor there
  EXPECT_EQ(f.cause(), Roof::Overhead);
}

TEST(Regimes, ACrossingOnTheComputeRoof) {
  // T_comm = 2 ms: compute reaches it at shard 2e-3/20.97e-6 = 95.4 (D = 190.7);
  // memory only at (2e-3*1e10/4 - 1048576)/2048 = 1929.
  const RoofCrossover x = solve_roof_crossover(shape(), ceilings(), memory_floor(), 2e-3);
  ASSERT_EQ(x.kind, CrossoverKind::Crossing);
  EXPECT_EQ(x.roof, Roof::Compute);
  EXPECT_NEAR(x.D, 2 * 2e-3 * 1e11 / (2.0 * 1024 * 1024), 1e-9);
  EXPECT_DOUBLE_EQ(x.conditioning.slope, 1.0);
  EXPECT_FALSE(x.conditioning.ill_conditioned);
}

TEST(Regimes, ACrossingOnTheMemoryRoofIsIllConditioned) {
  // A fast GEMM (C = 1e13): compute reaches 0.5 ms at shard 2384, memory at
  // shard (0.5e-3*1e10/4 - 1048576)/2048 = 98.3; the memory roof's slope
  // there is 2048*98.3/(2048*98.3 + 1048576) = 0.161.
  Ceilings c = ceilings();
  c.flops_per_s = 1e13;
  const RoofCrossover x = solve_roof_crossover(shape(), c, memory_floor(), 0.5e-3);
  ASSERT_EQ(x.kind, CrossoverKind::Crossing);
  EXPECT_EQ(x.roof, Roof::Memory);
  const double shard = (0.5e-3 * 1e10 / 4 - 1048576) / 2048;
  EXPECT_NEAR(x.D, 2 * shard, 1e-6);
  EXPECT_NEAR(x.conditioning.slope, 2048 * shard / (2048 * shard + 1048576), 1e-9);
  EXPECT_TRUE(x.conditioning.ill_conditioned);
  EXPECT_NEAR(x.conditioning.sensitivity, 1 / x.conditioning.slope, 1e-9);
}

TEST(Regimes, NoCrossoverBelowTheFloor) {
  // The exchange (0.29 ms) is cheaper than writing the partial sum (0.45 ms).
  const RoofCrossover x = solve_roof_crossover(shape(), ceilings(), memory_floor(), 0.29e-3);
  EXPECT_EQ(x.kind, CrossoverKind::BelowFloor);
  EXPECT_DOUBLE_EQ(x.floor_s, 0.45e-3);
  EXPECT_EQ(x.floor_cause, Roof::Memory);
}

TEST(Regimes, ACrossingBeyondTheRange) {
  const RoofCrossover x = solve_roof_crossover(shape(), ceilings(), memory_floor(), 2e-3, 128);
  EXPECT_EQ(x.kind, CrossoverKind::AboveRange);
  EXPECT_GT(x.D, 128);
}

TEST(Regimes, AnOverheadBoundGemm) {
  // A floor of 1 ms far above the 0.42 ms memory roof: up to the compute
  // roof's 1 ms (shard 47.7) the point is overhead-bound; T_comm = 0.9 ms
  // lies below it: no crossover, caused by overhead.
  GemmFloor f = memory_floor();
  f.time_s = 1e-3;
  const Roofs at8 = roofs_at(shape(), ceilings(), f, 16);  // shard 8
  EXPECT_EQ(at8.binding(), Roof::Overhead);
  const Regime r = classify(at8, 1.05e-3, 0.5e-3, 0);
  EXPECT_EQ(r.bound, Bound::Overhead);
  EXPECT_NEAR(r.roof_fraction, 1e-3 / 1.05e-3, 1e-12);
  const RoofCrossover x = solve_roof_crossover(shape(), ceilings(), f, 0.9e-3);
  EXPECT_EQ(x.kind, CrossoverKind::BelowFloor);
  EXPECT_EQ(x.floor_cause, Roof::Overhead);
}

TEST(Regimes, EachPointsBoundAndRoofFraction) {
  const GemmFloor f = memory_floor();
  // Communication-bound: the fraction of the link's roof the collective reached.
  const Regime comm = classify(roofs_at(shape(), ceilings(), f, 64), 1e-3, 2e-3, 0.5e-3);
  EXPECT_EQ(comm.bound, Bound::Communication);
  EXPECT_DOUBLE_EQ(comm.roof_fraction, 0.25);
  // D = 512 (shard 256): compute 5.37 ms beats memory 0.63 ms.
  const Regime compute = classify(roofs_at(shape(), ceilings(), f, 512), 6e-3, 1e-3, 0);
  EXPECT_EQ(compute.bound, Bound::Compute);
  EXPECT_NEAR(compute.roof_fraction, 2 * 1024 * 256 * 1024 / 1e11 / 6e-3, 1e-12);
  // D = 2 (shard 1): the floor, whose cause is memory.
  const Regime floor = classify(roofs_at(shape(), ceilings(), f, 2), 0.46e-3, 0.3e-3, 0);
  EXPECT_EQ(floor.bound, Bound::Memory);
  EXPECT_NEAR(floor.roof_fraction, 0.45 / 0.46, 1e-12);
}

TEST(Regimes, ThePresetFloorIsTheLargerOfMemoryAndTheCall) {
  const GemmFloor f = model_floor(shape(), ceilings(), 5e-6);
  EXPECT_NEAR(f.time_s, kMemShard1, 1e-15);
  EXPECT_EQ(f.cause(), Roof::Memory);
  const GemmFloor launch = model_floor(shape(), ceilings(), 1e-3);
  EXPECT_DOUBLE_EQ(launch.time_s, 1e-3);
  EXPECT_EQ(launch.cause(), Roof::Overhead);
}

TEST(Regimes, SlopeOfTheModel) {
  EXPECT_DOUBLE_EQ(model_slope(shape(), ceilings(), memory_floor(), 2), 0.0);  // on the floor
  EXPECT_DOUBLE_EQ(model_slope(shape(), ceilings(), memory_floor(), 1024), 1.0);
  EXPECT_TRUE(conditioning_of(0.3).ill_conditioned);
  EXPECT_FALSE(conditioning_of(0.9).ill_conditioned);
  EXPECT_TRUE(std::isinf(conditioning_of(0).sensitivity));
}

}  // namespace
}  // namespace shardroof::model

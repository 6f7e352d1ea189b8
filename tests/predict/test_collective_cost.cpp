// Each implementation's cost formula (model/collective_cost.h, as the
// headers in collectives/ state them) against values worked out by hand.
// Link: a = 10 us, W = 1e9 B/s, g = 1e-10 s/B, c = 2e-10 s/B; S = 8 MB
// (8e6 bytes) unless said.
#include <gtest/gtest.h>

#include "model/collective_cost.h"
#include "model/roofline.h"
#include "model/two_level.h"

namespace shardroof::model {
namespace {

using coll::CollectiveKind;

constexpr double kS = 8e6;

CollLink link() {
  CollLink l;
  l.alpha_s = 1e-5;
  l.W_bytes_per_s = 1e9;
  l.g_s_per_byte = 1e-10;
  l.copy_s_per_byte = 2e-10;
  return l;
}

CollCost cost(CollectiveKind kind, coll::Algorithm impl, int n, bool in_place = false, int k = 0, std::uint64_t segments = 1,
              CollLink l = link()) {
  const auto c = collective_cost({kind, impl, n, static_cast<std::uint64_t>(kS), in_place, k, segments}, l);
  EXPECT_TRUE(c.has_value());
  return c.value_or(CollCost{});
}

TEST(CollectiveCost, RingAllReduce) {
  // N = 4: 6a = 60 us; 2*3/4 * 8e6 / 1e9 = 12 ms; 3/4 * 8e6 * 1e-10 = 0.6 ms.
  const CollCost c = cost(CollectiveKind::AllReduce, coll::Algorithm::Ring, 4);
  EXPECT_NEAR(c.time_s, 6e-5 + 1.2e-2 + 6e-4, 1e-12);
  // busbw = S/T * 2*3/4.
  EXPECT_NEAR(c.busbw_bytes_per_s, kS / c.time_s * 1.5, 1e-3);
  EXPECT_EQ(c.formula, "2(N-1)a + 2(N-1)/N S/W + (N-1)/N S g");
}

TEST(CollectiveCost, RingReduceScatterAndAllGather) {
  // N = 2: a = 10 us; 1/2 * 8e6 / 1e9 = 4 ms; 1/2 * 8e6 * 1e-10 = 0.4 ms.
  EXPECT_NEAR(cost(CollectiveKind::ReduceScatter, coll::Algorithm::Ring, 2).time_s, 1e-5 + 4e-3 + 4e-4, 1e-12);
  // AllGather reduces nothing: N = 4, 3a + 3/4 * 8 ms = 30 us + 6 ms.
  EXPECT_NEAR(cost(CollectiveKind::AllGather, coll::Algorithm::Ring, 4).time_s, 3e-5 + 6e-3, 1e-12);
}

TEST(CollectiveCost, RingBusbwTendsToW) {
  // Without latency or reduction the ring's busbw is exactly W.
  CollLink l = link();
  l.alpha_s = 0;
  l.g_s_per_byte = 0;
  for (const int n : {2, 3, 8})
    EXPECT_NEAR(cost(CollectiveKind::AllReduce, coll::Algorithm::Ring, n, false, 0, 1, l).busbw_bytes_per_s, 1e9, 1e-3);
}

TEST(CollectiveCost, Pairwise) {
  // N = 4: AllReduce 2a + 12 ms + 0.6 ms; ReduceScatter a + 6 ms + 0.6 ms; AllGather a + 6 ms.
  EXPECT_NEAR(cost(CollectiveKind::AllReduce, coll::Algorithm::Pairwise, 4).time_s, 2e-5 + 1.2e-2 + 6e-4, 1e-12);
  EXPECT_NEAR(cost(CollectiveKind::ReduceScatter, coll::Algorithm::Pairwise, 4).time_s, 1e-5 + 6e-3 + 6e-4, 1e-12);
  EXPECT_NEAR(cost(CollectiveKind::AllGather, coll::Algorithm::Pairwise, 4).time_s, 1e-5 + 6e-3, 1e-12);
}

TEST(CollectiveCost, Direct) {
  // N = 4, AllReduce: a + 3 * 8 ms + 3 * 0.8 ms = 10 us + 24 ms + 2.4 ms.
  EXPECT_NEAR(cost(CollectiveKind::AllReduce, coll::Algorithm::Direct, 4).time_s, 1e-5 + 2.4e-2 + 2.4e-3, 1e-12);
  // ReduceScatter moves what the ring moves, in one round.
  EXPECT_NEAR(cost(CollectiveKind::ReduceScatter, coll::Algorithm::Direct, 4).time_s, 1e-5 + 6e-3 + 6e-4, 1e-12);
  EXPECT_FALSE(collective_cost({CollectiveKind::AllGather, coll::Algorithm::Direct, 4, 8}, link()).has_value());
}

TEST(CollectiveCost, NativeIsAssumedToReachOurs) {
  const CollCost c = cost(CollectiveKind::AllReduce, coll::Algorithm::Native, 4);
  EXPECT_NEAR(c.time_s, cost(CollectiveKind::AllReduce, coll::Algorithm::Ring, 4).time_s, 1e-15);
  EXPECT_EQ(c.formula.rfind("assumed ring: ", 0), 0u) << c.formula;
  EXPECT_NEAR(cost(CollectiveKind::AllToAll, coll::Algorithm::Native, 4).time_s,
              cost(CollectiveKind::AllToAll, coll::Algorithm::Pairwise, 4).time_s, 1e-15);
}

TEST(CollectiveCost, HierTwoByTwo) {
  // K = 2, M = 2; inside a = 10 us, W = 1e9; across a_o = 50 us, W_o = 1e8.
  CollLink l = link();
  l.inter_alpha_s = 5e-5;
  l.inter_W_bytes_per_s = 1e8;
  // AllReduce: inside 2a + 1/2*2*8 ms = 20 us + 8 ms; across (S/K = 4e6)
  // 2a_o + 1/2*2*4e6/1e8 = 100 us + 40 ms; g: 1/2*8e6*1e-10 + 1/2*4e6*1e-10 = 0.4 + 0.2 ms.
  EXPECT_NEAR(cost(CollectiveKind::AllReduce, coll::Algorithm::Hier, 4, false, 2, 1, l).time_s,
              2e-5 + 8e-3 + 1e-4 + 4e-2 + 4e-4 + 2e-4, 1e-12);
  // ReduceScatter: a + 4 ms + a_o + 20 ms + 0.4 + 0.2 ms + S c (1.6 ms).
  EXPECT_NEAR(cost(CollectiveKind::ReduceScatter, coll::Algorithm::Hier, 4, false, 2, 1, l).time_s,
              1e-5 + 4e-3 + 5e-5 + 2e-2 + 6e-4 + 1.6e-3, 1e-12);
  // R = 2 (one link per node, as on emulated nodes): each ring across gets
  // W_o/2, so the cross-node bandwidth term doubles: 80 ms (RS: 40 ms).
  l.inter_ranks_per_link = 2;
  const CollCost shared = cost(CollectiveKind::AllReduce, coll::Algorithm::Hier, 4, false, 2, 1, l);
  EXPECT_NEAR(shared.time_s, 2e-5 + 8e-3 + 1e-4 + 8e-2 + 4e-4 + 2e-4, 1e-12);
  EXPECT_NE(shared.formula.find("(S/K) R/W_o"), std::string::npos) << shared.formula;
  EXPECT_NEAR(cost(CollectiveKind::ReduceScatter, coll::Algorithm::Hier, 4, false, 2, 1, l).time_s,
              1e-5 + 4e-3 + 5e-5 + 4e-2 + 6e-4 + 1.6e-3, 1e-12);
  // One node (K = N) is the flat ring.
  EXPECT_NEAR(cost(CollectiveKind::AllReduce, coll::Algorithm::Hier, 4, false, 4).time_s,
              cost(CollectiveKind::AllReduce, coll::Algorithm::Ring, 4).time_s, 1e-15);
}

TEST(CollectiveCost, ChainBroadcast) {
  // 2 ranks, one segment: a + S/W = 10 us + 8 ms; busbw = algbw.
  const CollCost two = cost(CollectiveKind::Broadcast, coll::Algorithm::Ring, 2);
  EXPECT_NEAR(two.time_s, 1e-5 + 8e-3, 1e-12);
  EXPECT_NEAR(two.busbw_bytes_per_s, kS / two.time_s, 1e-3);
  // 4 ranks, 8 segments: (4-2+8) * (a + 1 ms) = 10 * 1.01 ms.
  EXPECT_NEAR(cost(CollectiveKind::Broadcast, coll::Algorithm::Ring, 4, false, 0, 8).time_s, 10 * 1.01e-3, 1e-12);
}

TEST(CollectiveCost, AllToAll) {
  // N = 4: 3a + 3/4 * 8 ms; in place + S c = 1.6 ms.
  EXPECT_NEAR(cost(CollectiveKind::AllToAll, coll::Algorithm::Pairwise, 4).time_s, 3e-5 + 6e-3, 1e-12);
  EXPECT_NEAR(cost(CollectiveKind::AllToAll, coll::Algorithm::Pairwise, 4, true).time_s, 3e-5 + 6e-3 + 1.6e-3, 1e-12);
}

TEST(CollectiveCost, NoFormula) {
  EXPECT_FALSE(collective_cost({CollectiveKind::AllReduce, coll::Algorithm::Auto, 4, 8}, link()).has_value());
  EXPECT_FALSE(collective_cost({CollectiveKind::Broadcast, coll::Algorithm::Pairwise, 4, 8}, link()).has_value());
  CollLink none = link();
  none.W_bytes_per_s = 0;
  EXPECT_FALSE(collective_cost({CollectiveKind::AllReduce, coll::Algorithm::Ring, 4, 8}, none).has_value());
}


// The book's T_comm (model/roofline.h) and the ring's cost formula are one
// formula: N = 4, B = F = 1024 floats (S = 4 MiB), a = 2 us, W = 1e10 B/s,
// g = 0.2 ns per element: 6a = 12 us; 2*3/4 * 4194304 / 1e10 = 629.1456 us;
// 3/4 * 1048576 * 0.2e-9 = 157.2864 us; 798.432 us in all (ReduceScatter:
// 6 + 314.5728 + 157.2864 = 477.8592 us).
TEST(CollectiveCost, TheBooksTCommIsTheRingsFormula) {
  Shape sh;
  sh.B = 1024;
  sh.F = 1024;
  sh.ranks = 4;
  sh.bytes_per_elem = 4;
  Ceilings c;
  c.latency_s = 2e-6;
  c.link_bytes_per_s = 1e10;
  c.reduce_s_per_elem = 0.2e-9;
  EXPECT_NEAR(t_comm(sh, c), 798.432e-6, 1e-12);
  CollLink l;
  l.alpha_s = 2e-6;
  l.W_bytes_per_s = 1e10;
  l.g_s_per_byte = 0.2e-9 / 4;
  const auto ring = collective_cost({CollectiveKind::AllReduce, coll::Algorithm::Ring, 4, 4194304}, l);
  ASSERT_TRUE(ring);
  EXPECT_NEAR(ring->time_s, 798.432e-6, 1e-12);
  sh.collective = Collective::ReduceScatter;
  EXPECT_NEAR(t_comm(sh, c), 477.8592e-6, 1e-12);
  // No W: the bandwidth term is left out, as before.
  c.link_bytes_per_s = 0;
  EXPECT_NEAR(t_comm(sh, c), 6e-6 + 157.2864e-6, 1e-12);
}

// The two-level model's T_hier (model/two_level.h) is hier's cost formula:
// the same 2 x 2 cluster as above with R = 2 and g per element = 4 x g per
// byte, and no copy (the two-level model has none).
TEST(CollectiveCost, TheTwoLevelModelsTHierIsHiersFormula) {
  TwoLevelShape shape{1000, 2000, 2, 2, 4, Collective::AllReduce};  // S = 8e6 bytes
  TwoLevelCeilings c;
  c.intra = {1e9, 1e-5};
  c.inter = {1e8, 5e-5};
  c.reduce_s_per_elem = 4e-10;
  c.ranks_per_inter_link = 2;
  EXPECT_NEAR(t_comm_hier(shape, c), 2e-5 + 8e-3 + 1e-4 + 8e-2 + 4e-4 + 2e-4, 1e-12);
  shape.collective = Collective::ReduceScatter;
  EXPECT_NEAR(t_comm_hier(shape, c), 1e-5 + 4e-3 + 5e-5 + 4e-2 + 6e-4, 1e-12);
}

}  // namespace
}  // namespace shardroof::model

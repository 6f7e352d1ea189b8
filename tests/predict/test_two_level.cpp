// The two-level model against values worked out by hand from its formulas
// (model/two_level.h). Cluster: 2 nodes x 4 H100 (bfloat16, C = 9.89e14),
// NVLink inside (W_i = 4.5e11, a_i = 3.4e-6), InfiniBand across (W_o =
// 5e10, a_o = 9.6e-6), B = F = 4096: E = 16777216, S = 33554432 bytes.
#include <gtest/gtest.h>

#include "model/roofline.h"
#include "model/two_level.h"

namespace shardroof::model {
namespace {

TwoLevelShape cluster(Collective collective) { return {4096, 4096, 2, 4, 2, collective}; }

TwoLevelCeilings h100(int ranks_per_inter_link, double g) {
  TwoLevelCeilings c;
  c.flops_per_s = 9.89e14;
  c.intra = {4.5e11, 3.4e-6};
  c.inter = {5e10, 9.6e-6};
  c.reduce_s_per_elem = g;
  c.ranks_per_inter_link = ranks_per_inter_link;
  return c;
}

TEST(TwoLevel, AllReduceWithANicPerRank) {
  const TwoLevelPrediction p = predict_two_level(cluster(Collective::AllReduce), h100(1, 0));
  // Flat: 2*7*9.6e-6 + 2*7/8 * S/5e10 = 1.344e-4 + 1.17440512e-3.
  EXPECT_NEAR(p.t_comm_flat, 1.30880512e-3, 1e-12);
  // = 7*2*C/W_o + 8*7*a_o*C/E, the flat model's D* on the slower link.
  EXPECT_NEAR(p.d_star_flat, 308610.979, 1e-2);
  // Hier: 2*3*3.4e-6 + 2*3/4 * S/4.5e11 + 2*1*9.6e-6 + 2*1/2 * (S/4)/5e10
  //     = 2.04e-5 + 1.1184811e-4 + 1.92e-5 + 1.6777216e-4.
  EXPECT_NEAR(p.t_comm_hier, 3.1922027e-4, 1e-11);
  EXPECT_NEAR(p.d_star_hier, 75270.854, 1e-2);
  EXPECT_EQ(p.faster, "hier");
  EXPECT_DOUBLE_EQ(p.flat_link.bytes_per_s, 5e10);
  EXPECT_DOUBLE_EQ(p.flat_link.latency_s, 9.6e-6);
}

TEST(TwoLevel, OneLinkPerNodeIsSharedByTheCrossNodeRings) {
  // R = 4: each of the 4 rings across gets 5e10/4: the cross-node bandwidth
  // term is 4 x 1.6777216e-4.
  const TwoLevelPrediction p = predict_two_level(cluster(Collective::AllReduce), h100(4, 0));
  EXPECT_NEAR(p.inter_flow_bytes_per_s, 1.25e10, 1);
  EXPECT_NEAR(p.t_comm_hier, 8.2253675e-4, 1e-11);
  EXPECT_NEAR(p.d_star_hier, 193950.854, 1e-2);
  EXPECT_EQ(p.faster, "hier");
}

TEST(TwoLevel, ReduceScatterWithTheReduction) {
  // g = 1e-10 s per element. Flat: 7*a_o + 7/8*S/W_o + 7/8*E*g.
  // Hier: 3*a_i + 3/4*S/W_i + a_o + 1/2*(S/4)/W_o + (3/4*E + 1/2*E/4)*g.
  const TwoLevelPrediction p = predict_two_level(cluster(Collective::ReduceScatter), h100(1, 1e-10));
  EXPECT_NEAR(p.t_comm_flat, 2.12240896e-3, 1e-12);
  EXPECT_NEAR(p.t_comm_hier, 1.62761653e-3, 1e-11);
  EXPECT_NEAR(p.d_star_flat, 500455.490, 1e-2);
  EXPECT_NEAR(p.d_star_hier, 383785.427, 1e-2);
}

TEST(TwoLevel, FlatRingMatchesTheOneLevelModel) {
  const TwoLevelShape shape = cluster(Collective::AllReduce);
  const TwoLevelCeilings c = h100(1, 0);
  const Shape flat{shape.B, shape.F, 8, 2, Collective::AllReduce};
  const Ceilings slower{c.flops_per_s, c.inter.bytes_per_s, c.inter.latency_s, 0, 0};
  EXPECT_NEAR(predict_two_level(shape, c).d_star_flat, d_star(flat, slower), 1e-6);
}

TEST(TwoLevel, OneNodeOrOneRankPerNodeIsTheRing) {
  TwoLevelShape one_node = cluster(Collective::AllReduce);
  one_node.nodes = 1;
  const TwoLevelPrediction a = predict_two_level(one_node, h100(1, 0));
  EXPECT_NEAR(a.t_comm_hier, a.t_comm_flat, 1e-15);
  EXPECT_EQ(a.faster, "ring");
  TwoLevelShape one_per_node = cluster(Collective::AllReduce);
  one_per_node.ranks_per_node = 1;
  one_per_node.nodes = 8;
  const TwoLevelPrediction b = predict_two_level(one_per_node, h100(1, 0));
  EXPECT_NEAR(b.t_comm_hier, b.t_comm_flat, 1e-15);
  EXPECT_EQ(b.faster, "ring");
}

TEST(TwoLevel, AMeasuredFlatLinkReplacesTheSlowerLevel) {
  TwoLevelCeilings c = h100(1, 0);
  c.flat = LinkLevel{2.5e10, 2e-5};
  const TwoLevelPrediction p = predict_two_level(cluster(Collective::AllReduce), c);
  // 2*7*2e-5 + 2*7/8 * S/2.5e10 = 2.8e-4 + 2.34881024e-3.
  EXPECT_NEAR(p.t_comm_flat, 2.62881024e-3, 1e-12);
}

TEST(TwoLevel, RanksSharingTheInterLinkFromAloneAndTogether) {
  // K = 2: alone 117 MB/s, together 46.6 .. 50 (2.3 .. 2.5x): the two rings share one link.
  EXPECT_EQ(ranks_sharing_inter_link(117e6, 46.6e6, 2), 2);
  EXPECT_EQ(ranks_sharing_inter_link(117e6, 50e6, 2), 2);
  // A link per rank: together as fast as alone, or a little slower.
  EXPECT_EQ(ranks_sharing_inter_link(117e6, 117e6, 2), 1);
  EXPECT_EQ(ranks_sharing_inter_link(117e6, 90e6, 4), 1);
  // Rounded on a log scale: 1|2 at sqrt(2), 2|3 at sqrt(6), 3|4 at sqrt(12).
  EXPECT_EQ(ranks_sharing_inter_link(1.40, 1, 4), 1);
  EXPECT_EQ(ranks_sharing_inter_link(1.42, 1, 4), 2);
  EXPECT_EQ(ranks_sharing_inter_link(2.44, 1, 4), 2);
  EXPECT_EQ(ranks_sharing_inter_link(2.46, 1, 4), 3);
  EXPECT_EQ(ranks_sharing_inter_link(3.47, 1, 4), 4);
  // Never more than the ranks of a node.
  EXPECT_EQ(ranks_sharing_inter_link(10, 1, 4), 4);
  EXPECT_EQ(ranks_sharing_inter_link(10, 1, 2), 2);
  // Nothing measured, or one rank per node: 1.
  EXPECT_EQ(ranks_sharing_inter_link(0, 1, 4), 1);
  EXPECT_EQ(ranks_sharing_inter_link(1, 0, 4), 1);
  EXPECT_EQ(ranks_sharing_inter_link(10, 1, 1), 1);
}

}  // namespace
}  // namespace shardroof::model

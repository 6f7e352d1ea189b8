// The L-level model (model/topology.h): against the two-level model it
// generalizes (model/two_level.h, collectives/hierarchical.h's cost), against
// values worked out by hand from its formulas on simple numbers, and its
// sources (topology TOML, --level flags).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "cli/level_flags.h"
#include "model/hardware.h"
#include "model/topology.h"
#include "model/two_level.h"
#include "util/error.h"

namespace shardroof::model {
namespace {

// The same formula may round differently in the last bits (W*(1/R) against W/R).
void expect_same(double a, double b) { EXPECT_NEAR(a, b, 1e-12 * std::max(std::abs(a), std::abs(b))); }

TEST(Topology, TwoLevelsAreTheTwoLevelModel) {
  // 2 nodes x 4 H100 and more shapes; every R from 1 to K; AllReduce and
  // ReduceScatter; with and without the reduction.
  struct Case {
    int nodes, ranks_per_node;
  };
  for (const Case k : {Case{2, 4}, Case{4, 8}, Case{16, 8}, Case{1, 8}, Case{8, 1}, Case{3, 3}})
    for (int R = 1; R <= k.ranks_per_node; ++R)
      for (const Collective coll : {Collective::AllReduce, Collective::ReduceScatter})
        for (const double g : {0.0, 1e-10}) {
          const TwoLevelShape shape{4096, 4096, k.nodes, k.ranks_per_node, 2, coll};
          TwoLevelCeilings c;
          c.flops_per_s = 9.89e14;
          c.intra = {4.5e11, 3.4e-6};
          c.inter = {5e10, 9.6e-6};
          c.reduce_s_per_elem = g;
          c.ranks_per_inter_link = R;
          const LevelTopology t = two_level_topology(shape, c);
          const LevelCollective call{coll, shape.B * shape.F * 2, shape.B * shape.F, g};
          SCOPED_TRACE(::testing::Message() << k.nodes << " x " << k.ranks_per_node << ", R = " << R
                                            << ", g = " << g << ", " << to_string(coll));
          expect_same(t_comm_ring(t, 1, call), t_comm_flat(shape, c));
          expect_same(t_comm_hier(t, 1, call), model::t_comm_hier(shape, c));
          const TwoLevelPrediction two = predict_two_level(shape, c);
          expect_same(ring_link(t, 1).bytes_per_s, two.flat_link.bytes_per_s);
          expect_same(ring_link(t, 1).latency_s, two.flat_link.latency_s);
          expect_same(hier_flow_bytes_per_s(t.levels[1]), two.inter_flow_bytes_per_s);
          LevelShape ls;
          ls.B = shape.B;
          ls.F = shape.F;
          ls.bytes_per_elem = 2;
          ls.contracting = coll;
          ls.flops_per_s = c.flops_per_s;
          ls.reduce_s_per_elem = g;
          const auto levels = predict_levels(t, ls);
          expect_same(levels[1].d_star_ring, two.d_star_flat);
          expect_same(levels[1].d_star_hier, two.d_star_hier);
          if (levels[1].faster_contracting != "same") {
            EXPECT_EQ(levels[1].faster_contracting, two.faster);
          }
        }
}

// Three levels of 2: W = 400, 100, 100 bytes/s, a = 0.01, 0.02, 0.03 s, the
// top level 2:1 (o = 0.5). C = 1000 FLOP/s; B = F = 10, s = 8: S = 800
// bytes, E = 100; fsdp D = 10: the weight is 800 bytes too.
LevelTopology three_levels() {
  LevelTopology t;
  t.name = "test";
  t.levels = {{"a", 2, 400, 0.01, 1, "", true, true},
              {"b", 2, 100, 0.02, 1, "", true, true},
              {"c", 2, 100, 0.03, 0.5, "", true, true}};
  return t;
}

LevelShape small_shape() {
  LevelShape s;
  s.B = 10;
  s.F = 10;
  s.D = 10;
  s.bytes_per_elem = 8;
  s.flops_per_s = 1000;
  return s;
}

TEST(Topology, ThreeLevelsByHand) {
  const auto p = predict_levels(three_levels(), small_shape());
  ASSERT_EQ(p.size(), 3u);
  // Level 0, N = 2: ring and hier are one ring on W = 400, a = 0.01:
  // 2*1*0.01 + 2*(1/2)*800/400 = 2.02; D* = 2*1000*2.02/(2*10*10) = 20.2.
  // AllGather: 1*0.01 + (1/2)*800/400 = 1.01; B*/N = 1000*1.01/(2*10*10) = 5.05.
  EXPECT_NEAR(p[0].t_ring_contracting, 2 * 1 * 0.01 + 2 * 0.5 * 800 / 400.0, 1e-12);
  EXPECT_NEAR(p[0].t_hier_contracting, 2.02, 1e-12);
  EXPECT_NEAR(p[0].d_star_ring, 20.2, 1e-9);
  EXPECT_NEAR(p[0].b_star_per_rank_ring, 5.05, 1e-9);
  EXPECT_EQ(p[0].faster_contracting, "same");
  // Level 1, N = 4: the ring's flow across level 1 gets 100*min(1, 1*2) =
  // 100, a = 0.02: 2*3*0.02 + 2*(3/4)*800/100 = 12.12, D* = 4*1000*12.12/200
  // = 242.4. hier: 2.02 + (2*1*0.02 + 2*(1/2)*(800/2)/100) = 2.02 + 4.04 =
  // 6.06, D* = 121.2. AllGather: ring 3*0.02 + (3/4)*8 = 6.06 (B*/N 30.3);
  // hier 1.01 + (0.02 + (1/2)*400/100) = 3.03 (B*/N 15.15).
  EXPECT_DOUBLE_EQ(p[1].ring_link.bytes_per_s, 100);
  EXPECT_DOUBLE_EQ(p[1].ring_link.latency_s, 0.02);
  EXPECT_NEAR(p[1].t_ring_contracting, 12.12, 1e-12);
  EXPECT_NEAR(p[1].t_hier_contracting, 6.06, 1e-12);
  EXPECT_NEAR(p[1].d_star_ring, 242.4, 1e-9);
  EXPECT_NEAR(p[1].d_star_hier, 121.2, 1e-9);
  EXPECT_NEAR(p[1].t_ring_fsdp, 6.06, 1e-12);
  EXPECT_NEAR(p[1].t_hier_fsdp, 3.03, 1e-12);
  EXPECT_NEAR(p[1].b_star_per_rank_ring, 30.3, 1e-9);
  EXPECT_NEAR(p[1].b_star_per_rank_hier, 15.15, 1e-9);
  EXPECT_EQ(p[1].faster_contracting, "hier");
  EXPECT_EQ(p[1].faster_fsdp, "hier");
  // Level 2, N = 8: the ring's one flow per group of 4 ranks gets
  // 100*min(1, 0.5*4) = 100; a = 0.03: 2*7*0.03 + 2*(7/8)*8 = 14.42, D* =
  // 8*1000*14.42/200 = 576.8. hier's 4 flows per group share 2 links: 50
  // each: 6.06 + (2*0.03 + 2*(1/2)*(800/4)/50) = 6.06 + 4.06 = 10.12, D* =
  // 404.8. AllGather: ring 7*0.03 + (7/8)*8 = 7.21 (B*/N 36.05); hier 3.03 +
  // (0.03 + (1/2)*200/50) = 5.06 (B*/N 25.3).
  EXPECT_DOUBLE_EQ(p[2].ring_link.bytes_per_s, 100);
  EXPECT_DOUBLE_EQ(p[2].ring_link.latency_s, 0.03);
  EXPECT_DOUBLE_EQ(p[2].hier_flow_bytes_per_s, 50);
  EXPECT_NEAR(p[2].t_ring_contracting, 14.42, 1e-12);
  EXPECT_NEAR(p[2].t_hier_contracting, 10.12, 1e-12);
  EXPECT_NEAR(p[2].d_star_ring, 576.8, 1e-9);
  EXPECT_NEAR(p[2].d_star_hier, 404.8, 1e-9);
  EXPECT_NEAR(p[2].b_star_per_rank_ring, 36.05, 1e-9);
  EXPECT_NEAR(p[2].b_star_per_rank_hier, 25.3, 1e-9);
}

TEST(Topology, ReduceScatterAndTheReductionByHand) {
  // The same three levels, ReduceScatter with g = 0.001 s per element (E = 100).
  // ring over 8: 7*0.03 + (7/8)*800/100 + (7/8)*100*0.001 = 7.21 + 0.0875.
  // hier: level 0: 0.01 + (1/2)*2 + (1/2)*100*0.001 = 1.01 + 0.05;
  //       level 1: 0.02 + (1/2)*400/100 + (1/2)*50*0.001 = 2.02 + 0.025;
  //       level 2: 0.03 + (1/2)*200/50 + (1/2)*25*0.001 = 2.03 + 0.0125.
  LevelShape s = small_shape();
  s.contracting = Collective::ReduceScatter;
  s.reduce_s_per_elem = 0.001;
  const auto p = predict_levels(three_levels(), s);
  EXPECT_NEAR(p[2].t_ring_contracting, 7.21 + 0.0875, 1e-12);
  EXPECT_NEAR(p[2].t_hier_contracting, 1.06 + 2.045 + 2.0425, 1e-12);
  // The AllGather reduces nothing: as without g.
  EXPECT_NEAR(p[2].t_ring_fsdp, 7.21, 1e-12);
}

TEST(Topology, ALinkSharedByAGroupSlowsTheRingToo) {
  // Nodes of 4 ranks with one link out of each pair of nodes (o = 1/8, half
  // a link per node): the ring's one flow gets 100*min(1, 4/8) = 50, each of
  // hier's 4 flows per node 100/8.
  LevelTopology t;
  t.name = "shared";
  t.levels = {{"node", 4, 1000, 0, 1, "", true, true}, {"nodes", 2, 100, 0, 0.125, "", true, true}};
  EXPECT_DOUBLE_EQ(ring_flow_bytes_per_s(t, 1), 50);
  EXPECT_DOUBLE_EQ(ring_link(t, 1).bytes_per_s, 50);
  EXPECT_DOUBLE_EQ(hier_flow_bytes_per_s(t.levels[1]), 12.5);
  // A level of one group is not crossed: the ring stays on the level below.
  t.levels[1].group_size = 1;
  EXPECT_DOUBLE_EQ(ring_link(t, 1).bytes_per_s, 1000);
}

HardwarePreset test_chip() {
  return parse_hardware_preset(R"(
name = "chip"
default_link = "fast"
[flops]
float = 1e12
[memory]
bytes_per_s = 1e11
[links.fast]
bytes_per_s = 4e11
latency_s = 1e-6
[links.slow]
bytes_per_s = 5e10
latency_s = 1e-5
aliases = ["nic"]
)",
                               "test");
}

TEST(Topology, ParsesAFileAndResolvesItsLinks) {
  LevelTopology t = parse_topology(R"(
name = "three"
hardware = "chip"
[[levels]]
name = "node"
group_size = 8
link = "fast"
[[levels]]
group_size = 4
link = "nic"
latency_s = 2e-5
[[levels]]
name = "dcn"
group_size = 2
bytes_per_s = 1e9
latency_s = 1e-4
oversubscription = 0.5
)",
                                   "test.toml");
  ASSERT_EQ(t.levels.size(), 3u);
  EXPECT_EQ(t.ranks(), 64);
  EXPECT_EQ(t.ranks_up_to(1), 32);
  const HardwarePreset hw = test_chip();
  resolve_links(t, &hw);
  EXPECT_DOUBLE_EQ(t.levels[0].bytes_per_s, 4e11);
  EXPECT_DOUBLE_EQ(t.levels[0].latency_s, 1e-6);
  EXPECT_EQ(t.levels[1].name, "nic");    // named after its link
  EXPECT_EQ(t.levels[1].link, "slow");   // the alias resolved
  EXPECT_DOUBLE_EQ(t.levels[1].bytes_per_s, 5e10);
  EXPECT_DOUBLE_EQ(t.levels[1].latency_s, 2e-5);  // its own latency wins
  EXPECT_DOUBLE_EQ(t.levels[2].oversubscription, 0.5);
  EXPECT_EQ(t.levels[2].link, "");
}

TEST(Topology, RefusesWhatCannotBe) {
  const auto parse = [](const std::string& levels) {
    return parse_topology("name = \"x\"\n" + levels, "bad.toml");
  };
  EXPECT_THROW(parse(""), UsageError);  // no levels
  EXPECT_THROW(parse("[[levels]]\ngroup_size = 2\nlink = \"fast\"\noversubscription = 0\n"), UsageError);
  EXPECT_THROW(parse("[[levels]]\ngroup_size = 2\nlink = \"fast\"\noversubscription = 2\n"), UsageError);
  EXPECT_THROW(parse("[[levels]]\ngroup_size = 0\nlink = \"fast\"\n"), UsageError);
  EXPECT_THROW(parse("[[levels]]\ngroup_size = 2.5\nlink = \"fast\"\n"), UsageError);
  EXPECT_THROW(parse("[[levels]]\nlink = \"fast\"\n"), UsageError);            // no group size
  EXPECT_THROW(parse("[[levels]]\ngroup_size = 2\nbytes_per_s = 1e9\n"), UsageError);  // no latency, no link
  EXPECT_THROW(parse("[[levels]]\ngroup_size = 2\nlink = \"fast\"\nspeed = 1\n"), UsageError);  // unknown key
  EXPECT_THROW(parse("[[levels]]\ngroup_size = 65536\nlink = \"a\"\n[[levels]]\ngroup_size = 65536\nlink = \"a\"\n"),
               UsageError);  // more ranks than an int
  LevelTopology needs_links = parse("[[levels]]\ngroup_size = 2\nlink = \"fast\"\n");
  EXPECT_THROW(resolve_links(needs_links, nullptr), UsageError);
  LevelTopology unknown_link = parse("[[levels]]\ngroup_size = 2\nlink = \"ici\"\n");
  const HardwarePreset hw = test_chip();
  EXPECT_THROW(resolve_links(unknown_link, &hw), UsageError);
  EXPECT_THROW(load_topology("no-such-topology"), UsageError);
}

TEST(Topology, BuiltInPresetsLoad) {
  for (const auto& name : builtin_topology_names()) {
    SCOPED_TRACE(name);
    LevelTopology t = load_topology(name);
    ASSERT_FALSE(t.hardware.empty());
    const HardwarePreset hw = load_hardware_preset(t.hardware);
    resolve_links(t, &hw);
    EXPECT_GE(t.levels.size(), 2u);
  }
  // The layout docs/hierarchy.md works through: 8 x 32 x 4, the spine 2:1.
  const LevelTopology pod = load_topology("h100-superpod");
  ASSERT_EQ(pod.levels.size(), 3u);
  EXPECT_EQ(pod.ranks(), 1024);
  EXPECT_DOUBLE_EQ(pod.levels[2].oversubscription, 0.5);
}

TEST(LevelFlags, BothForms) {
  const TopologyLevel a = parse_level_flag("8:nvlink", 0);
  EXPECT_EQ(a.group_size, 8);
  EXPECT_EQ(a.link, "nvlink");
  EXPECT_FALSE(a.bytes_per_s_given);
  EXPECT_DOUBLE_EQ(a.oversubscription, 1);
  const TopologyLevel b = parse_level_flag("4:infiniband:0.5", 2);
  EXPECT_EQ(b.link, "infiniband");
  EXPECT_DOUBLE_EQ(b.oversubscription, 0.5);
  const TopologyLevel c = parse_level_flag("32:5e10:9.6e-6:0.25", 1);
  EXPECT_EQ(c.name, "level 1");
  EXPECT_TRUE(c.link.empty());
  EXPECT_DOUBLE_EQ(c.bytes_per_s, 5e10);
  EXPECT_DOUBLE_EQ(c.latency_s, 9.6e-6);
  EXPECT_DOUBLE_EQ(c.oversubscription, 0.25);
  for (const char* bad : {"8", "0:nvlink", "2.5:nvlink", "8:5e10", "8:nvlink:0", "8:nvlink:1.5", "8:nvlink:0.5:1",
                          "8:5e10:-1", "8:5e10:1e-6:0.5:1", "x:nvlink"})
    EXPECT_THROW(parse_level_flag(bad, 0), UsageError) << bad;
  EXPECT_EQ(topology_of_level_flags({"8:nvlink", "32:infiniband", "4:infiniband:0.5"}).ranks(), 1024);
}

}  // namespace
}  // namespace shardroof::model

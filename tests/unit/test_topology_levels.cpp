// The levels above the nodes (util/topology.h): --levels, Slurm's switch
// paths, which wins, and the usage errors for bad values.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "util/error.h"
#include "util/topology.h"

namespace shardroof {
namespace {

// `ranks` ranks on one host, grouped into nodes of `per_node` consecutive ranks.
Topology nodes_of(int ranks, int per_node, std::vector<std::string> switch_paths = {}) {
  Topology t;
  t.node_of_rank.assign(static_cast<std::size_t>(ranks), 0);
  t.host_of_rank.assign(static_cast<std::size_t>(ranks), "host");
  t.switch_path_of_rank = std::move(switch_paths);
  return with_ranks_per_node(t, per_node);
}

std::string usage_error(const Topology& t, const std::string& levels) {
  try {
    with_levels(t, levels);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(TopologyLevels, LevelsFlagGroupsConsecutiveNodes) {
  const Topology t = with_levels(nodes_of(8, 2), "2,2");
  EXPECT_EQ(t.group_of_rank, (std::vector<std::vector<int>>{{0, 0, 0, 0, 1, 1, 1, 1}}));
  EXPECT_EQ(t.level_sizes, (std::vector<int>{2, 2, 2}));
  EXPECT_EQ(t.levels_source, "--levels 2,2");
  EXPECT_EQ(describe(t), "4 nodes x 2 ranks (--ranks-per-node 2); levels 2 x 2 x 2 (ranks per node x nodes per "
                         "group x groups); --levels 2,2");
  EXPECT_EQ(hier_unavailable_reason(t, true), "");
  // One size: the nodes alone, two levels.
  const Topology two = with_levels(nodes_of(8, 2), "4");
  EXPECT_TRUE(two.group_of_rank.empty());
  EXPECT_EQ(two.level_sizes, (std::vector<int>{2, 4}));
  // 12 ranks as 2 x 3 x 2, and 6 as 1 x 3 x 2.
  EXPECT_EQ(with_levels(nodes_of(12, 2), "3,2").level_sizes, (std::vector<int>{2, 3, 2}));
  EXPECT_EQ(with_levels(nodes_of(6, 1), "3,2").group_of_rank, (std::vector<std::vector<int>>{{0, 0, 0, 1, 1, 1}}));
}

TEST(TopologyLevels, BadLevelsAreUsageErrors) {
  const Topology t = nodes_of(8, 2);
  EXPECT_EQ(usage_error(t, "2,3"),
            "--levels 2,3: 2 x 3 = 6 nodes, but there are 4 nodes (8 ranks, 2 per node, --ranks-per-node 2); the "
            "sizes above the node must multiply to the number of nodes");
  for (const char* bad : {"0,4", "two", "2,,2", "2,", "-2,-2", "2.0,2", " 2,2"})
    EXPECT_NE(usage_error(t, bad).find("is not a group size"), std::string::npos) << bad;
  // Unequal nodes (shared memory, 3 and 1 ranks) take no levels.
  Topology unequal;
  unequal.node_of_rank = {0, 0, 0, 1};
  unequal.host_of_rank.assign(4, "host");
  unequal.ranks_per_node = 0;
  unequal.nodes = 2;
  unequal.source = "shared memory";
  EXPECT_NE(usage_error(unequal, "2").find("hold different numbers of ranks"), std::string::npos);
}

TEST(TopologyLevels, SlurmSwitchPathsUnlessLevelsAreGiven) {
  // Two leaf switches under one top switch, two nodes of two ranks under each.
  const std::vector<std::string> paths = {"top.a.n0", "top.a.n0", "top.a.n1", "top.a.n1",
                                          "top.b.n2", "top.b.n2", "top.b.n3", "top.b.n3"};
  const Topology t = with_levels(nodes_of(8, 2, paths), "");
  EXPECT_EQ(t.levels_source, "SLURM_TOPOLOGY_ADDR");
  EXPECT_EQ(t.level_sizes, (std::vector<int>{2, 2, 2}));
  // --levels wins.
  const Topology flag = with_levels(nodes_of(8, 2, paths), "4");
  EXPECT_TRUE(flag.group_of_rank.empty());
  EXPECT_EQ(flag.level_sizes, (std::vector<int>{2, 4}));
  // Unequal switches: two levels, and why.
  const std::vector<std::string> uneven = {"top.a.n0", "top.a.n0", "top.a.n1", "top.a.n1",
                                           "top.a.n2", "top.a.n2", "top.b.n3", "top.b.n3"};
  const Topology u = with_levels(nodes_of(8, 2, uneven), "");
  EXPECT_TRUE(u.group_of_rank.empty());
  EXPECT_EQ(u.level_sizes, (std::vector<int>{2, 4}));
  EXPECT_NE(u.switch_paths_unused.find("hold different numbers of nodes"), std::string::npos) << u.switch_paths_unused;
  // One host, one path (nodes emulated with --ranks-per-node): no levels.
  const Topology same = with_levels(nodes_of(4, 2, std::vector<std::string>(4, "top.a.n0")), "");
  EXPECT_TRUE(same.group_of_rank.empty());
  EXPECT_EQ(same.switch_paths_unused, "");
}

TEST(TopologyLevels, ReduceScatterNeedsConsecutiveUnits) {
  // Nodes interleaved (rank r on node r mod 4), two groups of two nodes.
  Topology t = nodes_of(8, 2);
  t.node_of_rank = {0, 1, 2, 3, 0, 1, 2, 3};
  t = with_levels(t, "2,2");
  EXPECT_EQ(hier_unavailable_reason(t, false), "");
  EXPECT_NE(hier_unavailable_reason(t, true).find("reduce_scatter needs each node's ranks and each group's nodes "
                                                  "consecutive"),
            std::string::npos);
}

}  // namespace
}  // namespace shardroof

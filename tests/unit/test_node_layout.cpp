// The node layout and the levels the hierarchical collectives build their
// rings from.
#include <gtest/gtest.h>

#include <vector>

#include "collectives/error.h"
#include "collectives/hierarchy_layout.h"
#include "collectives/node_layout.h"

namespace shardroof::coll {
namespace {

TEST(NodeLayout, NumbersNodesByTheirLowestRankWhateverTheLabels) {
  const NodeLayout layout({7, 3, 7, 3});
  EXPECT_EQ(layout.nodes(), 2);
  EXPECT_EQ(layout.ranks_per_node(), 2);
  EXPECT_EQ(layout.node_of_rank(), (std::vector<int>{0, 1, 0, 1}));
  EXPECT_EQ(layout.local_index(2), 1);
  EXPECT_EQ(layout.rank_at(1, 1), 3);
  EXPECT_EQ(layout.node_ranks(0), (std::vector<int>{0, 2}));
  EXPECT_EQ(layout.peers_across_nodes(1), (std::vector<int>{2, 3}));
  EXPECT_FALSE(layout.consecutive_ranks());
  EXPECT_EQ(layout.describe(), "2 nodes x 2 ranks");
}

TEST(NodeLayout, ConsecutiveRanksPerNode) {
  const NodeLayout layout = NodeLayout::consecutive(6, 3);
  EXPECT_EQ(layout.node_of_rank(), (std::vector<int>{0, 0, 0, 1, 1, 1}));
  EXPECT_TRUE(layout.consecutive_ranks());
  EXPECT_EQ(layout.peers_across_nodes(2), (std::vector<int>{2, 5}));
  EXPECT_TRUE(NodeLayout::consecutive(1, 1).consecutive_ranks());
}

TEST(NodeLayout, RefusesUnequalNodesAndCountsThatDoNotDivide) {
  EXPECT_THROW(NodeLayout({0, 0, 1}), InvalidArgument);
  EXPECT_THROW(NodeLayout(std::vector<int>{}), InvalidArgument);
  EXPECT_THROW(NodeLayout::consecutive(6, 4), InvalidArgument);
  EXPECT_THROW(NodeLayout::consecutive(4, 0), InvalidArgument);
}

// Two levels are the node layout: the node's ranks, and one rank of each
// node by local index.
TEST(HierarchyLayout, TwoLevelsAreTheNodesAndTheRingsAcrossThem) {
  const NodeLayout nodes({7, 3, 7, 3});
  const HierarchyLayout layout({7, 3, 7, 3});
  EXPECT_EQ(layout.levels(), 2);
  EXPECT_EQ(layout.sizes(), (std::vector<int>{2, 2}));
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(layout.peers(r, 0), nodes.node_ranks(nodes.node(r)));
    EXPECT_EQ(layout.peers(r, 1), nodes.peers_across_nodes(nodes.local_index(r)));
    EXPECT_EQ(layout.coordinate(r, 0), nodes.local_index(r));
    EXPECT_EQ(layout.coordinate(r, 1), nodes.node(r));
  }
  EXPECT_FALSE(layout.consecutive_ranks());
  EXPECT_EQ(layout.describe(), "2 x 2 (ranks per node x nodes)");
}

// 12 ranks as 2 x 3 x 2: rank r = c_0 + 2 (c_1 + 3 c_2).
TEST(HierarchyLayout, ThreeConsecutiveLevels) {
  const HierarchyLayout layout = HierarchyLayout::consecutive(12, {2, 3, 2});
  EXPECT_EQ(layout.levels(), 3);
  EXPECT_TRUE(layout.consecutive_ranks());
  EXPECT_EQ(layout.working_levels(), 3);
  EXPECT_EQ(layout.coordinate(9, 0), 1);
  EXPECT_EQ(layout.coordinate(9, 1), 1);
  EXPECT_EQ(layout.coordinate(9, 2), 1);
  EXPECT_EQ(layout.peers(9, 0), (std::vector<int>{8, 9}));
  EXPECT_EQ(layout.peers(9, 1), (std::vector<int>{7, 9, 11}));
  EXPECT_EQ(layout.peers(9, 2), (std::vector<int>{3, 9}));
  EXPECT_EQ(layout.describe(), "2 x 3 x 2 (ranks per node x nodes per group x groups)");
  EXPECT_EQ(HierarchyLayout::consecutive(6, {1, 3, 2}).working_levels(), 2);
  EXPECT_EQ(HierarchyLayout::consecutive(16, {2, 2, 2, 2}).describe(),
            "2 x 2 x 2 x 2 (ranks per node x nodes per level-1 group x level-1 groups per level-2 group x level-2 "
            "groups)");
}

// Labels in any order: units numbered by their lowest rank; nodes
// interleaved across the ranks are not consecutive.
TEST(HierarchyLayout, InterleavedNodesAndGroups) {
  // 8 ranks: node of rank r is r mod 4; nodes 0 and 2 form a group, 1 and 3 the other.
  const HierarchyLayout layout({0, 1, 2, 3, 0, 1, 2, 3}, {{5, 9, 5, 9, 5, 9, 5, 9}});
  EXPECT_EQ(layout.sizes(), (std::vector<int>{2, 2, 2}));
  EXPECT_EQ(layout.peers(0, 0), (std::vector<int>{0, 4}));
  EXPECT_EQ(layout.peers(0, 1), (std::vector<int>{0, 2}));
  EXPECT_EQ(layout.peers(0, 2), (std::vector<int>{0, 1}));
  EXPECT_EQ(layout.peers(6, 1), (std::vector<int>{4, 6}));
  EXPECT_FALSE(layout.consecutive_ranks());
}

TEST(HierarchyLayout, RefusesSplitUnequalOrMislabelledLevels) {
  // Groups of 3 ranks split the node {2, 3}.
  EXPECT_THROW(HierarchyLayout({0, 0, 1, 1, 2, 2}, {{0, 0, 0, 1, 1, 1}}), InvalidArgument);
  // Groups of 2 and 1 nodes.
  EXPECT_THROW(HierarchyLayout({0, 0, 1, 1, 2, 2}, {{0, 0, 0, 0, 1, 1}}), InvalidArgument);
  // A label list shorter than the ranks.
  EXPECT_THROW(HierarchyLayout({0, 0, 1, 1}, {{0, 0}}), InvalidArgument);
  EXPECT_THROW(HierarchyLayout::consecutive(8, {2, 3}), InvalidArgument);
  EXPECT_THROW(HierarchyLayout::consecutive(8, {2, 0, 4}), InvalidArgument);
  EXPECT_THROW(HierarchyLayout::consecutive(8, {8}), InvalidArgument);
  try {
    HierarchyLayout({0, 0, 1, 1, 2, 2}, {{0, 0, 0, 1, 1, 1}});
  } catch (const InvalidArgument& e) {
    EXPECT_STREQ(e.what(), "ranks 2 and 3 share a node but not a group; each group must hold whole nodes");
  }
}

}  // namespace
}  // namespace shardroof::coll

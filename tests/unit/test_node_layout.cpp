// The node layout the hierarchical collectives build their rings from.
#include <gtest/gtest.h>

#include <vector>

#include "collectives/error.h"
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

}  // namespace
}  // namespace shardroof::coll

#include "collectives/node_layout.h"

#include <map>

#include "collectives/error.h"

namespace shardroof::coll {

NodeLayout::NodeLayout(const std::vector<int>& node_of_rank) {
  if (node_of_rank.empty()) throw InvalidArgument("a node layout needs at least one rank");
  std::map<int, int> index_of_label;
  for (const int label : node_of_rank) {
    const auto [it, added] = index_of_label.emplace(label, static_cast<int>(members_.size()));
    if (added) members_.emplace_back();
    const int node = it->second;
    node_.push_back(node);
    local_.push_back(static_cast<int>(members_[node].size()));
    members_[node].push_back(static_cast<int>(node_.size()) - 1);
  }
  for (const auto& m : members_)
    if (m.size() != members_.front().size())
      throw InvalidArgument("the nodes hold different numbers of ranks (" + std::to_string(members_.front().size()) +
                            " and " + std::to_string(m.size()) + "); a hierarchical collective needs equal nodes");
}

NodeLayout NodeLayout::consecutive(int ranks, int ranks_per_node) {
  if (ranks < 1 || ranks_per_node < 1 || ranks % ranks_per_node != 0)
    throw InvalidArgument("ranks per node " + std::to_string(ranks_per_node) + " does not divide the " +
                          std::to_string(ranks) + " ranks");
  std::vector<int> node_of_rank(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) node_of_rank[static_cast<std::size_t>(r)] = r / ranks_per_node;
  return NodeLayout(node_of_rank);
}

std::vector<int> NodeLayout::peers_across_nodes(int local) const {
  std::vector<int> peers;
  for (const auto& m : members_) peers.push_back(m[static_cast<std::size_t>(local)]);
  return peers;
}

bool NodeLayout::consecutive_ranks() const {
  for (int r = 0; r < ranks(); ++r)
    if (r != node(r) * ranks_per_node() + local_index(r)) return false;
  return true;
}

std::string NodeLayout::describe() const {
  return std::to_string(nodes()) + (nodes() == 1 ? " node x " : " nodes x ") + std::to_string(ranks_per_node()) +
         (ranks_per_node() == 1 ? " rank" : " ranks");
}

}  // namespace shardroof::coll

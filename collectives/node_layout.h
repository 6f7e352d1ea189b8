// Ranks grouped into nodes: which node each rank sits on and its place
// there. The hierarchical collectives (hierarchical.h) read it to build one
// ring inside each node and one across the nodes per local index.
//
// Nodes are numbered in the order of their lowest rank, and the ranks of a
// node in rank order, so every rank derives the same layout from the same
// node-of-rank list whatever labels the caller used.
#pragma once

#include <string>
#include <vector>

namespace shardroof::coll {

class NodeLayout {
 public:
  // `node_of_rank[r]`: any label of rank r's node (equal labels, one node).
  // Throws InvalidArgument when it is empty or the nodes hold different
  // numbers of ranks (the rings across nodes pair ranks by local index).
  explicit NodeLayout(const std::vector<int>& node_of_rank);

  // K consecutive ranks per node: ranks 0..K-1 on node 0, K..2K-1 on node 1.
  // Throws InvalidArgument unless K divides `ranks`.
  static NodeLayout consecutive(int ranks, int ranks_per_node);

  int ranks() const { return static_cast<int>(node_.size()); }
  int nodes() const { return static_cast<int>(members_.size()); }
  int ranks_per_node() const { return ranks() / nodes(); }
  int node(int rank) const { return node_[rank]; }
  int local_index(int rank) const { return local_[rank]; }
  // The rank with local index `local` on node `node`.
  int rank_at(int node, int local) const { return members_[node][local]; }
  // The ranks of node `node`, in rank order.
  const std::vector<int>& node_ranks(int node) const { return members_[node]; }
  // The ranks with local index `local`, one per node, in node order.
  std::vector<int> peers_across_nodes(int local) const;
  // Whether every node's ranks are consecutive (rank = node * K + local).
  bool consecutive_ranks() const;
  // The node index of every rank, as the output records it.
  const std::vector<int>& node_of_rank() const { return node_; }

  // "2 nodes x 2 ranks" for messages.
  std::string describe() const;

 private:
  std::vector<int> node_;
  std::vector<int> local_;
  std::vector<std::vector<int>> members_;
};

}  // namespace shardroof::coll

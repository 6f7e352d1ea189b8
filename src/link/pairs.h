// Which rank pairs `shardroof link` measures, and which ranks share a node.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace shardroof::link {

struct RankPair {
  int src = 0;  // the rank that sends first (src < dst)
  int dst = 0;
  friend bool operator==(const RankPair& a, const RankPair& b) { return a.src == b.src && a.dst == b.dst; }
};

// Every unordered pair (i < j) of `ranks` ranks, in lexicographic order.
std::vector<RankPair> all_pairs(int ranks);

// `count` distinct pairs chosen pseudo-randomly from all pairs (seeded, so
// every rank computes the same list), sorted; all pairs when count >= N(N-1)/2.
std::vector<RankPair> sample_pairs(int ranks, std::uint64_t count, std::uint64_t seed);

// Where each rank runs: the shared-memory node it belongs to
// (MPI_Comm_split_type MPI_COMM_TYPE_SHARED) and its host name.
struct Topology {
  std::vector<int> node_of_rank;  // node index (0, 1, ... in order of first rank)
  std::vector<std::string> host_of_rank;
  int nodes = 1;
  bool same_node(int a, int b) const { return node_of_rank.at(a) == node_of_rank.at(b); }
};

// Collective over `comm`.
Topology discover_topology(MPI_Comm comm);

}  // namespace shardroof::link

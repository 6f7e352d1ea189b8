// Which node each rank sits on: the ranks that share memory
// (MPI_COMM_TYPE_SHARED), or, with `--ranks-per-node K`, K consecutive
// ranks per node (emulated nodes, or a launcher that hides the real
// grouping). The hierarchical collectives and the two-level model read it;
// the output records it.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace shardroof {

struct Topology {
  // Node index of each rank (nodes numbered in the order of their lowest rank).
  std::vector<int> node_of_rank;
  // Host name of each rank.
  std::vector<std::string> host_of_rank;
  int nodes = 1;
  // Ranks of each node when all nodes hold as many; 0 when they differ.
  int ranks_per_node = 1;
  // How the grouping was found: "shared memory" or "--ranks-per-node K".
  std::string source;
};

// Collective on `comm`: the shared-memory grouping and every rank's host.
Topology discover_topology(MPI_Comm comm);

// `topology` regrouped into `ranks_per_node` consecutive ranks per node
// (0: unchanged). Throws UsageError unless it divides the rank count.
Topology with_ranks_per_node(Topology topology, int ranks_per_node);

// Whether the hierarchical collective of `reduce_scatter` (or AllReduce)
// can run on `topology`; if not, the reason, else "".
std::string hier_unavailable_reason(const Topology& topology, bool reduce_scatter);

// {"source", "nodes", "ranks_per_node", "node_of_rank", "hosts": [{"host", "ranks"}]}.
nlohmann::json topology_json(const Topology& topology);

// "2 nodes x 2 ranks (--ranks-per-node 2)" for the console.
std::string describe(const Topology& topology);

}  // namespace shardroof

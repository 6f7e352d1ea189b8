// Which node each rank sits on: the ranks that share memory
// (MPI_COMM_TYPE_SHARED), or, with `--ranks-per-node K`, K consecutive
// ranks per node (emulated nodes, or a launcher that hides the real
// grouping). Above the nodes, levels of groups (collectives/
// hierarchy_layout.h): `--levels g1,g2,...` (consecutive nodes), else
// Slurm's switch paths (SLURM_TOPOLOGY_ADDR), else none (two levels: the
// nodes, and all of them). The hierarchical collectives and the two-level
// model read it; the output records it.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "collectives/hierarchy_layout.h"

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
  // Each rank's SLURM_TOPOLOGY_ADDR ("" where unset), e.g. "s0.s1.node3".
  std::vector<std::string> switch_path_of_rank;
  // The levels above the node but the outermost, innermost first: a label
  // of each rank's group at each (coll::HierarchicalOptions). Empty: two
  // levels.
  std::vector<std::vector<int>> group_of_rank;
  // Every level's size, innermost first (ranks per node, nodes per group,
  // ..., outermost groups); empty when the nodes hold different numbers of
  // ranks.
  std::vector<int> level_sizes;
  // Where the levels above the node came from: "--levels 2,2" or
  // "SLURM_TOPOLOGY_ADDR"; "" with two levels.
  std::string levels_source;
  // Why Slurm's switch paths, where every rank has one, give no levels
  // ("" where they do, or where there are none).
  std::string switch_paths_unused;
};

// Collective on `comm`: the shared-memory grouping and every rank's host.
Topology discover_topology(MPI_Comm comm);

// `topology` regrouped into `ranks_per_node` consecutive ranks per node
// (0: unchanged). Throws UsageError unless it divides the rank count.
Topology with_ranks_per_node(Topology topology, int ranks_per_node);

// `topology` (its nodes final) with the levels above the nodes: from
// `levels` (--levels, "g1,g2,...": g1 consecutive nodes per group, g2 such
// groups per larger group, ..., the last the number of outermost groups;
// they must multiply to the number of nodes) where given, else from
// Slurm's switch paths where every rank has one (a level per switch depth,
// ranks whose paths agree to that depth share a group; levels that group
// nothing or everything are left out; paths that make unequal groups give
// no levels, with the reason in switch_paths_unused). Throws UsageError
// for a bad --levels.
Topology with_levels(Topology topology, const std::string& levels);

// The levels' layout; throws coll::InvalidArgument where they are unequal.
coll::HierarchyLayout hierarchy_layout(const Topology& topology);

// Whether the hierarchical collective of `reduce_scatter` (or AllReduce)
// can run on `topology`'s levels; if not, the reason, else "".
std::string hier_unavailable_reason(const Topology& topology, bool reduce_scatter);

// {"source", "nodes", "ranks_per_node", "node_of_rank", "hosts": [{"host", "ranks"}],
//  "levels", and, with levels above the nodes, "levels_source" and "group_of_rank"}.
nlohmann::json topology_json(const Topology& topology);

// "2 nodes x 2 ranks (--ranks-per-node 2)" for the console, and the levels
// above the nodes: "; levels 2 x 2 x 2 (ranks per node x nodes per group x
// groups; --levels 2,2)".
std::string describe(const Topology& topology);

}  // namespace shardroof

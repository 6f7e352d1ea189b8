#include "util/topology.h"

#include <fmt/format.h>

#include <map>

#include "collectives/mpi_transport.h"
#include "util/error.h"
#include "util/mpi_session.h"
#include "util/node.h"

namespace shardroof {
namespace {

// Nodes numbered by their lowest rank; ranks_per_node 0 when they differ.
void number_nodes(Topology& t, const std::vector<int>& label_of_rank) {
  std::map<int, int> index;
  std::vector<int> sizes;
  t.node_of_rank.clear();
  for (const int label : label_of_rank) {
    const auto [it, added] = index.emplace(label, static_cast<int>(sizes.size()));
    if (added) sizes.push_back(0);
    ++sizes[static_cast<std::size_t>(it->second)];
    t.node_of_rank.push_back(it->second);
  }
  t.nodes = static_cast<int>(sizes.size());
  t.ranks_per_node = sizes.empty() ? 0 : sizes.front();
  for (const int s : sizes)
    if (s != t.ranks_per_node) t.ranks_per_node = 0;
}

}  // namespace

Topology discover_topology(MPI_Comm comm) {
  int rank = 0, size = 1;
  SHARDROOF_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  SHARDROOF_MPI_CHECK(MPI_Comm_size(comm, &size));
  const NodeComm node(comm);
  // A node's label: the lowest rank on it.
  int label = rank;
  SHARDROOF_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &label, 1, MPI_INT, MPI_MIN, node.get()));
  std::vector<int> labels(static_cast<std::size_t>(size));
  SHARDROOF_MPI_CHECK(MPI_Allgather(&label, 1, MPI_INT, labels.data(), 1, MPI_INT, comm));
  Topology t;
  t.host_of_rank = all_gather_strings(comm, host_name());
  t.source = "shared memory";
  number_nodes(t, labels);
  return t;
}

Topology with_ranks_per_node(Topology topology, int ranks_per_node) {
  if (ranks_per_node == 0) return topology;
  const int ranks = static_cast<int>(topology.node_of_rank.size());
  if (ranks_per_node < 0 || ranks % ranks_per_node != 0)
    throw_usage("--ranks-per-node: {} does not divide the {} ranks (the nodes must hold equal numbers of ranks)",
                ranks_per_node, ranks);
  std::vector<int> labels;
  for (int r = 0; r < ranks; ++r) labels.push_back(r / ranks_per_node);
  number_nodes(topology, labels);
  topology.source = fmt::format("--ranks-per-node {}", ranks_per_node);
  return topology;
}

std::string hier_unavailable_reason(const Topology& t, bool reduce_scatter) {
  if (t.ranks_per_node == 0)
    return fmt::format("the nodes ({}) hold different numbers of ranks; give --ranks-per-node", t.source);
  if (reduce_scatter)
    for (std::size_t r = 0; r < t.node_of_rank.size(); ++r)
      if (t.node_of_rank[r] != static_cast<int>(r) / t.ranks_per_node)
        return fmt::format("reduce_scatter needs each node's ranks consecutive ({}); map the ranks by slot or "
                           "give --ranks-per-node",
                           t.source);
  return "";
}

nlohmann::json topology_json(const Topology& t) {
  nlohmann::json hosts = nlohmann::json::array();
  for (int n = 0; n < t.nodes; ++n) {
    std::vector<int> ranks;
    for (std::size_t r = 0; r < t.node_of_rank.size(); ++r)
      if (t.node_of_rank[r] == n) ranks.push_back(static_cast<int>(r));
    hosts.push_back({{"node", n}, {"host", t.host_of_rank.at(static_cast<std::size_t>(ranks.front()))}, {"ranks", ranks}});
  }
  return {{"source", t.source},           {"nodes", t.nodes},   {"ranks_per_node", t.ranks_per_node},
          {"node_of_rank", t.node_of_rank}, {"node_list", hosts}, {"host_of_rank", t.host_of_rank}};
}

std::string describe(const Topology& t) {
  const std::string per = t.ranks_per_node > 0 ? std::to_string(t.ranks_per_node) : "unequal numbers of";
  return fmt::format("{} node{} x {} rank{} ({})", t.nodes, t.nodes == 1 ? "" : "s", per,
                     t.ranks_per_node == 1 ? "" : "s", t.source);
}

}  // namespace shardroof

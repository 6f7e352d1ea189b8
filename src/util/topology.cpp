#include "util/topology.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>

#include "collectives/error.h"
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

// The levels' sizes where the levels are equal, else none.
void size_levels(Topology& t) {
  t.level_sizes.clear();
  if (t.ranks_per_node == 0) return;
  try {
    t.level_sizes = hierarchy_layout(t).sizes();
  } catch (const coll::InvalidArgument&) {
  }
}

// --levels' group sizes: whole numbers from 1, comma-separated.
std::vector<int> parse_levels(const std::string& text) {
  std::vector<int> sizes;
  std::size_t at = 0;
  while (true) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    const bool digits = !item.empty() && item.size() <= 9 &&
                        std::all_of(item.begin(), item.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits || std::stoi(item) < 1)
      throw_usage("--levels: '{}' is not a group size in '{}' (whole numbers from 1, comma-separated, innermost "
                  "first: --levels 2,2 is 2 nodes per group and 2 groups)",
                  item, text);
    sizes.push_back(std::stoi(item));
    if (comma == text.size()) break;
    at = comma + 1;
  }
  return sizes;
}

// --levels g1,g2,...: consecutive nodes (numbered by their lowest rank).
std::vector<std::vector<int>> groups_from_levels(const Topology& t, const std::string& text) {
  const std::vector<int> sizes = parse_levels(text);
  if (t.ranks_per_node == 0)
    throw_usage("--levels {}: the nodes ({}) hold different numbers of ranks; give --ranks-per-node", text, t.source);
  long long product = 1;
  std::string formula;
  for (const int g : sizes) {
    product = std::min<long long>(product * g, 1LL << 40);
    formula += fmt::format("{}{}", formula.empty() ? "" : " x ", g);
  }
  if (product != t.nodes)
    throw_usage("--levels {}: {}{} nodes, but there {} {} node{} ({} ranks, {} per node, {}); the sizes above "
                "the node must multiply to the number of nodes",
                text, sizes.size() > 1 ? formula + " = " : "", product, t.nodes == 1 ? "is" : "are", t.nodes,
                t.nodes == 1 ? "" : "s", t.node_of_rank.size(), t.ranks_per_node, t.source);
  std::vector<std::vector<int>> groups(sizes.size() - 1);
  int span = 1;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    span *= sizes[i];
    for (const int node : t.node_of_rank) groups[i].push_back(node / span);
  }
  return groups;
}

// Slurm's switch paths: a level per switch depth, innermost first, less
// those that group nothing more than the level below, or everything.
std::vector<std::vector<int>> groups_from_switch_paths(const Topology& t) {
  std::vector<std::vector<std::string>> parts;
  for (const std::string& path : t.switch_path_of_rank) {
    std::vector<std::string> p;
    std::size_t at = 0;
    for (std::size_t dot = path.find('.'); dot != std::string::npos; at = dot + 1, dot = path.find('.', at))
      p.push_back(path.substr(0, dot));
    parts.push_back(std::move(p));  // the switch prefixes, outermost first; the node's name left out
  }
  const std::size_t depth = parts.empty() ? 0 : parts.front().size();
  for (const auto& p : parts)
    if (p.size() != depth)
      throw coll::InvalidArgument("the switch paths have different depths");
  std::vector<std::vector<int>> groups;
  std::size_t below = static_cast<std::size_t>(t.nodes);
  for (std::size_t d = depth; d-- > 0;) {
    std::map<std::string, int> label;
    std::vector<int> level;
    for (const auto& p : parts) level.push_back(label.emplace(p[d], static_cast<int>(label.size())).first->second);
    if (label.size() > 1 && label.size() < below) {
      groups.push_back(std::move(level));
      below = label.size();
    }
  }
  return groups;
}

}  // namespace

coll::HierarchyLayout hierarchy_layout(const Topology& t) {
  return coll::HierarchyLayout(t.node_of_rank, t.group_of_rank);
}

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
  const char* switch_path = std::getenv("SLURM_TOPOLOGY_ADDR");
  t.switch_path_of_rank = all_gather_strings(comm, switch_path ? switch_path : "");
  number_nodes(t, labels);
  size_levels(t);
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
  size_levels(topology);
  return topology;
}

Topology with_levels(Topology topology, const std::string& levels) {
  Topology& t = topology;
  t.group_of_rank.clear();
  t.levels_source.clear();
  t.switch_paths_unused.clear();
  if (!levels.empty()) {
    t.group_of_rank = groups_from_levels(t, levels);
    t.levels_source = fmt::format("--levels {}", levels);
  } else if (!t.switch_path_of_rank.empty() &&
             std::none_of(t.switch_path_of_rank.begin(), t.switch_path_of_rank.end(),
                          [](const std::string& p) { return p.empty(); })) {
    // Slurm's paths, where they make equal nested groups; otherwise two
    // levels, and the reason (a real cluster's switches are often unevenly
    // filled, which must not stop a run that never asked for levels).
    try {
      if (t.ranks_per_node == 0) throw coll::InvalidArgument("the nodes hold different numbers of ranks");
      t.group_of_rank = groups_from_switch_paths(t);
      hierarchy_layout(t);
      if (!t.group_of_rank.empty()) t.levels_source = "SLURM_TOPOLOGY_ADDR";
    } catch (const coll::InvalidArgument& e) {
      t.group_of_rank.clear();
      t.switch_paths_unused = fmt::format("SLURM_TOPOLOGY_ADDR's groups unused: {}", e.what());
    }
  }
  size_levels(t);
  return topology;
}

std::string hier_unavailable_reason(const Topology& t, bool reduce_scatter) {
  if (t.ranks_per_node == 0)
    return fmt::format("the nodes ({}) hold different numbers of ranks; give --ranks-per-node", t.source);
  if (!t.group_of_rank.empty()) {
    try {
      if (reduce_scatter && !hierarchy_layout(t).consecutive_ranks())
        return fmt::format("reduce_scatter needs each node's ranks and each group's nodes consecutive ({}; {}); "
                           "map the ranks by slot or give --ranks-per-node",
                           t.source, t.levels_source);
    } catch (const coll::InvalidArgument& e) {
      return fmt::format("the levels ({}; {}): {}", t.source, t.levels_source, e.what());
    }
    return "";
  }
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
  nlohmann::json out = {{"source", t.source},           {"nodes", t.nodes},   {"ranks_per_node", t.ranks_per_node},
                        {"node_of_rank", t.node_of_rank}, {"node_list", hosts}, {"host_of_rank", t.host_of_rank},
                        {"levels", t.level_sizes}};
  if (!t.group_of_rank.empty()) {
    out["levels_source"] = t.levels_source;
    out["group_of_rank"] = t.group_of_rank;
  }
  if (std::any_of(t.switch_path_of_rank.begin(), t.switch_path_of_rank.end(),
                  [](const std::string& p) { return !p.empty(); }))
    out["switch_path_of_rank"] = t.switch_path_of_rank;
  if (!t.switch_paths_unused.empty()) out["switch_paths_unused"] = t.switch_paths_unused;
  return out;
}

std::string describe(const Topology& t) {
  const std::string per = t.ranks_per_node > 0 ? std::to_string(t.ranks_per_node) : "unequal numbers of";
  std::string text = fmt::format("{} node{} x {} rank{} ({})", t.nodes, t.nodes == 1 ? "" : "s", per,
                                 t.ranks_per_node == 1 ? "" : "s", t.source);
  if (!t.group_of_rank.empty() && !t.level_sizes.empty())
    text += fmt::format("; levels {}; {}", hierarchy_layout(t).describe(), t.levels_source);
  if (!t.switch_paths_unused.empty()) text += fmt::format("; {}", t.switch_paths_unused);
  return text;
}

}  // namespace shardroof

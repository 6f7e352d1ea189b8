// The simulated cluster that scripts/simulate.sh runs shardroof on: a
// SimGrid platform plugin (smpirun -platform libshardroof_platform.so),
// built only with SHARDROOF_SMPI. Its parameters come from a small
// `key = value` file named by $SHARDROOF_SIM_PLATFORM, which simulate.sh
// writes from a hardware preset or a link rate (docs/simulation.md).
//
// One host per rank, grouped into nodes of G ranks. Inside a node every
// rank has its own split-duplex link to the node's switch (a GPU's NVLink
// into NVSwitch, a process's loopback): its flows in one direction share
// that link, and a flow between two ranks of the node crosses the sender's
// link up and the receiver's link down. Out of the node every rank goes
// through one of the node's NICs (split duplex; `nics_per_node` of them,
// ranks assigned in blocks: G NICs is a NIC per GPU, 1 is one link per
// node), and the nodes hang off a fat tree (or one switch) whose links carry
// all of a node's NICs at once, routed d-mod-k by SimGrid's FatTreeZone.
// With `topology = levels` the tree is the one scripts/simulate_platform.py
// builds from an L-level topology (model/topology.h): `tree_down` children
// per switch at each level of the tree (the topology's g_1 .. g_(L-1)) and
// `tree_up` parents per element (1 for a node; fewer than full bisection
// where a level is oversubscribed).
// Each latency is split evenly between the two links a path crosses at
// its level, so a path between two ranks has exactly the configured
// latency of its level; the fat tree's own links add none.
//
// Every host carries the properties `prop.KEY = VALUE` of the file (how
// computation is charged: sim/host_backend_smpi.cpp and
// collectives/host_memory_smpi.cpp read them).
#include <simgrid/s4u.hpp>
#include <xbt/asserts.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace sg4 = simgrid::s4u;
using simgrid::kernel::routing::NetPoint;

namespace {

struct Params {
  int nodes = 1;
  int ranks_per_node = 1;
  std::string topology = "switch";  // or "fat-tree", "levels"
  int fat_tree_leaf_nodes = 16;     // nodes under one leaf switch
  std::vector<unsigned> tree_down;  // topology = levels: children per switch, leaf first
  std::vector<unsigned> tree_up;    // and parents per element, a node's first
  double intra_bytes_per_s = 0;
  double intra_latency_s = 0;
  double nic_bytes_per_s = 0;
  double nic_latency_s = 0;
  int nics_per_node = 1;
  double host_flops = 1e9;
  std::map<std::string, std::string> properties;
};

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

double number(const std::string& key, const std::string& value) {
  char* end = nullptr;
  const double v = std::strtod(value.c_str(), &end);
  xbt_assert(end && *end == '\0' && !value.empty(), "shardroof platform: '%s = %s' is not a number", key.c_str(),
             value.c_str());
  return v;
}

int whole(const std::string& key, const std::string& value) {
  const double v = number(key, value);
  xbt_assert(v >= 1 && v == static_cast<int>(v), "shardroof platform: '%s = %s' is not a whole number >= 1",
             key.c_str(), value.c_str());
  return static_cast<int>(v);
}

std::vector<unsigned> whole_list(const std::string& key, const std::string& value) {
  std::vector<unsigned> out;
  std::size_t start = 0;
  for (;;) {
    const auto comma = value.find(',', start);
    const std::string item = trim(value.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    out.push_back(static_cast<unsigned>(whole(key, item)));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

Params read_params() {
  const char* path = std::getenv("SHARDROOF_SIM_PLATFORM");
  xbt_assert(path && *path,
             "shardroof platform: SHARDROOF_SIM_PLATFORM names no parameter file (scripts/simulate.sh writes one)");
  std::ifstream in(path);
  xbt_assert(in.good(), "shardroof platform: cannot read %s", path);
  Params p;
  std::string line;
  while (std::getline(in, line)) {
    line = trim(line);
    if (line.empty() || line[0] == '#') continue;
    const auto eq = line.find('=');
    xbt_assert(eq != std::string::npos, "shardroof platform: %s: no '=' in '%s'", path, line.c_str());
    const std::string key = trim(line.substr(0, eq));
    const std::string value = trim(line.substr(eq + 1));
    if (key.rfind("prop.", 0) == 0) {
      p.properties[key.substr(5)] = value;
    } else if (key == "nodes") {
      p.nodes = whole(key, value);
    } else if (key == "ranks_per_node") {
      p.ranks_per_node = whole(key, value);
    } else if (key == "topology") {
      xbt_assert(value == "switch" || value == "fat-tree" || value == "levels",
                 "shardroof platform: topology '%s': switch, fat-tree or levels", value.c_str());
      p.topology = value;
    } else if (key == "tree_down") {
      p.tree_down = whole_list(key, value);
    } else if (key == "tree_up") {
      p.tree_up = whole_list(key, value);
    } else if (key == "fat_tree_leaf_nodes") {
      p.fat_tree_leaf_nodes = whole(key, value);
    } else if (key == "intra_bytes_per_s") {
      p.intra_bytes_per_s = number(key, value);
    } else if (key == "intra_latency_s") {
      p.intra_latency_s = number(key, value);
    } else if (key == "nic_bytes_per_s") {
      p.nic_bytes_per_s = number(key, value);
    } else if (key == "nic_latency_s") {
      p.nic_latency_s = number(key, value);
    } else if (key == "nics_per_node") {
      p.nics_per_node = whole(key, value);
    } else if (key == "host_flops") {
      p.host_flops = number(key, value);
    } else if (key != "name") {
      xbt_die("shardroof platform: %s: unknown key '%s'", path, key.c_str());
    }
  }
  xbt_assert(p.nic_bytes_per_s > 0, "shardroof platform: nic_bytes_per_s must be positive");
  xbt_assert(p.ranks_per_node == 1 || p.intra_bytes_per_s > 0,
             "shardroof platform: intra_bytes_per_s must be positive with several ranks per node");
  xbt_assert(p.ranks_per_node % p.nics_per_node == 0, "shardroof platform: nics_per_node (%d) must divide "
             "ranks_per_node (%d)", p.nics_per_node, p.ranks_per_node);
  xbt_assert(p.host_flops > 0, "shardroof platform: host_flops must be positive");
  if (p.topology == "levels") {
    xbt_assert(!p.tree_down.empty() && p.tree_down.size() == p.tree_up.size(),
               "shardroof platform: topology levels needs tree_down and tree_up of the same length");
    unsigned long leaves = 1;
    for (const unsigned d : p.tree_down) leaves *= d;
    xbt_assert(leaves == static_cast<unsigned long>(p.nodes), "shardroof platform: tree_down holds %lu nodes, not %d",
               leaves, p.nodes);
  }
  return p;
}

// One node: a zone with a host per rank, a router as its way out, routes
// given pair by pair (a full zone).
std::pair<NetPoint*, NetPoint*> make_node(const Params& p, sg4::NetZone* parent, unsigned long id) {
  const std::string name = "node" + std::to_string(id);
  auto* zone = sg4::create_full_zone(name);
  zone->set_parent(parent);
  NetPoint* gateway = zone->create_router(name + "-switch");

  std::vector<sg4::SplitDuplexLink*> nics;
  for (int n = 0; n < p.nics_per_node; ++n) {
    auto* nic = zone->create_split_duplex_link(name + "-nic" + std::to_string(n), p.nic_bytes_per_s);
    nic->set_latency(p.nic_latency_s / 2)->seal();
    nics.push_back(nic);
  }
  std::vector<NetPoint*> hosts;
  std::vector<sg4::SplitDuplexLink*> intra;
  for (int r = 0; r < p.ranks_per_node; ++r) {
    const std::string host_name = name + "-rank" + std::to_string(r);
    sg4::Host* host = zone->create_host(host_name, p.host_flops);
    for (const auto& [key, value] : p.properties) host->set_property(key, value);
    host->set_property("shardroof/node", std::to_string(id));
    host->seal();
    hosts.push_back(host->get_netpoint());
    if (p.ranks_per_node > 1) {
      auto* link = zone->create_split_duplex_link(host_name + "-intra", p.intra_bytes_per_s);
      link->set_latency(p.intra_latency_s / 2)->seal();
      intra.push_back(link);
    }
  }
  using Dir = sg4::LinkInRoute::Direction;
  const int ranks_per_nic = p.ranks_per_node / p.nics_per_node;
  for (int i = 0; i < p.ranks_per_node; ++i) {
    for (int j = 0; j < p.ranks_per_node; ++j) {
      if (i == j) continue;
      zone->add_route(hosts[i], hosts[j], nullptr, nullptr, {{intra[i], Dir::UP}, {intra[j], Dir::DOWN}}, false);
    }
    const auto* nic = nics[i / ranks_per_nic];
    zone->add_route(hosts[i], gateway, nullptr, nullptr, {{nic, Dir::UP}}, false);
    zone->add_route(gateway, hosts[i], nullptr, nullptr, {{nic, Dir::DOWN}}, false);
  }
  zone->seal();
  return {zone->get_netpoint(), gateway};
}

}  // namespace

extern "C" void load_platform(const sg4::Engine& /*engine*/) {
  const Params p = read_params();
  // A fat tree of full bisection: every switch has as many links up as
  // down. One level (a single switch) holds up to fat_tree_leaf_nodes
  // nodes; above that, leaf switches of that many nodes under as many
  // spine switches.
  const unsigned leaf = static_cast<unsigned>(p.fat_tree_leaf_nodes);
  const auto nodes = static_cast<unsigned>(p.nodes);
  const bool two_levels = p.topology == "fat-tree" && nodes > leaf;
  xbt_assert(!two_levels || nodes % leaf == 0,
             "shardroof platform: %u nodes do not fill leaf switches of %u nodes (fat_tree_leaf_nodes)", nodes, leaf);
  const auto tree = [&]() -> sg4::FatTreeParams {
    if (p.topology == "levels")
      return sg4::FatTreeParams(static_cast<unsigned>(p.tree_down.size()), p.tree_down, p.tree_up,
                                std::vector<unsigned>(p.tree_down.size(), 1));
    return two_levels ? sg4::FatTreeParams(2, {leaf, nodes / leaf}, {1, leaf}, {1, 1})
                      : sg4::FatTreeParams(1, {nodes}, {1}, {1});
  }();
  const double node_bytes_per_s = p.nic_bytes_per_s * p.nics_per_node;
  auto node = [&p](sg4::NetZone* zone, const std::vector<unsigned long>& /*coord*/, unsigned long id) {
    return make_node(p, zone, id);
  };
  sg4::create_fatTree_zone("cluster", nullptr, tree, sg4::ClusterCallbacks(node), node_bytes_per_s, 0,
                           sg4::Link::SharingPolicy::SPLITDUPLEX)
      ->seal();
}

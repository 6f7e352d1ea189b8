// The roofline model past two levels: a cluster as L levels of groups,
// innermost first (docs/hierarchy.md, "L levels"). Level 0's group is a node
// of g_0 ranks; a group of level l is g_l groups of level l-1; N = the
// product of the g_l. Each level has a link of its own (one way, per link:
// W_l, a_l) and an oversubscription o_l, the share of a group's links that
// leave it: a group of level l-1 holds P_{l-1} ranks and has o_l * P_{l-1}
// links of level l out of it (o = 1: a link per rank, a NIC per GPU;
// o = 0.5: a 2:1 spine; o = 1/K at level 1: one link per node of K ranks).
// P_l = g_0 * ... * g_l is the ranks of one group of level l, P_{-1} = 1.
// Symbols otherwise as in model/two_level.h: S = B*F*s bytes, E = B*F
// elements, g seconds per element reduced.
//
// Flat ring over one group of level `top` (P_top ranks): every step waits
// for its slowest hop. The ring leaves each group of a level it crosses once
// per direction, one flow on that group's o_l * P_{l-1} links, so the flow
// gets W_l * min(1, o_l * P_{l-1}); the ring runs at the slowest of these
// and the largest latency of the levels it crosses (g_l > 1):
//   W_ring = min_l W_l * min(1, o_l * P_{l-1}),   a_ring = max_l a_l
//   T_ring,AR = 2(N-1)*a_ring + 2(N-1)/N * S/W_ring + (N-1)/N * E*g
//   T_ring,RS = T_ring,AG = half the latency and bandwidth terms (AG: no g)
// Hierarchical: a ring ReduceScatter inside each level going up, level l's
// rings over g_l ranks on the piece S/P_{l-1} that the levels below left
// each rank, the exchange at the top, then a ring AllGather going down.
// P_{l-1} rings leave each group of level l-1 at once and share its
// o_l * P_{l-1} links: each flow gets W_l * o_l. Per level (g_l > 1):
//   AR: 2(g_l-1)*a_l + 2(g_l-1)/g_l * (S/P_{l-1}) / (W_l*o_l) + (g_l-1)/g_l * (E/P_{l-1})*g
//   RS: (g_l-1)*a_l + (g_l-1)/g_l * (S/P_{l-1}) / (W_l*o_l) + (g_l-1)/g_l * (E/P_{l-1})*g
//   AG: (g_l-1)*a_l + (g_l-1)/g_l * (S/P_{l-1}) / (W_l*o_l)
//   T_hier = the sum over the levels 0 .. top.
// For L = 2 (g_0 = K, g_1 = M, o_0 = 1, o_1 = 1/R) these are T_flat and
// T_hier of model/two_level.h (collectives/hierarchical.h's cost with
// c = 0); tests/predict/test_topology.cpp checks it.
//
// Crossovers, for the ranks of one group of level `top` (N = P_top):
//   contracting (AllReduce or ReduceScatter of the B x F partial sum):
//     D* = N*C*T_comm / (2*B*F)
//   fsdp (AllGather of the D x F weight before the matmul):
//     B*/N = C*T_comm,AG / (2*D*F)   (per rank; predict --sharding fsdp's B*/N)
// The algorithm with the smaller T_comm has the smaller D* (B*) and is the
// one the model expects to win.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/hardware.h"
#include "model/roofline.h"
#include "model/two_level.h"

namespace shardroof::model {

struct TopologyLevel {
  std::string name;            // "nvlink", "leaf", "spine", "dcn"
  int group_size = 1;          // g_l
  double bytes_per_s = 0;      // W_l: one way, per link
  double latency_s = 0;        // a_l: per message
  double oversubscription = 1; // o_l in (0, 1]
  // The hardware preset's link W and a come from ("" where given as
  // numbers); W or a not given (false) is the link's, filled by resolve_links.
  std::string link;
  bool bytes_per_s_given = true;
  bool latency_s_given = true;
};

struct LevelTopology {
  std::string name;         // "h100-superpod"; "--level" for one made of flags
  std::string description;
  std::string origin;       // file path, "built-in:NAME" or "--level"
  std::string hardware;     // the chip's preset (C, M and the links named); "" if none
  std::vector<TopologyLevel> levels;  // innermost first

  // P_top = g_0 * ... * g_top: the ranks of one group of level `top`.
  long long ranks_up_to(int top) const;
  long long ranks() const { return levels.empty() ? 1 : ranks_up_to(static_cast<int>(levels.size()) - 1); }
};

// What a flow gets at level l: the flat ring's one flow per boundary,
// W_l * min(1, o_l * P_{l-1}), and each of hier's P_{l-1} flows, W_l * o_l.
double ring_flow_bytes_per_s(const LevelTopology& t, int level);
double hier_flow_bytes_per_s(const TopologyLevel& level);

// The link the flat ring over one group of level `top` runs at: the
// slowest flow and the largest latency of the levels it crosses (g_l > 1);
// {0, 0} when it crosses none (one rank).
LinkLevel ring_link(const LevelTopology& t, int top);

// One collective of S bytes (E elements, g seconds per element reduced;
// AllGather reduces nothing) over one group of level `top`.
struct LevelCollective {
  Collective collective = Collective::AllReduce;
  double bytes = 0;              // S
  double elements = 0;           // E
  double reduce_s_per_elem = 0;  // g
};
double t_comm_ring(const LevelTopology& t, int top, const LevelCollective& c);
double t_comm_hier(const LevelTopology& t, int top, const LevelCollective& c);

// The shapes predict --topology asks about.
struct LevelShape {
  double B = 1024;               // contracting: rows of Z
  double F = 1024;
  double D = 1024;               // fsdp: the weight's rows, whole on every rank
  double bytes_per_elem = 2;     // s
  Collective contracting = Collective::AllReduce;  // or ReduceScatter
  double flops_per_s = 0;        // C
  double reduce_s_per_elem = 0;  // g
};

// The step when the shard's ranks span up to one level.
struct LevelPrediction {
  int level = 0;
  long long ranks = 1;            // P_level
  LinkLevel ring_link;            // what the flat ring runs at
  double hier_flow_bytes_per_s = 0;  // what each of hier's flows gets at this level
  double t_ring_contracting = 0;
  double t_hier_contracting = 0;
  double d_star_ring = 0;
  double d_star_hier = 0;
  double t_ring_fsdp = 0;          // the AllGather of the D x F weight
  double t_hier_fsdp = 0;
  double b_star_per_rank_ring = 0;
  double b_star_per_rank_hier = 0;
  // "hier", "ring", or "same" where hier is the ring (one level crossed).
  std::string faster_contracting;
  std::string faster_fsdp;
};

std::vector<LevelPrediction> predict_levels(const LevelTopology& t, const LevelShape& shape);

// The topology of model/two_level.h's shape and ceilings: level 0 "node"
// (K ranks, the link inside), level 1 "nodes" (M nodes, the link between
// them, o = 1/R).
LevelTopology two_level_topology(const TwoLevelShape& shape, const TwoLevelCeilings& c);

// ---- where a topology comes from --------------------------------------------
// TOML (configs/topology/*.toml, docs/hierarchy.md "The topology file"):
//   name = "h100-superpod"
//   description = "..."
//   hardware = "h100"                # optional: the chip's preset
//   [[levels]]                       # innermost first
//   name = "nvlink"
//   group_size = 8
//   link = "nvlink"                  # W and latency from the preset's link, or:
//   bytes_per_s = 4.5e11             #   given (they replace the link's)
//   latency_s = 3.4e-6
//   oversubscription = 1.0           # optional, (0, 1]
// Throws UsageError for bad TOML, unknown or mistyped keys and impossible
// values. Links are not resolved here (resolve_links).
LevelTopology parse_topology(std::string_view toml_text, const std::string& origin);

// By name or file, as --hw finds presets (model/hardware.h): a file when it
// names an existing file, contains a '/' or ends in ".toml"; otherwise
// NAME.toml in the source tree's configs/topology/ (when it still exists),
// then among the built-in copies.
LevelTopology load_topology(const std::string& name_or_path);
std::vector<std::string> builtin_topology_names();

// Fills W and a of every level that names a link from `hw` (a level's own
// numbers win); UsageError when a level names a link and there is no preset,
// or the preset has no such link, or a level is left without a positive W.
void resolve_links(LevelTopology& t, const HardwarePreset* hw);

}  // namespace shardroof::model

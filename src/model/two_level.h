// The two-level roofline model: ranks in M nodes of K (N = M*K), a fast
// link inside a node (W_i, a_i) and a slower one between nodes (W_o, a_o),
// one way, per flow. Symbols as in model/roofline.h; S = B*F*s bytes of the
// partial sum, E = B*F its elements.
//
// Flat ring over all N ranks: every step waits for its slowest hop, and a
// ring over several nodes crosses a node boundary in every step (one flow
// per direction per boundary), so it runs at the slower level:
//   T_flat,AR = 2(N-1)*max(a_i,a_o) + 2(N-1)/N * S/min(W_i,W_o) + (N-1)/N * E*g
//   (ReduceScatter: half the latency and bandwidth terms.)
// Hierarchical (collectives/hierarchical.h): a ring inside each node, then
// K rings across the nodes at once on S/K each, then a ring inside again.
// R ranks of a node share one link out of it (R = 1: a NIC per GPU; R = K:
// one link per node), so each cross-node flow gets W_o/R:
//   T_hier,AR = 2(K-1)*a_i + 2(K-1)/K * S/W_i
//             + 2(M-1)*a_o + 2(M-1)/M * (S/K) * R/W_o
//             + (K-1)/K * E*g + (M-1)/M * (E/K)*g
//   T_hier,RS = (K-1)*a_i + (K-1)/K * S/W_i + (M-1)*a_o + (M-1)/M * (S/K) * R/W_o
//             + the same reduction terms.
// (t_comm_hier is hier's cost formula of model/collective_cost.h, which
// `coll`'s model column uses too, with no local copy: one formula.)
// Crossover of each (T_math = 2*B*(D/N)*F/C = T_comm, compute roof):
//   D* = N*C*T_comm / (2*B*F),
// which for the flat ring is model/roofline.h's D* with the slower link.
// The algorithm with the smaller T_comm has the smaller D*: it is the one
// the model expects to win.
#pragma once

#include <optional>
#include <string>

#include "model/roofline.h"

namespace shardroof::model {

struct LinkLevel {
  double bytes_per_s = 0;  // W, one way, per flow
  double latency_s = 0;    // a, per message
};

struct TwoLevelShape {
  double B = 0;
  double F = 0;
  int nodes = 1;             // M
  int ranks_per_node = 1;    // K
  double bytes_per_elem = 4; // s
  Collective collective = Collective::AllReduce;
  int ranks() const { return nodes * ranks_per_node; }
};

struct TwoLevelCeilings {
  double flops_per_s = 0;        // C
  LinkLevel intra;               // inside a node
  LinkLevel inter;               // between nodes, one flow
  double reduce_s_per_elem = 0;  // g
  // R: ranks of a node that share one link out of it.
  int ranks_per_inter_link = 1;
  // The flat ring's link measured as a whole (a probe in the ring's own
  // pattern); unset: the slower level, as above.
  std::optional<LinkLevel> flat;
};

// Where each level's W and a came from, e.g. "h100 nvlink" or "ring probe
// inside the nodes", for the output.
struct TwoLevelSources {
  std::string intra;
  std::string inter;
  std::string flat;  // "" when the flat ring runs at the slower level
};

struct TwoLevelPrediction {
  LinkLevel flat_link;             // what the flat ring runs at
  double inter_flow_bytes_per_s = 0;  // W_o/R, what each of hier's cross-node flows gets
  double t_comm_flat = 0;
  double t_comm_hier = 0;
  double d_star_flat = 0;
  double d_star_hier = 0;
  // "hier" or "ring": the smaller T_comm (the ring on a tie, and on one node
  // or one rank per node, where hier is the ring).
  std::string faster;
};

double t_comm_flat(const TwoLevelShape& shape, const TwoLevelCeilings& c);
double t_comm_hier(const TwoLevelShape& shape, const TwoLevelCeilings& c);
// D* = N*C*T_comm / (2*B*F).
double d_star_of(const TwoLevelShape& shape, double flops_per_s, double t_comm);

TwoLevelPrediction predict_two_level(const TwoLevelShape& shape, const TwoLevelCeilings& c);

// R from two measurements of the link between nodes: `alone`, what one
// cross-node ring gets with the others idle, and `together`, what each gets
// with all K running at once. The flows on a link share it, so alone /
// together is R, up to what the concurrent flows lose to each other
// (TCP flows started together through one shaped link finish unevenly and
// leave it partly idle: 2x to 8x for R = 2 on emulated nodes); R is a whole
// number of ranks, so the ratio is rounded to the nearest of 1 .. K on a
// log scale (between n and n+1 at sqrt(n(n+1))). 1 when either rate is not
// positive.
int ranks_sharing_inter_link(double alone_bytes_per_s, double together_bytes_per_s, int ranks_per_node);

}  // namespace shardroof::model

// The time each collective implementation should take, from its own cost
// formula (the one its header in collectives/ states) and the link and local
// rates it runs on. This is what `coll` prints beside every measured row and
// what `predict --coll` prints without running anything: the measured time
// against this one says how much of the link an implementation reaches, the
// question "what busbw should I expect" needs answered.
//
// Symbols (alpha-beta-gamma): N ranks, S bytes of the whole array as
// nccl-tests counts it, a = alpha (seconds per message), W = one-way link
// bandwidth per rank (bytes/s, beta = 1/W), g = seconds to reduce one byte of
// one operand (the reduction rate of the ranks' own memory), c = seconds to
// copy one byte locally. Two levels (hier): K ranks per node, M = N/K nodes,
// a_o and W_o the link between nodes as one flow gets it alone, R the ranks
// of a node that share one link out of it (model/two_level.h: 1 with a NIC
// per rank, K with one link per node), so that each of hier's K rings
// across the nodes gets W_o/R.
//
//   ring AllReduce         2(N-1) a + 2(N-1)/N S/W + (N-1)/N S g
//   ring ReduceScatter      (N-1) a +  (N-1)/N S/W + (N-1)/N S g
//   ring AllGather          (N-1) a +  (N-1)/N S/W
//   pairwise AllReduce          2 a + 2(N-1)/N S/W + (N-1)/N S g
//   pairwise ReduceScatter        a +  (N-1)/N S/W + (N-1)/N S g
//   pairwise AllGather            a +  (N-1)/N S/W
//   direct AllReduce              a +    (N-1) S/W +   (N-1) S g
//   direct ReduceScatter          a +  (N-1)/N S/W + (N-1)/N S g
//   hier AllReduce     2(K-1) a + 2(K-1)/K S/W + 2(M-1) a_o + 2(M-1)/M (S/K) R/W_o
//                        + (K-1)/K S g + (M-1)/M (S/K) g
//   hier ReduceScatter  (K-1) a +  (K-1)/K S/W +  (M-1) a_o +  (M-1)/M (S/K) R/W_o
//                        + (K-1)/K S g + (M-1)/M (S/K) g + S c
//                      (the two-level model's T_hier, model/two_level.h, is
//                      this formula with c = 0)
//   chain Broadcast    (N-2+k) (a + S/k/W), k segments (k = 1 on 2 ranks)
//   pairwise AllToAll   (N-1) a + (N-1)/N S/W  (+ S c in place)
//   native             the library chooses its algorithm and says nothing
//                      of it: the model assumes it reaches the cost of our
//                      bandwidth-optimal one of the same collective (ring;
//                      chain Broadcast; pairwise AllToAll), so its
//                      efficiency says how far it is from that bound.
//
// busbw follows nccl-tests: S/T times the collective's bus factor
// (collectives/traits.h), so the model's busbw and the measured one compare
// directly; for large S the ring's busbw tends to W.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "collectives/collective.h"
#include "collectives/traits.h"
#include "util/comm_kinds.h"

namespace shardroof::model {

// The rates the formulas take.
struct CollLink {
  double alpha_s = 0;         // a: per message
  double W_bytes_per_s = 0;   // W: one way, per rank
  double g_s_per_byte = 0;    // g: reducing one byte of one operand (0: not counted)
  double copy_s_per_byte = 0; // c: a local copy (0: not counted)
  // Between nodes, for hier (0: the same as inside a node): one flow's link
  // with the link to itself, and R, the ranks of a node sharing it.
  double inter_alpha_s = 0;
  double inter_W_bytes_per_s = 0;
  int inter_ranks_per_link = 1;
};

// One call of one implementation.
struct CollCall {
  coll::CollectiveKind kind = coll::CollectiveKind::AllReduce;
  coll::Algorithm impl = coll::Algorithm::Ring;  // Auto has no formula of its own: name what it chose
  int nranks = 1;
  std::uint64_t bytes = 0;  // S
  bool in_place = false;
  int ranks_per_node = 0;        // K, for hier (0 or N: one node)
  std::uint64_t segments = 1;    // k, Broadcast's segments
};

struct CollCost {
  double time_s = 0;
  double busbw_bytes_per_s = 0;  // S/T x bus factor; 0 when S or T is 0
  // The formula that gave time_s, in the symbols above, e.g.
  // "2(N-1)a + 2(N-1)/N S/W + (N-1)/N S g"; native's names its assumption.
  std::string formula;
};

// The cost of `call` on `link`; nullopt when the implementation has no such
// collective, for Auto, or when W is not positive.
std::optional<CollCost> collective_cost(const CollCall& call, const CollLink& link);

// nccl-tests' bus factor of a collective on N ranks (collectives/traits.h).
double bus_factor(coll::CollectiveKind kind, int nranks);

}  // namespace shardroof::model

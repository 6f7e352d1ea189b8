// The cost of the library's own collective (`--impl native`) under the
// name of the algorithm the library runs for that call, where it can be
// known:
//  - Open MPI 4.1.x with coll/tuned deciding: its fixed rules, or what the
//    user forced through its MCA parameters (model/open_mpi_tuned.h), and
//    the formula of the algorithm chosen (below);
//  - NCCL with NCCL_ALGO set to Ring (and NCCL_PROTO, if set, to a
//    protocol below): the ring's formula.
// Elsewhere (another MPI, another Open MPI version, a rules file, another
// collective component above coll/tuned, NCCL choosing by its own tuning
// model) the choice cannot be known from here: the row keeps the bound
// (collective_cost's assumption that native reaches our bandwidth-optimal
// algorithm) and says "bound only", and the model's pass/fail counts leave
// it out.
//
// Symbols as in model/collective_cost.h (N = p ranks, S bytes as the row
// counts them, a, W, g per byte reduced, c per byte copied); p' the largest
// power of two <= p, L = log2 p', r = p - p' (the ranks that the
// power-of-two algorithms fold in first and out last), b = S/p a block.
// Open MPI's algorithms (ompi/mca/coll/base/coll_base_*.c, v4.1.4), each
// on links of W per rank in and out at once (a message to c children at
// once shares the sender's W):
//   allreduce    basic_linear        2a + 2(p-1) S/W + (p-1) S g      (linear reduce, linear bcast)
//                nonoverlapping      reduce(S) + bcast(S), each as coll/tuned decides it
//                recursive_doubling  L(a + S/W + S g) [+ 2a + 2 S/W + S g when r > 0]
//                ring                2(p-1)a + 2(p-1)/p S/W + (p-1)/p S g
//                segmented_ring      (p-1)(f+1)a + 2(p-1)/p S/W + (p-1)/p S g, f phases of
//                                    p segments (the ring when S < p x segment)
//                rabenseifner        2La + 2(p'-1)/p' S/W + (p'-1)/p' S g [+ 3a + 2 S/W + S/2 g]
//   reduce_scatter_block basic_linear  reduce(S) to rank 0 + scatter(b), each as coll/tuned decides it
//                recursive_doubling  ceil(log2 p) a + (log2 p - (p-1)/p) S (1/W + g)   (its source's cost)
//                recursive_halving   La + (p'-1)/p' S/W + (p'-1)/p' S g [+ 2a + S/W + S g + b/W]
//                butterfly           La + (p-1)/p S/W + (p-1)/p S g (p a power of two; else
//                                    its source's 4a + 2La + (3-2/p) S/W + (2-1/p) S g + 3b/W)
//   reduce_scatter non-overlapping   reduce(S) + (p-1)(a + b/W) (the basic linear scatterv)
//                recursive_halving, ring, butterfly: as above (ring: (p-1)a + (p-1)/p S (1/W + g))
//   allgather    bruck               ceil(log2 p) a + (p-1)/p S/W
//                recursive_doubling  La + (p-1)/p S/W (p a power of two; else bruck)
//                ring                (p-1)a + (p-1)/p S/W
//                neighbor            (p/2)a + (p-1)/p S/W (p even; else ring)
//                two_proc            a + S/2/W
//   bcast        basic_linear        a + (p-1) S/W
//                chain, pipeline, binary_tree, binomial, knomial: a tree of p ranks
//                                    (chain of fan-out f, f = 1 for pipeline; binary; binomial;
//                                    k-nomial of radix 4), S in k segments (k = 1 without a
//                                    segment size): a node sends each segment to its c
//                                    children in a + c (S/k)/W once it has it and has sent
//                                    the one before; the time the last rank has the last segment
//                scatter_allgather   2 ceil(log2 p) a + 2(p-1)/p S/W
//                scatter_allgather_ring  (ceil(log2 p) + p - 1) a + 2(p-1)/p S/W
//   alltoall     linear, pairwise, linear_sync  (p-1)a + (p-1)/p S/W
//                two_proc            a + S/2/W
//                modified_bruck      ceil(log2 p)(a + S/2/W)
//                in place (every algorithm): basic_inplace  (p-1)(a + b/W + b c)
//   reduce       linear              a + (p-1)(S/W + S g)
//                chain, pipeline, binary, binomial, in-order_binary: the tree as for bcast,
//                                    reversed: a node receives segment j from its c
//                                    children in a + c (S/k)/W and reduces it in c (S/k) g
//                                    (in-order_binary's tree taken as the binary tree's shape)
//                rabenseifner        2La + 2(p'-1)/p' S/W + (p'-1)/p' S g [+ 2a + S/W + S/2 g]
//   scatter      basic_linear        (p-1)(a + b/W)
//                binomial            ceil(log2 p) a + (p-1) b/W
//                linear_nb           (p-1)a + (p-1) b/W
// Not modelled (bound only): bcast split_binary_tree, allgather linear,
// allgatherv default (each a composition this file does not follow).
// NCCL's ring: the ring's formula above with W the protocol's share of it
// (Simple 1, LL128 120/128, LL 1/2: the bytes of a line that carry data).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "collectives/collective.h"
#include "model/collective_cost.h"
#include "model/open_mpi_tuned.h"

namespace shardroof::model {

// What is known of the library behind `native`: a plain record, read by
// measure/native_library.h.
struct NativeLibrary {
  enum class Kind { OpenMpiTuned, Nccl, Other };
  Kind kind = Kind::Other;
  std::string name;     // "Open MPI v4.1.4", "NCCL", or the MPI library's own version line
  std::string unknown;  // why its algorithm cannot be known here; "" when it can
  tuned::Settings tuned;
  std::string nccl_algo;   // NCCL_ALGO as set ("": unset)
  std::string nccl_proto;  // NCCL_PROTO as set
};

struct NativeCall {
  coll::CollectiveKind kind = coll::CollectiveKind::AllReduce;
  int nranks = 1;
  std::uint64_t bytes = 0;       // S as the row counts it
  std::size_t element_bytes = 4; // the datatype's: counts that do not divide by N take the library's "v" calls
  bool in_place = false;
};

struct NativeModel {
  // The library's algorithm, e.g. "rabenseifner" or "basic_linear (reduce:
  // pipeline, scatter: basic_linear)"; "" when it cannot be known.
  std::string algorithm;
  // Its cost; empty: bound only, for `bound_reason`.
  std::optional<CollCost> cost;
  std::string bound_reason;
};

NativeModel native_model(const NativeCall& call, const NativeLibrary& library, const CollLink& link);

}  // namespace shardroof::model

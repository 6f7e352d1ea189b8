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
// Symbols as in model/collective_cost.h (N ranks, S bytes as the row
// counts them, a, W, g per byte reduced, c per byte copied); N' the largest
// power of two <= N, L = log2 N' (the power-of-two algorithms fold the
// ranks above N' in first and out last), b = S/N a block. Open MPI's
// algorithms (ompi/mca/coll/base/coll_base_*.c, v4.1.4) run on links of W
// per rank in and out at once (a message to c children at once shares the
// sender's W). Each one's formula is written once, in native_cost.cpp, as
// a list of terms (a coefficient times a, S/W, S g, b/W or b c) that both
// computes its time and prints it (a row's "formula"). Compositions
// (allreduce nonoverlapping, reduce_scatter(_block) basic_linear and
// non-overlapping) add the calls they make, each decided by coll/tuned
// again. The trees of bcast and reduce (chain of fan-out f, pipeline,
// binary, binomial, k-nomial of radix 4, in-order binary taken as the
// binary tree's shape) carry S in k segments (k = 1 without a segment
// size): a node sends each segment to its c children in a + c (S/k)/W once
// it has it and has sent the one before (reduce: receives it from them in
// that time and reduces it in c (S/k) g); the cost is when the last rank
// has the last segment, computed segment by segment in O(N) memory.
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

// Our collective algorithms by name, and the size-based choice among them.
//
//   ring      N-1 (ReduceScatter, AllGather) or 2(N-1) (AllReduce) dependent
//             steps around a ring; bandwidth-optimal on any topology, the
//             choice for many ranks (ring_*.h).
//   pairwise  every rank exchanges with every other at once, segmented: the
//             same bytes as the ring in 1 (2 for AllReduce) dependent rounds;
//             the choice for few ranks on a full crossbar such as shared
//             memory (pairwise.h).
//   direct    one round in which every rank receives every contribution
//             whole: the lowest latency for tiny messages (direct.h;
//             AllReduce and ReduceScatter).
//   auto      picks per call by message size and rank count (AutoChoice);
//             algorithm() then names the last choice, e.g. "auto:direct".
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "collectives/collective.h"
#include "collectives/memory.h"
#include "collectives/ring_options.h"
#include "collectives/transport.h"

namespace shardroof::coll {

enum class Algorithm { Auto, Ring, Pairwise, Direct };

std::string_view to_string(Algorithm a);
std::optional<Algorithm> parse_algorithm(std::string_view name);

// What `auto` runs, by size S (bytes of the whole array) and rank count N;
// the thresholds were measured on shared memory with
// scripts/bench-collectives.sh.
struct AutoChoice {
  // AllReduce up to this size: direct (one round, whole vectors).
  std::size_t direct_max_bytes_all_reduce = std::size_t{16} << 10;
  // Up to this many ranks: pairwise; above: ring (N-1 messages in flight per
  // rank and segment stop paying, and a real network is rarely a crossbar).
  int pairwise_max_ranks = 8;

  Algorithm choose(CollectiveKind kind, std::size_t bytes, int nranks) const;
};

// Whether `algorithm` implements `kind`.
bool supports(Algorithm algorithm, CollectiveKind kind);

// Builds our collective; throws InvalidArgument if the algorithm has no such
// collective. transport and memory are borrowed and must outlive it.
std::unique_ptr<Collective> make_collective(Algorithm algorithm, CollectiveKind kind,
                                            Transport& transport, MemoryOps& memory,
                                            const RingOptions& options = {},
                                            const AutoChoice& choice = {});

}  // namespace shardroof::coll

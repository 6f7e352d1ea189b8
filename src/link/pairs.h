// Which rank pairs `shardroof link` measures, and which ranks share a node.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "link/records.h"

namespace shardroof::link {

// Every unordered pair (i < j) of `ranks` ranks, in lexicographic order.
std::vector<RankPair> all_pairs(int ranks);

// `count` distinct pairs chosen pseudo-randomly from all pairs (seeded, so
// every rank computes the same list), sorted; all pairs when count >= N(N-1)/2.
std::vector<RankPair> sample_pairs(int ranks, std::uint64_t count, std::uint64_t seed);

// Collective over `comm`.
Topology discover_topology(MPI_Comm comm);

}  // namespace shardroof::link

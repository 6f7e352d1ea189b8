// The ring's traffic pattern as a point-to-point probe: every rank sends m
// bytes to its right neighbour (rank + 1 mod N) while it receives m bytes
// from its left neighbour (rank - 1 mod N), all ranks at once, as one step
// of a ring collective does. On 2 ranks the right and the left neighbour
// are the same rank, so both directions of the one link carry m bytes at
// once, as they do in the ring. Whatever the link gives to this pattern
// (W, alpha) is a ceiling measured apart from any collective: the book's
// model fed with it predicts what a ring could reach, and the collective's
// own time says how much of it the ring reached.
//
// Timing follows the timing module: warm-up untimed, a barrier before each
// iteration, the per-iteration max over ranks, the sizes taking turns
// within each iteration. After timing every rank checks that the bytes it
// received are its left neighbour's. Runs over any coll::Transport (MPI on
// host or device buffers, NCCL), on buffers from its MemoryOps.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "collectives/memory.h"
#include "collectives/transport.h"
#include "link/alpha_beta_fit.h"
#include "link/records.h"
#include "timing/timing.h"

namespace shardroof::link {

struct RingProbePlan {
  std::vector<std::uint64_t> sizes;  // bytes each rank sends per step, ascending
  TimingPlan timing;
  int tag = 0x5300;  // away from the collectives' tags
};

// Collective over `comm`, whose ranks are the transport's (same order).
RingProbeResult measure_ring_probe(coll::Transport& transport, coll::MemoryOps& memory, MPI_Comm comm,
                                   const RingProbePlan& plan);

// Sizes for a ring collective whose largest block is `block_bytes` (the
// bytes one ring step moves, ceil(count/N) elements): one element, for the
// latency, and block/4, block/2, block for the bandwidth, whole elements.
std::vector<std::uint64_t> ring_probe_sizes(std::uint64_t block_bytes, std::size_t element_bytes);

}  // namespace shardroof::link

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
//
// With a shift k other than 1 the neighbours are rank + k and rank - k:
// one step of mpiGraph's shift pattern (`shardroof link --pattern shift`
// runs k = 1 .. N-1). Beside the step's time, each transfer r -> r + k has
// its own: per iteration the later of the sender's send completion and the
// receiver's receive completion, each read on the rank's host clock from
// the iteration's start (after the barrier), so a slow link shows on its
// own pair, not on every pair of the step.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
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
  int shift = 1;      // send to rank + shift, receive from rank - shift (mod N); 1 <= shift < N, or N = 1
  bool check = true;  // check the received bytes after timing
  // Before each iteration (untimed) every rank rewrites the bytes it will
  // send, so that it sends freshly written data as a ring step does (the
  // block its reduction has just written, still in its cache); without it
  // the probe sends bytes written once, long ago.
  bool fresh_send = false;
};

// Collective over `comm`, whose ranks are the transport's (same order).
RingProbeResult measure_ring_probe(coll::Transport& transport, coll::MemoryOps& memory, MPI_Comm comm,
                                   const RingProbePlan& plan);
// The same on a group of `comm`'s ranks (a SubTransport's, with `group` the
// communicator of exactly those ranks in the transport's order), every
// group at once: iterations start at barriers over all of `comm`, so the
// groups' rings run together as a hierarchical collective's phase runs
// them; each transfer's times are gathered over `group`; step times are
// the max over all of `comm`.
RingProbeResult measure_ring_probe(coll::Transport& transport, coll::MemoryOps& memory, MPI_Comm comm,
                                   MPI_Comm group, const RingProbePlan& plan);

// Sizes for a ring collective whose largest block is `block_bytes` (the
// bytes one ring step moves, ceil(count/N) elements): one element, for the
// latency, and block/4, block/2, block for the bandwidth, whole elements.
std::vector<std::uint64_t> ring_probe_sizes(std::uint64_t block_bytes, std::size_t element_bytes);

// Runs on every rank after each step (shift) of measure_shifts; returning
// false stops before the next. It must return the same on every rank.
using StepDoneFn = std::function<bool(const RingProbeResult&, int shift)>;

// Collective over `comm`: `link --pattern shift` or `ring` (plan.pattern;
// its sizes, timing and check, not its pairs): one ring probe per shift of
// pattern_shifts (link/patterns.h), over MPI on host buffers. Returns each
// finished step's result.
std::vector<RingProbeResult> measure_shifts(MPI_Comm comm, const LinkPlan& plan, const StepDoneFn& on_step_done = {});

}  // namespace shardroof::link

// `coll`'s model column: what each row should take by its implementation's
// own cost formula (model/collective_cost.h), on the link this run measured
// or was given, beside what it took.
//
// Where the link comes from:
// - the ring probe (link/ring_probe.h) on these ranks, by default: the
//   ring's traffic, every rank sending to its right neighbour while it
//   receives from its left, at the message size each plan size's ring step
//   moves (a block, S/N) and at one element; alpha from the fit over them.
//   W is taken per row at the row's own message size (a block for the ring,
//   pairwise, native and direct ReduceScatter, S for direct AllReduce, a
//   segment for Broadcast, S/N for AllToAll): on shared memory the link is
//   the caches and memory, and the W a message gets changes with its size
//   (a block that fits in L2 moves several times faster than one that
//   streams from DRAM), so one fitted W would flatter the large sizes and
//   wrong the small ones. The row's W is the probe's slope from the largest
//   probed size at or below its message size up to the next probed size
//   (the time each further byte costs from there on: a head start, a shaped
//   link's burst that only an idle link's first message enjoys, or a NIC's
//   start-up, cancels out of it); the probe also runs at twice the largest
//   block so that the largest rows have a pair above them.
//   hier takes the two-level probe (link/two_level_probe.h): each node's
//   ring for a, W and the rings across nodes for a_o, W_o.
// - `--link-from FILE`: a `shardroof link` record's W and alpha (its
//   medians, link/link_summary.h), one W for every size.
// - a preset (`--hw NAME --link NAME`, model/hardware.h): the link's spec W
//   and latency, g = 0; the preset's published collective figures come with
//   the rows they match.
// g (the reduction's time per byte) is measured here with the collectives'
// own reduction (MemoryOps::reduce) on a block of the largest size, and c
// (a local copy's time per byte) with MemoryOps::copy of the largest size;
// neither with a preset, which is not this machine.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "measure/coll_records.h"
#include "measure/comm_setup.h"

namespace shardroof {

// The flags that say where the model column's link comes from, as typed.
struct CollModelFlags {
  std::string model;         // --model: probe | off
  std::string link_from;     // --link-from FILE
  std::string hw;            // --hw PRESET
  std::string link;          // --link (of --hw)
  std::string expect_busbw;  // --expect-busbw (model:F needs the column)
  bool tuning = false;       // --tune-to, which measures no model column
};

// Where the model column's link comes from; the file or preset is read
// here, so a bad one is a usage error before anything runs.
CollModelChoice choose_coll_model(const CollModelFlags& f);

// Collective over `comm` (the setup's ranks): the inputs `choice` names,
// measured where they come from this run. Off, or one rank: no link (every
// row without a model).
CollModelInputs measure_coll_model(CommSetup& setup, MPI_Comm comm, const CollPlan& plan,
                                   const std::vector<int>& node_of_rank, int ranks_per_node,
                                   const CollModelChoice& choice);

// The probe's W for messages of `bytes` (its slope there, see above); the
// fit's W without a probe.
double probe_W_at(const CollModelInputs& in, std::uint64_t bytes);

// The row's expected time and busbw; none for a row whose implementation
// has no formula or without a link. Pure.
std::optional<CollExpected> expected_for(const CollRecord& r, const CollModelInputs& in);
void attach_expected(std::vector<CollRecord>& records, const CollModelInputs& in);

}  // namespace shardroof

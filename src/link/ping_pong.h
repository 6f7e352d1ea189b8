// Point-to-point ping-pong between rank pairs, one pair at a time; with
// plan.pattern == Bidir both ranks of the pair send at once instead (as
// OSU's osu_bibw does), and the time is the exchange's, not half a round trip.
//
// For each pair (src, dst) the two ranks form a two-rank communicator and,
// for each size, time round trips with the timing module (warm-up untimed,
// a barrier of the pair before each iteration, per-iteration max over the
// pair's two ranks, median/min/max over iterations). The one-way time is
// half the round trip. Ranks outside the pair wait for the pair's result,
// which src sends to every rank when the pair is done, sleeping between polls
// (MPI_Irecv + MPI_Test), so they neither touch the links being measured nor
// take the pair's CPU time. Measuring never prints: each finished pair is
// handed to a callback on every rank.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "link/pairs.h"
#include "link/records.h"
#include "timing/timing.h"

namespace shardroof::link {

// Runs on every rank after each pair; returning false stops before the next
// pair. It must return the same on every rank (e.g. an agreed interrupt
// check), or ranks would wait for pairs the others never start.
using PairDoneFn = std::function<bool(const PairMeasurement&)>;

// Collective over `comm` (every rank calls it with the same plan). Returns
// the measurement of every pair finished, on every rank; `on_pair_done`
// runs on every rank after each pair and may end the loop early.
std::vector<PairMeasurement> measure_pairs(MPI_Comm comm, const LinkPlan& plan,
                                           const PairDoneFn& on_pair_done = {});

}  // namespace shardroof::link

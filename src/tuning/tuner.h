// `coll --tune-to`: from measurements of every implementation at every size to
// a tuning table (collectives/tuning.h). Measuring is coll_runner's; these
// are the plain decisions on its records, so they can be tested alone.
//
// Near-equal implementations trade places from run to run (on 2 ranks ring,
// pairwise and direct make the same single exchange), so a table that takes
// each size's winner follows the noise of the run that measured it. The
// rules here take the noise from the run itself: the timed iterations of a
// size are cut into passes, and an implementation counts as "as fast as the
// best" at a size while its loss to the best is within the spread of that
// loss over the passes. Sizes are then covered by as few ranges as
// possible, each run by one implementation that was as fast as the best at
// every size of its range: noise that swaps winners gives one range, a
// crossover larger than the noise gives a switch.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "collectives/tuning.h"
#include "measure/coll_records.h"

namespace shardroof {

// Which implementations --tune-to stops measuring at larger sizes (this
// decides only what is measured, not which of the near-equal ones is
// chosen). No threshold is fixed: one of ours is dropped once it is falling
// behind another of ours, which the run's own noise decides
// (worth_measuring). Why that holds on any machine: each of our algorithms
// has one alpha-beta cost, stated in its header, t(S) = m a + v S b, and the
// ratio of two such costs, (m_i a + v_i S b) / (m_j a + v_j S b), is
// monotone in S. Once i's loss to j is seen rising beyond the noise it keeps
// rising, so i never catches j up at a larger size, whatever a and b are. A
// loss that shrinks is kept however large it is (the ring's 2(N-1) messages
// against direct's one lose many times over at 8 B on many ranks, and win
// at large sizes by their bytes). Native is never dropped and never the
// reference: the library switches algorithms with the size, so its time
// follows no single cost and a ratio to it may turn (measured: pairwise
// all_to_all on 4 ranks lost to native by a growing 1.3-1.5x up to 4 KiB and
// won at 1-2 MiB). Two rises in a row, three sizes, are the fewest that tell
// a trend from one size's outlier; a cache boundary that one
// implementation's working set crosses before the other's can still make a
// rise, which is why the trend must hold twice.
inline constexpr int kPruneSizes = 3;

// The passes of `iterations` timed iterations: floor(sqrt(n)) runs of
// consecutive iterations, as equal as can be ([begin, end) each), so the
// number of passes and their length grow alike (the batch-means rule).
// The implementations of a size run interleaved, so their passes cover the
// same stretch of time and the machine's drift reaches them alike.
std::vector<std::pair<std::size_t, std::size_t>> pass_bounds(std::size_t iterations);

// One ranking per (collective, size) among `records` (coll_runner's, every
// implementation side by side), in increasing size.
std::vector<SizeRanking> rank_sizes(const std::vector<CollRecord>& records);

// How much slower `impl` was than the best at `size`, log(time / best time),
// and how much that loss spreads over the passes: the interquartile range
// of log(pass time / best's pass time), 0 when the passes are not known.
// loss: +infinity when `impl` was not measured at this size.
struct Loss {
  double loss = 0;
  double spread = 0;
  bool noise_known = false;  // the spread came from at least 2 passes of both
};
Loss loss_to_best(const SizeRanking& size, const std::string& impl);

// Whether `impl` was as fast as the best at `size` within the measured
// noise: its loss at most its spread over the passes.
bool within_noise(const SizeRanking& size, const std::string& impl);

// How much slower `impl` was than `reference` at `size`, as loss_to_best
// (loss: +infinity when either was not measured).
Loss loss_to(const SizeRanking& size, const std::string& impl, const std::string& reference);

// How unsteady `impl` was over the passes at `size`: the interquartile
// range of the logarithms of its own pass times (0 when fewer than 2 passes
// are known). An implementation whose time moves between passes of one run
// is the one likeliest to move between runs.
double unsteadiness(const SizeRanking& size, const std::string& impl);

// Whether `impl` is still worth measuring after `rankings` (of one
// collective, in increasing size): false once, at the last kPruneSizes
// sizes, the same one of ours (not native) was the fastest of ours,
// `impl` lost to it by more than the spread at each, and its loss grew from
// each size to the next by more than the two sizes' spreads together (it is
// falling behind; see kPruneSizes). Native is always measured; without a
// measured noise (fewer than 2 passes) nothing is dropped.
bool worth_measuring(const std::string& impl, const std::vector<SizeRanking>& rankings);
// Those of `impls` worth measuring at the next size, in their order.
std::vector<coll::Algorithm> impls_worth_measuring(const std::vector<coll::Algorithm>& impls,
                                                   const std::vector<SizeRanking>& rankings);

// The rules for `ranks` ranks from `rankings` (of one collective, in
// increasing size). From the smallest size on, each range takes the
// implementation that stays within the noise of the best (within_noise)
// over the most sizes in a row. Between those reaching equally far, each
// as fast as the best within the noise at every size, the nominal
// difference is noise: the one with the smallest summed unsteadiness is
// chosen, the smallest summed loss deciding between equally steady ones
// (measured: on 2 ranks, ReduceScatter at 16 MiB, direct read 2% faster
// than the ring in one run and 1.3-1.4x slower in the next).
// The next range starts where it stops (this covers the sizes with the
// fewest ranges). A range ends at the geometric mean of its largest size
// and the next measured size (the last has no upper bound). Its order is
// the chosen implementation, and where that is native, then the one of
// ours with the smallest summed loss over the range (what auto runs where
// native is not available).
std::vector<coll::TuningRule> tuning_rules(const std::vector<SizeRanking>& rankings, int ranks);

// The rules for `ranks` ranks from several launches of the same
// measurement (`launches[l]`: one launch's rankings, as rank_sizes gives;
// a size may be missing from some). Why launches and not one: with more
// ranks than cores, which ranks share a core, and how much of the cache
// and memory bandwidth the machine leaves them, change with every launch,
// and an implementation's place changes with them. One launch's noise over
// its passes does not show that (measured: a table from one launch chose
// pairwise for 3-rank AllReduce at 1-2 MiB, within that launch's noise of
// the ring, and in five later launches pairwise read 1.09-1.31x the ring
// every time). Each size takes the implementation whose worst loss over the
// launches that measured it, max over l of time / launch l's best time, is
// least (the smallest summed log loss between equal worst losses); an
// implementation missing from one of those launches is not chosen there.
// Neighbouring sizes with the same choice make one rule, which ends at the
// geometric mean of its largest size and the next measured one (the last
// has no upper bound). Where native is chosen, the one of ours with the
// least worst loss at each size follows it (what auto runs where native is
// not available).
std::vector<coll::TuningRule> tuning_rules_over_launches(const std::vector<std::vector<SizeRanking>>& launches,
                                                         int ranks);

}  // namespace shardroof

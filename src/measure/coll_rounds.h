// coll's rounds (docs/commands/coll.md, "Rounds and stability"): every
// size once per round, at least --rounds of them and more until they span
// --min-span-s; rounds shorter than the span allows wait for their turn, so
// that short ones spread over the span; each size's rows gather the samples
// of every round and are summarized once, after its last.
#pragma once

#include <mpi.h>

#include <chrono>
#include <cstddef>
#include <vector>

#include "measure/coll_records.h"

namespace shardroof {

// Rounds per --min-span-s, at most (unless --rounds asks for more): a round
// shorter than span/K waits for its turn, so that short rounds (small sizes,
// one rank) spread evenly over the span instead of running back to back by
// the ten thousand. More rounds than the change-point test has blocks
// (stability::kMaxBlocks) would add samples, not moments of the machine, and
// the analysis after the rounds grows with the samples.
inline constexpr int kRoundsPerSpan = 100;

// When a collective's rounds begin and which is the last, on the slowest
// rank's clock, so that every rank decides alike. Every member is
// collective over the communicator but rounds_done.
class CollRoundClock {
 public:
  // At least `min_rounds` rounds, more until they span `min_span_s`.
  CollRoundClock(MPI_Comm comm, int min_rounds, double min_span_s);
  // Seconds since the clock was made, the largest over ranks.
  double elapsed_s() const;
  // A collective's rounds start now.
  void start();
  // Before round `round` (0 the first): waits for its turn (every rank as
  // long; an interrupt ends the wait), then says whether it is the last:
  // --rounds are done and the rounds, with this one (as long as the one
  // before), span --min-span-s.
  bool begin(int round);
  // After the round's sizes.
  void end(int round);
  int rounds_done() const { return done_; }

 private:
  MPI_Comm comm_;
  int min_rounds_;
  double min_span_s_;
  double pace_s_;  // a round starts no sooner than this after the one before
  std::chrono::steady_clock::time_point origin_;
  double start_s_ = 0, round_start_s_ = 0, last_round_s_ = 0;
  int done_ = 0;
};

// Each size's rows over the rounds so far.
class CollSizeRows {
 public:
  CollSizeRows(std::size_t sizes, int ranks) : rows_(sizes), taken_(sizes, false), ranks_(ranks) {}
  // A round's rows at size `i`: the first round's, or appended to them
  // (append_coll_round).
  void add(std::size_t i, std::vector<CollRecord> rows);
  // Size `i`'s rows with the statistics of every round so far, once: empty
  // when taken already or never measured.
  std::vector<CollRecord> take(std::size_t i);
  // The rows of every size not taken yet, summarized (copies): what the
  // file holds of them before their last round.
  std::vector<CollRecord> pending() const;

 private:
  std::vector<std::vector<CollRecord>> rows_;
  std::vector<bool> taken_;
  int ranks_;
};

}  // namespace shardroof

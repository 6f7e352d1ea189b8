// Whether `coll`'s sizes held one state over the run (stability/stability.h):
// each row (implementation, size, placement) over its rounds, and the whole
// run, every row's samples over that row's own median joined into one
// series in time. A size whose time changed state is named, not averaged.
// Pure: no MPI.
#pragma once

#include <vector>

#include "measure/coll_records.h"
#include "stability/statistics.h"
#include "stability/stability.h"

namespace shardroof {

struct CollStability {
  std::vector<stability::Stability> rows;  // one per record, in the records' order
  // Each row's median time with its 95% interval: a bootstrap over its
  // rounds and their samples, widened to every state of an unstable row
  // (what the next launch may see).
  std::vector<stability::MedianInterval> intervals;
  stability::Stability run;                // every row over its own median, in time order
  double origin_s = 0;                     // the run's first stamp: times are seconds since it
};

// A change matters when it moves a row's time (and busbw) by more than
// +-target: the levels must differ by (1 + target)/(1 - target).
CollStability assess_coll_stability(const std::vector<CollRecord>& records, double target = 0.10);

}  // namespace shardroof

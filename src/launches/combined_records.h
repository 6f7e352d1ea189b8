// The combination of a LaunchSet (launches/records.h): for sweep records
// D* and the book's D* across launches, and whether the book's interval
// holds the measured D*; for coll records every row across launches. Pure.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "launches/combination.h"
#include "launches/records.h"
#include "launches/states.h"

namespace shardroof::launches {

// The sweep launches that located no crossover (LaunchSet::uncrossed),
// summed up: their kinds and the levels they were set against, which
// carry the answer ("T_comm stays below the GEMM's floor") across them.
struct UncrossedSummary {
  struct Spread {
    int launches = 0;  // that have the value
    double median = 0, min = 0, max = 0;
  };
  int launches = 0;  // without a crossover
  int of = 0;        // every sweep launch read
  KindCounts kinds;  // each kind (with its cause) and how many, in order of first sight
  std::optional<Spread> t_comm_s, floor_s;
};
UncrossedSummary summarize_uncrossed(const LaunchSet& set);

struct SweepCombination {
  Combined d_star;
  // The book's D* across launches, where every launch has one; its interval
  // (the hierarchical bootstrap of the book's own replicates) judged
  // against the measured combined D*.
  std::optional<Combined> book;
  bool book_holds_measured = false;
  // The states the launches' own levels show (launches/states.h), each
  // with its D*, book D* and prediction: the prediction set. Over every
  // launch (sweep_states): a state whose launches located no crossover
  // predicts none.
  StateSplit states;
  UncrossedSummary uncrossed;  // the launches without a crossover, left out of d_star and book
};

// The states of every sweep launch, those with a crossover and those
// without one: launch i < sweeps.size() is sweeps[i], the rest
// uncrossed[i - sweeps.size()] (the order the tables number them in).
StateSplit sweep_states(const LaunchSet& set, double level = 0.95);

struct CollCombination {
  struct Row {
    CollRowKey key;
    Combined time_s;
    double busbw_factor = 0;  // busbw = factor * bytes / time
    int launches_with_row = 0;
    StateSplit states;  // by the row's time (launches/states.h)
  };
  std::vector<Row> rows;           // rows every launch measured, in key order
  std::vector<CollRowKey> partial;  // rows some launch lacks (not combined)
};

// The sweep launches with a crossover combined: at least two of them
// (LaunchSet::sweeps), else std::logic_error.
SweepCombination combine_sweeps(const LaunchSet& set, double level = 0.95);
CollCombination combine_colls(const LaunchSet& set, double level = 0.95);

}  // namespace shardroof::launches

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

struct SweepCombination {
  Combined d_star;
  // The book's D* across launches, where every launch has one; its interval
  // (the hierarchical bootstrap of the book's own replicates) judged
  // against the measured combined D*.
  std::optional<Combined> book;
  bool book_holds_measured = false;
  // The states the launches' own levels show (launches/states.h), each
  // with its D*, book D* and prediction: the prediction set.
  StateSplit states;
};

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

SweepCombination combine_sweeps(const LaunchSet& set, double level = 0.95);
CollCombination combine_colls(const LaunchSet& set, double level = 0.95);

}  // namespace shardroof::launches

// The report of `shardroof combine`: each launch's value with its own
// interval, the across-launch median with its hierarchical interval, the
// between- and within-launch shares of the variance, the prediction
// interval for the next launch and the launches that disagree; for sweep
// records D* and the book's D*, for coll records every row (time and
// busbw). Console, JSON and CSV from the plain combination records.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "launches/combined_records.h"
#include "launches/records.h"

namespace shardroof {

void print_sweep_combination(std::ostream& out, const launches::LaunchSet& set, const launches::SweepCombination& c);
void print_coll_combination(std::ostream& out, const launches::LaunchSet& set, const launches::CollCombination& c);

nlohmann::json sweep_combination_json(const launches::LaunchSet& set, const launches::SweepCombination& c);

// Sweep launches without a crossover (LaunchSet::uncrossed): a table of
// them with their kind and the levels they were set against, and one line
// that sums them up; nothing where every launch has a crossover. Numbered
// after the launches with one; each with its state from `states`
// (launches::sweep_states).
void print_uncrossed(std::ostream& out, const launches::LaunchSet& set, const launches::UncrossedSummary& u,
                     const launches::StateSplit& states);
// The same as JSON (the record's "without_crossover").
nlohmann::json uncrossed_json(const launches::LaunchSet& set, const launches::UncrossedSummary& u);
// Where fewer than two launches located a crossover there is no D* to
// combine: the launches, the one D* where there is one, what the others
// located instead, and the states every launch's levels show (console,
// JSON with "D": null, CSV).
void print_sweep_uncombined(std::ostream& out, const launches::LaunchSet& set, const launches::UncrossedSummary& u,
                            const launches::StateSplit& states);
nlohmann::json sweep_uncombined_json(const launches::LaunchSet& set, const launches::UncrossedSummary& u,
                                     const launches::StateSplit& states);
std::string sweep_uncombined_csv(const launches::LaunchSet& set, const launches::StateSplit& states);
nlohmann::json coll_combination_json(const launches::LaunchSet& set, const launches::CollCombination& c);

// One row per launch and per combined value: kind (launch, combined,
// prediction), launch, file, quantity, value, low, high.
std::string sweep_combination_csv(const launches::LaunchSet& set, const launches::SweepCombination& c);
std::string coll_combination_csv(const launches::LaunchSet& set, const launches::CollCombination& c);

// The states the launches' own levels show (launches/states.h), as JSON:
// each state's launches, share, levels, combination and prediction
// (values times `scale`: 1e6 for a coll row's microseconds), the mixed
// launches, and the method.
nlohmann::json states_json(const launches::StateSplit& s, double scale = 1);
// The prediction set: each state's interval for the next launch with how
// often the state was seen (values times `scale`).
nlohmann::json prediction_set_json(const launches::StateSplit& s, double scale = 1);
// A state's levels in words: "T_comm at S 330 us, W 6.89 GB/s, C 96.5 GFLOP/s".
std::string state_levels_text(const std::vector<launches::StateLevel>& levels);
// How the states are found, in words.
std::string states_method(const launches::StateSplit& s);

// How the combined numbers are made, in words (console and JSON), from the
// percentiles that give a launch's own spread.
std::string combine_method(int within_low = launches::kWithinLowPercentile,
                           int within_high = launches::kWithinHighPercentile);

}  // namespace shardroof

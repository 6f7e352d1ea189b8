// `sweep --D auto`: where to measure next, from the points so far.
//
//  1. Bracket: start at the power of two nearest the calibrated D_peak
//     (C_peak and T_comm measured at S) and step by x2, up while every
//     point is communication-bound, down while every point is
//     compute-bound, until two neighbouring points bracket the crossing.
//  2. Bisect in log D: measure at the geometric middle of the bracketing
//     pair while the pair is wider than the target interval (D_high/D_low
//     above (1 + t)/(1 - t), t = kTargetHalfWidth): a narrower pair cannot
//     make the interval narrower.
//  3. More iterations near the crossing: measure the bracketing point that
//     has fewer measurements again (the one measured longer ago on a tie),
//     with as many iterations as it has, until the 95% interval of D* lies
//     within +-t of it. The interval covers what the measurements show, so
//     it ends the search only once the pair is that narrow (not the
//     interpolation between two distant points) and each of the two was
//     measured kMinMeasurements times, at different times (not a state of
//     the machine that held through one measurement).
// Each step first asks the time budget: a measurement whose estimated
// time would end past it is not started. The search is pure (its inputs
// are the points, the analysis and the clock), so it is unit tested on
// synthetic points; the command runs it on one rank and hands each step to
// the others.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sweep/analysis.h"
#include "sweep/records.h"

namespace shardroof::sweep {

// Measurements of each bracketing point before its interval is trusted.
inline constexpr std::size_t kMinMeasurements = 3;

struct SearchPlan {
  std::uint64_t D_start = 64;
  std::uint64_t D_min = 1;
  std::uint64_t D_max = 1;       // the largest D that fits in memory
  TimingPlan timing;             // of a first measurement at a D
  double budget_s = 40;          // wall time of the whole run, ceilings included
  double target = kTargetHalfWidth;
};

enum class SearchStop {
  None,            // still measuring
  Converged,       // the interval is within +-target of D*
  Budget,          // the next measurement would end past the budget
  RangeEnd,        // the crossing lies beyond D_min or D_max
  NotLocated,      // the points cross only downward, or tie, after more iterations
};
std::string to_string(SearchStop s);

struct SearchStep {
  SearchStop stop = SearchStop::None;  // None: measure D with `iters` iterations
  std::uint64_t D = 0;
  int iters = 0;
  std::string why;  // "bracket", "bisect", "more iterations"; or why it stopped
};

// One measurement the search asked for, and what it took.
struct SearchRecord {
  std::uint64_t D = 0;
  int iters = 0;
  double wall_s = 0;
  std::string why;
};

class CrossoverSearch {
 public:
  explicit CrossoverSearch(SearchPlan plan) : plan_(plan) {}
  // `points` sorted by D (merged), `analysis` of them, `elapsed_s` since the
  // run began.
  SearchStep next(const std::vector<PointRecord>& points, const SweepAnalysis& analysis, double elapsed_s) const;
  void record(const SearchStep& step, double wall_s) { log_.push_back({step.D, step.iters, wall_s, step.why}); }
  const std::vector<SearchRecord>& log() const { return log_; }
  const SearchPlan& plan() const { return plan_; }
  // Estimated seconds to measure D with `iters` iterations, from the
  // measurements so far (0 before the first).
  double estimate_s(const std::vector<PointRecord>& points, std::uint64_t D, int iters) const;

 private:
  SearchStep measure_if_affordable(const std::vector<PointRecord>& points, double elapsed_s, std::uint64_t D,
                                   int iters, std::string why) const;
  SearchPlan plan_;
  std::vector<SearchRecord> log_;
};

// The power of two nearest `d` in log scale, within [lo, hi].
std::uint64_t nearest_power_of_two(double d, std::uint64_t lo, std::uint64_t hi);

}  // namespace shardroof::sweep

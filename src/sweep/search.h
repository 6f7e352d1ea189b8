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
//  3. Rounds: once the pair is that narrow, each round measures both
//     points again (the plan's iterations each) and the ceilings the book
//     prediction uses (the reference GEMM, g, M, the GEMM's floor, the ring
//     probe), one after the other, so that the crossing and the prediction
//     see the same machine and the measurement spreads over time. The
//     search stops (converged) when the two points each hold at least
//     min_rounds measurements spread over at least min_span_s seconds,
//     the 95% interval of D* (a bootstrap over those measurements, widened
//     to every state the machine was in) lies within +-t of it, and
//     neither T_comm nor the reference GEMM changed state during the run.
//     One short window is one sample of a machine's state; rounds spread
//     over a span are many (docs/statistics.md says why these defaults).
// No crossover: where every point is compute-side down to a shard of one
// column (D <= N), T_comm lies below the GEMM's floor; the search does not
// go below D = N (a smaller D holds the same shard), and rounds at that
// point check over the span that this holds before it stops.
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

// Measurements (rounds) of each bracketing point before its interval is trusted.
inline constexpr std::size_t kMinRounds = 5;

// (With --sharding fsdp the search runs the same way over the whole batch
// B, every value a multiple of the ranks: `grain`.)
struct SearchPlan {
  std::uint64_t D_start = 64;
  std::uint64_t grain = 1;       // every value measured is a multiple of it (N with fsdp)
  std::string name = "D";        // the swept dimension, for the reasons given
  std::uint64_t D_min = 1;       // the number of ranks: every smaller D holds the same shard of one column
  std::uint64_t D_max = 1;       // the largest D that fits in memory
  TimingPlan timing;             // of each measurement at a D
  double budget_s = 60;          // wall time of the whole run, ceilings included
  double target = kTargetHalfWidth;
  std::size_t min_rounds = kMinRounds;
  double min_span_s = 30;        // the rounds' measurements must spread over at least this long
};

// The search of a plan with --D auto on `ranks` ranks, started where the
// roof model puts the crossing with the collective's own T_comm at S (the
// analysis of the ceilings alone), at the floor (a shard of one column)
// when T_comm lies below it rather than walking D down to it.
SearchPlan search_plan(const SweepPlan& plan, int ranks, const SweepAnalysis& ceilings_only);

enum class SearchStop {
  None,            // still measuring
  Converged,       // the interval is within +-target of D*
  Budget,          // the next measurement would end past the budget
  RangeEnd,        // the crossing lies beyond D_max
  NotLocated,      // the points cross only downward, or tie, after the rounds
  NoCrossover,     // T_comm stays below the GEMM's floor (a shard of one column) over the rounds
};
std::string to_string(SearchStop s);

struct SearchStep {
  SearchStop stop = SearchStop::None;  // None: measure D (and D2) with `iters` iterations
  std::uint64_t D = 0;
  std::uint64_t D2 = 0;  // a round's second point (0: none)
  bool round = false;    // a round: the points and then the ceilings again
  int iters = 0;
  std::string why;  // "bracket", "bisect", "round"; or why it stopped
};

// One measurement (or round) the search asked for, and what it took.
struct SearchRecord {
  std::uint64_t D = 0;
  std::uint64_t D2 = 0;
  bool round = false;
  int iters = 0;
  double wall_s = 0;
  std::string why;
};

// How far the rounds at the crossing (or the floor) have come.
struct RoundProgress {
  std::size_t rounds = 0;  // measurements of the point measured least often
  double span_s = 0;       // from the first to the last sample of the points' measurements
};
RoundProgress round_progress(const std::vector<const PointRecord*>& points);

class CrossoverSearch {
 public:
  explicit CrossoverSearch(SearchPlan plan) : plan_(plan) {}
  // `points` sorted by D (merged), `analysis` of them, `elapsed_s` since the
  // run began.
  SearchStep next(const std::vector<PointRecord>& points, const SweepAnalysis& analysis, double elapsed_s) const;
  void record(const SearchStep& step, double wall_s) {
    log_.push_back({step.D, step.D2, step.round, step.iters, wall_s, step.why});
  }
  const std::vector<SearchRecord>& log() const { return log_; }
  const SearchPlan& plan() const { return plan_; }
  // Estimated seconds to measure D with `iters` iterations, from the
  // measurements so far (0 before the first).
  double estimate_s(const std::vector<PointRecord>& points, std::uint64_t D, int iters) const;

 private:
  SearchStep measure_if_affordable(const std::vector<PointRecord>& points, double elapsed_s, std::uint64_t D,
                                   int iters, std::string why) const;
  // A round at D (and D2), or why the rounds end (converged, none, budget).
  SearchStep round_or_stop(const std::vector<PointRecord>& points, const SweepAnalysis& analysis, double elapsed_s,
                           std::uint64_t D, std::uint64_t D2, bool floor) const;
  double round_estimate_s(const std::vector<PointRecord>& points, std::uint64_t D, std::uint64_t D2) const;
  SearchPlan plan_;
  std::vector<SearchRecord> log_;
};

// The power of two nearest `d` in log scale, within [lo, hi].
std::uint64_t nearest_power_of_two(double d, std::uint64_t lo, std::uint64_t hi);

}  // namespace shardroof::sweep

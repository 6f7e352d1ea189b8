// The model step of a sweep: from the measured records (points and
// ceilings) to the crossover numbers the reports print. Pure: no MPI.
//
// Three crossovers, kept apart (docs/model.md):
//  - D_empirical: where the measured T_math and T_comm cross, with a 95%
//    interval: a bootstrap of the measurements (rounds) of its two points
//    and of the samples within them, widened to hold the crossover of
//    every state the machine was seen in (below);
//  - D_book: the book's model fed with ceilings measured apart from the
//    collective under test, in the same rounds as the points: the GEMM's
//    rate at each D (C), the ring probe's (or --link-from's) W and alpha,
//    the reduction kernel's g. The prediction a user validates; beside it
//    the pure roofline's crossover (C_peak, M and the GEMM's floor against
//    the book's T_comm: model/regimes.h), with the roof it falls on.
//  - D_predicted (calibrated): the model with T_comm = the collective's own
//    median time at S (over the samples of the two points around D*, whose
//    T_comm placed it) and the GEMM's rate at each D; right by
//    construction, a consistency check of the arithmetic, never a
//    prediction.
// Every point gets its regime (communication, or the GEMM's binding roof:
// compute, memory or overhead) and the crossing its conditioning (the
// slope of T_math at D*).
// Stability (stability/stability.h): T_comm at S does not depend on D and
// the reference GEMM not on time, so every T_comm sample of the run (the
// ceilings' and each point's, in time order) and the reference GEMM's
// rounds must each be one distribution. Where either is not, the
// crossover is solved for each state the machine was in.
// And the error budget that explains D_empirical from the pure book model:
//   D_empirical = D_book(C_peak) x compute_efficiency / comm_efficiency x residual
//   compute_efficiency = C(D_empirical) / C_peak
//   comm_efficiency    = T_comm_book / T_comm measured at S
// (D* = N*C*T_comm/(2*B*F) for every ring formula, so the factors multiply.)
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/regimes.h"
#include "model/roofline.h"
#include "stability/stability.h"
#include "launches/combination.h"
#include "launches/states.h"
#include "sweep/book_interval.h"
#include "sweep/fit.h"
#include "sweep/overlap_model.h"
#include "sweep/plan.h"
#include "sweep/records.h"
#include "timing/stragglers.h"

namespace shardroof::sweep {

// The interval's level, its bootstrap replicates, and the half-width `--D
// auto` refines to (a fraction of D*).
inline constexpr double kIntervalLevel = 0.95;
inline constexpr int kBootstrapReplicates = 2000;
inline constexpr int kBookReplicates = 400;
inline constexpr double kIntervalZ = 1.96;  // the normal quantile of kIntervalLevel
inline constexpr double kTargetHalfWidth = 0.10;

struct ErrorBudget {
  double D_book_peak = 0;         // the pure book model: C_peak and the independent link
  double C_at_D = 0;              // the GEMM's rate at D_empirical (interpolated)
  double compute_efficiency = 0;  // C(D_empirical) / C_peak
  double comm_efficiency = 0;     // T_comm_book / T_comm measured at S
  double residual = 0;            // what the two factors leave unexplained
};

// sweep --overlap: how much of the time that overlap could hide it hid,
//   (T_step - T_overlap) / (T_step - max(T_math, T_comm))   (medians)
// 1: T_overlap reached max(T_math, T_comm); 0: nothing hidden; below 0: the
// chunked step was slower than the plain one. Undefined (no value, and
// `undefined` says why) without an overlapped step, or when the
// denominator is below kMinHideableFraction of T_step: then there is nothing
// measurable to hide, and the ratio of two noise-sized differences would
// mean nothing.
inline constexpr double kMinHideableFraction = 0.01;
struct OverlapEfficiency {
  std::optional<double> value;
  std::string undefined;  // why there is no value
};

// The defined efficiencies over the points: how many, median, min, max.
struct EfficiencySpread {
  int points = 0;
  double median = 0, min = 0, max = 0;
};

// What the analysis derives from one point, for the reports to print.
// The measurement of a point whose slowest rank stands out most, and that rank.
struct PointStraggler {
  std::string measurement;  // "t_math", "t_comm", "t_step", "t_overlap"
  Straggler straggler;
};

// --sharding fsdp --overlap prefetch at one point against the pipeline
// model (model::predict_prefetch): its prediction from each layer's gather
// and GEMM timed alone, its error against the measured T_prefetch, and the
// share of what prefetching could hide at best that it hid,
//   (T_serial - T_prefetch) / (T_serial - T_ideal)
// (undefined where the denominator is below kMinHideableFraction of T_serial).
struct PrefetchAnalysis {
  model::PrefetchPrediction model;
  double predicted_error = 0;  // (predicted - measured) / measured T_prefetch
  OverlapEfficiency efficiency;
};
PrefetchAnalysis analyze_prefetch(const PointRecord& p);

struct PointDerived {
  double frac_peak = 0;         // the GEMM's rate / C_peak (0 without C_peak)
  model::Regime regime;         // what bounds the point, and the fraction of that roof reached
  double step_flops_per_s = 0;  // useful FLOPs of the slowest shard per second of the whole step
  double intensity = 0;         // FLOP per byte communicated (0 on one rank)
  bool compute_bound = false;   // T_math >= T_comm (medians)
  OverlapEfficiency overlap;    // with --overlap
  // Each chunked step (PointRecord::overlap_runs, in order) against the pipeline model.
  std::vector<OverlapRunAnalysis> overlap_runs;
  std::optional<PrefetchAnalysis> prefetch;  // with --overlap prefetch
  // Each rank's summary per measurement (t_math, t_comm, t_step and with
  // --overlap t_overlap; timing/stragglers.h), and the rank named in the
  // measurement where it stands out most, if any does.
  std::vector<std::pair<std::string, std::vector<RankSummary>>> ranks;
  std::optional<PointStraggler> straggler;
};

// The crossover in one state of the machine: T_comm (or the reference
// GEMM) at one of its levels, the measured T_math curve scaled to it.
struct StateCrossover {
  std::string quantity;  // "t_comm" or "t_math"
  double level_s = 0;    // the state's median: T_comm in seconds, or T_math's ratio to each point's median
  double share = 0;      // of that quantity's samples
  LevelCrossing crossing;
  // With T_comm's states: the book's prediction in the same state, from the
  // ring probe's and the reduction's samples taken while the machine was
  // in it (none where the probe has no sample of every size there).
  std::optional<double> book_t_comm_s;
  std::optional<LevelCrossing> book_crossing;
};

struct RunStability {
  stability::Stability t_comm;  // every T_comm sample at S of the run, in time order
  // The points' T_math, each over its own point's median (a ratio), in time order.
  stability::Stability t_math;
  // The reference GEMM (C_peak's shape) over the rounds: whether the
  // machine's compute changed. It decides C_peak (its fastest state) but
  // not the crossing, which the points' own T_math decides.
  stability::Stability gemm;
  // The other ceilings over the rounds, for the record: which of them the
  // machine's states reach ("ring probe at 2 MiB", "reduction g",
  // "memory triad", "GEMM floor").
  std::vector<std::pair<std::string, stability::Stability>> ceilings;
  // With --overlap: the plain steps and the chunked steps (every K), each
  // over its own point's median, in time order. They run in the same
  // rounds (sweep/overlap_runner.cpp), so a change of state reaches both;
  // the overlap's prediction is judged where neither is unstable.
  std::optional<stability::Stability> t_step;
  std::optional<stability::Stability> t_overlap;
  std::vector<StateCrossover> states;  // with an unstable verdict: the crossover in each state
  bool computed = false;
  // The crossing's own quantities changed state.
  bool unstable() const {
    return t_comm.verdict == stability::Verdict::Unstable || t_math.verdict == stability::Verdict::Unstable;
  }
};

// No crossover at any D: T_comm below the GEMM's floor (the lowest point
// holds a shard of one column and is compute-side).
struct NoCrossover {
  double t_comm_s = 0;       // the collective at S (the floor point's median)
  double floor_s = 0;        // T_math at a shard of one column (measured)
  double floor_model_s = 0;  // the roof model's floor
  model::Roof cause = model::Roof::Memory;
};

// The empirical crossing's roof and conditioning.
struct CrossingRegime {
  model::Roof roof = model::Roof::Compute;  // the GEMM's binding roof at D*
  bool on_floor = false;                    // that roof is the floor (named by its cause)
  model::Conditioning measured;  // slope of the measured T_math between the two points around D*
  model::Conditioning model;     // slope of the roof model at D*
};

struct SweepAnalysis {
  model::Shape shape;
  double C_peak = 0;           // the reference GEMM's rate (its fastest state where it ran in several)
  model::GemmFloor floor;      // the measured floor and its cause
  model::Ceilings book;        // C_peak, M; W and alpha of the link; g
  model::Ceilings calibrated;  // C_peak, M; W_eff from T_comm(S), a = g = 0
  double t_comm_book_s = 0;      // the book's T_comm with the link's W, alpha and g
  // The collective's median at S: over the samples of the two points
  // around D* (every sample of the run when there is no crossing), and
  // over every sample of the run (the ceilings' and each point's).
  double t_comm_measured_s = 0;
  int t_comm_samples = 0;
  double t_comm_run_s = 0;
  int t_comm_run_samples = 0;
  // The points' own T_comm medians, lowest and highest: a collective whose
  // time changes between measurements (a link with two states) moves D*
  // with it, which no interval over one point's samples shows.
  double t_comm_points_min_s = 0, t_comm_points_max_s = 0;
  double W_eff_bytes_per_s = 0;  // the W that T_comm(S) implies with everything in the bandwidth term
  EmpiricalCrossover empirical;
  std::optional<Interval> interval;  // of D_empirical
  std::optional<PredictedCrossover> predicted;  // calibrated, C per point
  std::optional<PredictedCrossover> book_predicted;  // book, C per point
  std::optional<double> D_peak;       // calibrated with C_peak: (N-1)*s*C_peak/W_eff (AllReduce)
  std::optional<double> D_roofs;      // calibrated with C_peak and the memory roof M
  // The roof model (C_peak, M, the measured floor) against the book's
  // T_comm (the pure roofline's prediction) and against the measured
  // T_comm (consistency).
  model::RoofCrossover roofs_book, roofs_measured;
  std::optional<CrossingRegime> crossing_regime;  // with an empirical D*
  std::optional<NoCrossover> no_crossover;
  // The bootstrap interval alone, before it was widened to the states.
  std::optional<Interval> sample_interval;
  // The bootstrap's distribution of D* (0th..100th percentiles): what
  // `shardroof combine` draws this launch's D* from.
  std::vector<double> replicate_percentiles;
  // The conditioning carried into the interval: the uncertainty of T_comm's
  // level over the run (every round's median at S: the standard error of
  // their log) moves D* by that over the slope k of T_math at D*; the
  // interval holds at least D* x exp(+-1.96 se / k). 0 where not computed.
  double t_comm_spread_log = 0;
  double conditioning_half_width_log = 0;
  // With --history: where the next launch's D* should fall, around this
  // launch's D* with the spread of the history's launches
  // (stability::next_launch_interval).
  std::optional<Interval> next_launch_interval;
  std::optional<launches::LaunchHistory> history;  // the spread it was made with
  // The book's D* as an interval over its inputs' spread (the final
  // analysis only: AnalysisOptions::book_interval).
  std::optional<BookInterval> book_interval;
  RunStability stability;
  std::optional<double> rel_error;       // (D_predicted - D_empirical) / D_empirical
  std::optional<double> book_rel_error;  // (D_book - D_empirical) / D_empirical
  std::optional<ErrorBudget> budget;
  // One per point, in the points' order.
  std::vector<PointDerived> points;
  // Over the points' defined overlap efficiencies (none without one).
  std::optional<EfficiencySpread> overlap_spread;
  // With --overlap on two or more ranks: the step's efficiency at the book's
  // D* with and without the chunked pipeline, and the D where it reaches
  // 90% of C_peak each way (the book's ceilings; auto's K or the first K).
  std::optional<model::OverlapOutlook> overlap_outlook;
  // C_peak / W_eff: compute-bound iff the intensity exceeds it; (N-1)*s
  // times it (AllReduce; half for ReduceScatter) is D_peak.
  double critical_intensity() const;
};

// The ratio by which a level must change to matter: one that alone can move
// D* (proportional to T_comm on the compute roof) out of a +-target
// interval, (1 + target)/(1 - target).
double material_ratio(double target);

struct AnalysisOptions {
  bool stability = true;  // the change-point tests (the costly part: rank 0 alone needs them)
  double target = kTargetHalfWidth;
  bool book_interval = false;  // the book's bootstrap (a few hundred model solutions: the final analysis)
  std::optional<launches::LaunchHistory> history;
};

// The plan's seed makes the bootstrap repeatable.
SweepAnalysis analyze(const SweepPlan& plan, int ranks, const RunCeilings& ceilings,
                      const std::vector<PointRecord>& points, const AnalysisOptions& options = {});

// The D a model's table shows beside this sweep (--model-hw): the plan's
// list, and with --D auto the model's default values around the
// calibrated D_peak that fit in memory.
std::vector<std::uint64_t> model_D_values(const SweepPlan& plan, const SweepAnalysis& a);

// The run's stability: T_comm's samples (the ceilings' collective at S and
// every point's), the reference GEMM's rounds; stamps as seconds since
// ceilings.origin_s.
RunStability assess_stability(const RunCeilings& ceilings, const std::vector<PointRecord>& points, double target);

// The book's T_comm while the machine was in `state` (a state of T_comm):
// the ring probe's W and alpha fitted again to its samples taken in that
// state's spans, and g from the reduction's samples there. Empty where a
// probe size has no sample in it, or without a probe.
std::optional<double> book_t_comm_in_state(const model::Shape& shape, const RunCeilings& ceilings,
                                           const model::Ceilings& book, const stability::State& state);

// The measured floor (T_math at a shard of one column) and its cause.
model::GemmFloor measured_floor(const model::Shape& shape, const RunCeilings& ceilings);

// One point's derived numbers (analyze fills SweepAnalysis::points with them).
// `roofs` holds C_peak and M.
PointDerived derive_point(const SweepPlan& plan, const model::Shape& shape, const model::Ceilings& roofs,
                          const PointRecord& p, const model::GemmFloor& floor = {}, double t_comm_model = 0);
OverlapEfficiency overlap_efficiency(const PointRecord& p);
// The share of the hideable time a step that took `t_overlap` hid:
// (T_step - t_overlap) / (T_step - max(T_math, T_comm)), medians of `p`;
// none where the hideable time is below kMinHideableFraction of T_step.
// The measured hidden share of every chunk count and its prediction use it.
std::optional<double> hidden_share(const PointRecord& p, double t_overlap);
std::optional<EfficiencySpread> overlap_efficiency_spread(const std::vector<PointRecord>& points);

}  // namespace shardroof::sweep

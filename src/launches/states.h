// States across launches. A machine can hold one of a few states for
// minutes at a time (two vCPUs that share an L3 cache or do not: the same
// 1 MiB ring AllReduce at 89-107 us in some launches and 322-344 us in
// others), and every number a launch derives follows the state it ran in.
// One interval over such launches is either wrong for every state or too
// wide to say anything. So launches are grouped by the levels of what each
// measured itself (the collective's time at S, the ring probe's W, the
// GEMM's rate; for coll, the row's time), never by the answer they derived
// (D*), and each state gets its own combination and prediction.
//
// Method (docs/statistics.md, "States across launches"):
//  1. Per quantity, the launches' levels sorted by log value. Two
//     neighbours belong to different states when their gap exceeds both
//     the material ratio (the level test of stability/stability.h: a
//     smaller change cannot move the result out of its target) and what
//     the two launches' own noise allows at the change-point test's
//     significance level: z(1 - alpha/2) x sqrt(n_a^2 + n_b^2), n the
//     spread of each launch's measurements at one level
//     (Stability::noise_sd_log). No constant tuned on a machine.
//  2. A launch's state is the tuple of its groups over the quantities it
//     has (a quantity it lacks, or that changed inside it, matches any
//     group). Launches with equal tuples are one state.
//  3. A launch that changed state inside itself is split into its parts
//     where its record has the crossing per state (each part weighted by
//     its share of the samples); where not, it is named mixed and left out.
//  4. Per state: the combination of its launches (launches/combination.h);
//     a state seen in fewer than two launches is tentative, and its
//     prediction takes the spread the other states' launches show (pooled)
//     or, without any, its one launch's own interval.
// Pure arithmetic, no MPI, no files.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "launches/combination.h"

namespace shardroof::launches {

// Kinds of no crossover ("below_range, overhead") in order of first sight,
// with how many of each, and their text ("below_range, overhead: 3;
// above_range: 1").
using KindCounts = std::vector<std::pair<std::string, int>>;
void count_kind(KindCounts& counts, const std::string& kind);
std::string kinds_text(const KindCounts& counts);

// What a launch measured itself, whose level says its state.
enum class LevelQuantity {
  CollectiveAtS,  // the collective's time at S (sweep)
  RingProbeW,     // the ring probe's W (sweep)
  GemmRate,       // the GEMM's rate, C_peak (sweep)
  RowTime,        // the row's time (coll, per row)
};
std::string to_string(LevelQuantity q);  // "t_comm_at_S", "ring_probe_W", "gemm_rate", "row_time"
std::optional<LevelQuantity> parse_level_quantity(std::string_view name);
std::string describe(LevelQuantity q);   // "the collective's time at S", ...
std::string unit_of(LevelQuantity q);    // "s", "B/s", "FLOP/s"

struct LevelReading {
  LevelQuantity quantity = LevelQuantity::CollectiveAtS;
  double value = 0;         // > 0
  double noise_sd_log = 0;  // the launch's own noise at one level (log scale); 0 unknown
};

// A launch, or one part of a launch that changed state inside itself.
struct Observation {
  std::size_t launch = 0;  // index among the launches
  double share = 1;        // of that launch's samples (1: the whole launch)
  std::vector<LevelReading> levels;
  LaunchEstimate value;    // D* (B* for fsdp) or a coll row's time; 0 with no_crossover
  std::optional<LaunchEstimate> book;
  // A sweep launch that located no crossover: its kind ("below_range,
  // overhead"); "" where `value` holds its D*. Its levels still say its
  // state: a machine whose answer is "no crossover" has states too.
  std::string no_crossover;
};

// What one launch gives the search: its parts (one: the whole launch), or
// none and why (a launch that changed state inside itself and has no
// crossing per state).
struct LaunchReadings {
  std::vector<Observation> parts;
  std::string mixed;  // "" unless it could not be split
};

struct StateLevel {
  LevelQuantity quantity = LevelQuantity::CollectiveAtS;
  double median = 0;
  // One launch's spread of log level in this state: its launches' spread,
  // at least their own noise (their mean noise_sd_log). What a new launch
  // is matched within.
  double spread_sd_log = 0;
};

struct LaunchState {
  std::string name;                      // "A", "B", ...: most launches first
  std::vector<std::size_t> observations;  // into StateSplit::observations
  std::vector<std::size_t> launches;      // distinct launches that saw it, ascending
  double share = 0;                       // of all launches (a part counts its share)
  bool tentative = false;                 // seen in fewer than two launches
  std::vector<StateLevel> levels;
  // Its observations with a value (D*, a row's time) and those without
  // one (sweep launches that located no crossover), with their kinds
  // ("below_range, overhead: 3") in order of first sight, and each kind's
  // weight (the observations' shares: a part of a launch counts its share).
  int crossed = 0, uncrossed = 0;
  double crossed_share = 0, uncrossed_share = 0;
  KindCounts no_crossover_kinds;
  Combined value;                         // its observations with a value combined (launches 0: none)
  std::optional<Combined> book;           // where every such observation has a book estimate
  double predict_low = 0, predict_high = 0;  // 0, 0 where it predicts no crossover
  // Where the prediction came from: "its launches", "the other states'
  // launches (pooled)", "its one launch's own interval", or "no crossover
  // in its launches" / "no crossover in most of its launches" (the
  // next launch in this state is expected to locate none).
  std::string prediction_from;
  // Most of its weight located no crossover: the state predicts none (on
  // two ranks of one node whose T_comm sits just above or below the GEMM's
  // floor, a few launches cross at the range's low end and most do not).
  bool predicts_no_crossover() const { return uncrossed_share > crossed_share; }
  std::string no_crossover_text() const { return kinds_text(no_crossover_kinds); }
};

struct StateOptions {
  double material_ratio = 1.22;  // the launches' own (their records'); (1 + t)/(1 - t)
  double significance = 0.01;    // the change-point test's level
  double level = 0.95;           // of the intervals
};

struct StateSplit {
  int launches = 0;
  std::vector<Observation> observations;
  std::vector<LaunchState> states;
  std::vector<std::pair<std::size_t, std::string>> mixed;  // launch, why it was not split
  double material_ratio = 0, significance = 0;
  double z = 0;  // z(1 - significance/2)
};

// `readings[i]` is launch i's. Deterministic.
StateSplit find_states(const std::vector<LaunchReadings>& readings, const StateOptions& options = {});

// The smallest difference of log level that says two states, for two
// readings with these noises (step 1 above).
double state_gap_log(double noise_a, double noise_b, double material_ratio, double z);

// A state as a record carries it (`shardroof combine`'s JSON), for a new
// launch to be matched to.
struct KnownState {
  std::string name;
  int launches_seen = 0, launches = 0;
  bool tentative = false;
  std::vector<StateLevel> levels;
  double predict_low = 0, predict_high = 0;
  // Where every launch of the state located no crossover: their kinds; the
  // state then predicts none (predict_low = predict_high = 0).
  std::string no_crossover;
};

// Where a new launch's own levels place it among known states: the state
// whose every shared level lies within state_gap_log (noise: the launch's
// own and the state's spread) of the launch's, the nearest in units of
// that gap where several do; none: a state not seen before, with the
// level that differs most from the nearest state.
struct Placement {
  std::optional<std::size_t> state;  // into the known states
  // Without a state: the quantity furthest from the nearest state, its
  // value here and that state's level. Unset where no level was shared.
  std::optional<LevelQuantity> differing;
  double value = 0, known_level = 0;
  std::string nearest;  // the nearest state's name
};
Placement place(const std::vector<LevelReading>& mine, const std::vector<KnownState>& known, double material_ratio,
                double significance);

// What earlier launches of the same settings said (`sweep --history`, a
// `shardroof combine` record): the launch-to-launch spread of log D*, and
// the states they showed with each state's levels and spreads (none in a
// record made before states were recorded).
struct LaunchHistory {
  std::string path;
  int launches = 0;           // with a D* (combined); 0 where fewer than two located one
  double between_sd_log = 0;  // the launch effect
  double within_sd_log = 0;   // one launch's own noise
  double median = 0;          // their combined D*
  bool has_states = false;
  std::vector<KnownState> states;
  double material_ratio = 0, significance = 0;
};

// A new launch (its readings: whole, or its parts where it changed state
// inside) placed among the history's states, part by part.
struct PlacedPart {
  double share = 1;
  double value = 0;  // this part's D* (0: none)
  Placement placement;
  // Whether the part landed where its state said: D* inside the state's
  // interval, or no crossover where the state predicts none. Unset
  // without a state.
  std::optional<bool> inside;
};
std::vector<PlacedPart> place_launch(const LaunchReadings& mine, const LaunchHistory& history);

}  // namespace shardroof::launches

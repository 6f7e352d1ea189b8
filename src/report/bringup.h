// A bring-up's records as the answer block and `shardroof report` read
// them: the documents sweep, coll, link, peak, predict and combine write
// (--json), each read into a plain view of what the answer and the plots
// need. Reading is forgiving on purpose: a record from an older or newer
// shardroof, or one cut short, still gives what it holds, and every field
// it lacks or cannot read is named in `skipped` instead of failing the
// whole page. No MPI, no measuring: records in, views out.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "launches/states.h"

namespace shardroof::bringup {

// Median, min and max of a time (seconds), as the records keep them.
struct TimeStat {
  double median = 0, min = 0, max = 0;
};

// A lower and upper bound; a missing side is unbounded.
struct Bounds {
  std::optional<double> low, high;
};

// One CPU or GPU rate beside the hardware's own limit for it.
struct Ceiling {
  std::string what;      // "C float per rank", "W ring probe"
  double measured = 0;   // in `unit`
  std::optional<double> limit;
  std::string limit_name;  // "this core's FMA peak", "line rate"
  std::string unit;        // "FLOP/s", "B/s"
};

struct Environment {
  std::string host, cpu, blas, mpi, gpu, date, load_average;
  std::vector<std::string> line_rates;  // in words, one per link with one
};

struct SweepPoint {
  double D = 0;
  TimeStat t_math, t_comm, t_step;
  std::string regime;  // compute, memory, overhead, communication
};

// With --history: where this launch's own levels placed it (a part per
// state where it changed state inside).
struct HistoryPart {
  std::string state;  // "" : a state not seen before
  int seen = 0, of = 0;
  bool tentative = false;
  Bounds expected;
  std::optional<double> D;
  std::optional<bool> inside;
  std::string no_crossover_expected;  // the state's launches located none (their kinds)
  double share = 1;
  std::string differing_is, differing_unit, nearest;  // without a state
  double differing_value = 0, nearest_level = 0;
};

// sweep --levels: one level's D* (sweep/levels.h), measured and the model's.
struct SweepLevel {
  long long ranks = 0;  // P_l
  std::optional<double> D_ring, D_ring_model, D_hier, D_hier_model;
};

struct SweepView {
  std::string path, swept = "D", datatype, collective, impl;
  int ranks = 0;
  double B = 0, F = 0;
  bool complete = true;
  std::vector<SweepPoint> points;
  std::string kind;  // bracketed, above_range, below_range, only_downward, tied, no_points
  std::optional<double> D;  // D_empirical
  Bounds D_interval;
  std::optional<double> book;
  Bounds book_interval;
  std::optional<bool> book_holds;
  std::string roof;  // compute, memory, floor ... at D*
  bool on_floor = false;
  std::optional<double> slope;
  bool ill_conditioned = false;
  std::string stability;  // stable, unstable, "" unknown
  int comm_states = 0;
  std::optional<double> C_peak, M, t_comm_book_s, t_comm_run_s, floor_s;
  std::string floor_cause, link_source;
  std::optional<double> W_book, W_line_rate;
  std::optional<Ceiling> compute;  // C_peak beside the hardware's peak
  std::optional<double> no_crossover_t_comm_s, no_crossover_floor_s;
  std::string stop;  // how --D auto's search stopped
  std::string kernel_warning;  // the BLAS kernel's shortfall in words, "" without one
  std::vector<HistoryPart> history_parts;
  bool history_without_states = false;  // --history given a record made before states
  std::vector<SweepLevel> levels;        // past two levels, innermost first
};

struct CollRow {
  std::string impl;
  bool in_place = false;
  std::uint64_t bytes = 0;
  double time_s = 0, busbw_GBps = 0;
  std::optional<double> model_time_s, model_busbw_GBps;
};

struct CollView {
  std::string path, collective, datatype;
  int ranks = 0;
  std::vector<CollRow> rows;  // out of place first where both are there
  std::string stability;  // the whole run's verdict
  int rounds = 0;
  std::optional<double> model_W;
  std::string model_source;
  long long wrong = 0;
};

struct LinkPair {
  int src = 0, dst = 0;
  std::optional<double> W, alpha_s;
  std::string src_host, dst_host;
  std::optional<double> line_rate;  // bytes/s
};

struct LinkView {
  std::string path, pattern;
  int ranks = 0;
  std::vector<LinkPair> pairs;
};

struct PeakGemm {
  std::string host, datatype;
  double flops_per_s = 0;
  std::optional<double> limit;
  std::string limit_name;
};

struct PeakView {
  std::string path;
  int ranks = 0;
  std::vector<PeakGemm> gemms;
  std::optional<double> triad_bytes_per_s;
  std::string kernel_warning;  // the BLAS kernel's shortfall in words, "" without one
};

struct PredictView {
  std::string path, collective, datatype, swept = "D";
  int ranks = 0;
  std::optional<double> D_star;      // the book's, bandwidth and latency terms
  std::optional<double> roofline_D;  // with the GEMM's roofs (memory, floor)
  std::string roof, roofline_kind;
  std::optional<double> C, W;
};

struct CombineLaunch {
  std::string path;
  std::optional<double> D;
  Bounds interval;
  std::string stability;
  std::string no_crossover;  // a launch without a crossover: its kind ("below_range, overhead"), else ""
};

// A state the combined launches showed (launches/states.h).
struct CombineState {
  std::string name;
  int seen = 0, of = 0;  // launches that saw it, of all
  double share = 0;
  bool tentative = false;
  std::optional<double> value;  // its combined D* (or time)
  Bounds interval, next_launch;
  std::vector<launches::StateLevel> levels;
  // Its launches without a crossover: their kinds ("below_range, overhead:
  // 3"), and whether none of its launches located one (it predicts none).
  std::string no_crossover;
  bool predicts_no_crossover = false;
};

struct CombineView {
  std::string path, command;  // command: what was combined (sweep, coll)
  int launches = 0;
  std::optional<double> D;
  Bounds interval, next_launch;
  std::optional<double> between_share;  // of the variance of log D*
  std::optional<double> book;
  Bounds book_interval;
  std::optional<bool> book_holds;
  std::vector<CombineLaunch> each;
  std::string swept = "D";
  int coll_rows = 0;
  std::vector<CombineState> states;  // none in records made before states
  int mixed = 0;                     // launches that changed state inside and could not be split
  std::vector<std::string> launch_states;  // each launch's state by name ("A", "A+B", "mixed")
  // Launches that located no crossover (combine's "without_crossover"),
  // after those in `each` that did.
  int uncrossed = 0;
  std::string uncrossed_kinds;  // "below_range, overhead: 3"
  std::optional<double> uncrossed_t_comm_s, uncrossed_floor_s;  // medians over them
  bool uncrossed_below_floor = false;  // every one of them below_range with T_comm at S under its floor
};

// Every record of a bring-up, in the order read.
struct BringUp {
  std::vector<SweepView> sweeps;
  std::vector<CollView> colls;
  std::vector<LinkView> links;
  std::vector<PeakView> peaks;
  std::vector<PredictView> predicts;
  std::vector<CombineView> combines;
  std::optional<Environment> environment;  // the first record's with one
  std::vector<std::string> skipped;        // "FILE: what was left out and why"
};

// Adds the record `doc` (read from `path`) to `into`; what it lacks or
// cannot read goes to into.skipped. A record of no known command is
// skipped whole, with its name.
void add_record(BringUp& into, const std::string& path, const nlohmann::json& doc);

// The views of one run's own record (`path` "" for the run in hand).
BringUp read_record(const nlohmann::json& doc, const std::string& path = "");

}  // namespace shardroof::bringup

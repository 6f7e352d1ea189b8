// Pass/fail gates over a measuring command's results, so a cluster health
// check can call shardroof and read its exit status:
// - an expectation: every checked result at least a given rate
//   (coll --expect-busbw: busbw of the sizes at or above --expect-from;
//   link --expect-W: every measured pair's fitted W);
// - a baseline: the same metrics from an earlier --json of the same command
//   and settings; a result worse than the baseline's by more than the
//   tolerance fails.
//
// Both read the command's JSON document, so the run and its baseline go
// through one code path: metrics_of() names each number by what it is
// ("all_reduce ring out-of-place 8388608 B busbw"), and the run and the
// baseline are matched by those names. No MPI: commands/gate_run.h reads
// the baseline on rank 0 and shares the verdict; report/gate_report.h
// formats it.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace shardroof::gate {

// Which way a metric gets worse.
enum class Better {
  Higher,   // a rate: lower is worse
  Lower,    // a time: higher is worse
  Neither,  // a crossover D*: a move either way past the tolerance fails
};

// One measured number a gate can judge.
struct Metric {
  std::string key;   // the same in a run and its baseline, e.g. "all_reduce ring out-of-place 8388608 B"
  std::string name;  // "busbw", "W", "T_step", "D*", "GEMM", ...
  std::string unit;  // "B/s", "s", "FLOP/s", "s/element", "" (D)
  double value = 0;
  Better better = Better::Higher;
  std::uint64_t bytes = 0;  // coll: the size S (what --expect-from selects by)
  std::string where;        // the ranks it was measured on: "slowest rank 1 (host a): ...", "ranks 0 -> 1 (a, b)"
  double model = 0;         // the model's value of the same result (coll: "expected" busbw); 0: none
  // The hardware's own limit of the same result (peak and sweep: the
  // core's or GPU's FLOP/s peak per rank for C; link: the line rate of the
  // pair's link for W); 0: none.
  double hardware = 0;
};

struct Check {
  enum class Kind { Expectation, Baseline };
  Kind kind = Kind::Expectation;
  Metric metric;
  double limit = 0;     // the expected value, or the baseline's
  double worse_by = 0;  // how much worse than `limit`, as a fraction of it (0: not worse)
  bool passed = true;
};

struct Verdict {
  std::vector<std::string> rules;  // what was checked, in words
  std::vector<Check> checks;
  std::vector<std::string> notes;     // what was not compared, and why
  std::vector<std::string> problems;  // failures that are no single check (nothing to compare)
  bool passed() const;
  std::size_t failed() const;  // failed checks and problems
};

// Every number of a document of `shardroof coll | link | sweep | peak` a
// baseline compares (coll: busbw per size, implementation and placement;
// link: W and alpha per pair; sweep: T_math, T_comm, T_step per D and the
// empirical D*; peak: GEMM FLOP/s, memory bandwidth and reduction time per
// node). Metrics a run left unmeasured (a pair without a fit, a D* not
// bracketed) are absent.
std::vector<Metric> metrics_of(const nlohmann::json& doc);

// The fields of "settings" that must be equal for a baseline's numbers to
// compare with a run's (besides the command, the rank count and the number
// of hosts, always compared).
const std::vector<std::string>& compared_settings(const std::string& command);

// UsageError naming every field that differs (or a file that is no
// shardroof record) when `baseline` (read from `path`) cannot be compared
// with `run`.
void require_comparable(const nlohmann::json& run, const nlohmann::json& baseline, const std::string& path);

// The verdict's checks of `run`'s metrics named `name` whose size is at
// least `from_bytes`, against a lower bound `at_least` (in the metric's
// unit). `rule` says it in words. No metric to check is a problem.
void check_expectation(Verdict& verdict, const std::vector<Metric>& run, const std::string& name, double at_least,
                       std::uint64_t from_bytes, const std::string& rule);

// The same against `fraction` times each metric's own model value (coll
// --expect-busbw model:F); a metric without one is a note, and none with
// one is a problem.
void check_model_expectation(Verdict& verdict, const std::vector<Metric>& run, const std::string& name,
                             double fraction, std::uint64_t from_bytes, const std::string& rule);

// The same against `fraction` times each metric's hardware limit (--expect-C
// hw:F, --expect-W hw:F). Only metrics with a limit are checked (a thin
// GEMM, a pair in shared memory have none); none at all is a problem.
void check_hardware_expectation(Verdict& verdict, const std::vector<Metric>& run, const std::string& name,
                                double fraction, const std::string& rule);

// The verdict's checks of `run` against the baseline's metrics of the same
// key: fails where a metric is worse by more than `tolerance` (a fraction).
// Keys on one side only are notes; none in common is a problem.
void check_baseline(Verdict& verdict, const std::vector<Metric>& run, const std::vector<Metric>& baseline,
                    double tolerance, const std::string& path);

// The default of coll's --expect-from: a tenth of the largest size measured
// (the sizes where busbw is near its plateau; smaller ones are latency-bound).
std::uint64_t default_expect_from(const std::vector<std::uint64_t>& sizes);

}  // namespace shardroof::gate

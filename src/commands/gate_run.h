// The gates of one run (gate/gate.h) on every rank. Before anything is
// measured, rank 0 reads --baseline and refuses one that is no record, or
// whose settings differ from this run's: every rank then ends with the same
// usage error. After the results are published, rank 0 judges them, the
// record gets "gate", the report the verdict, and every rank learns it, so
// all exit with the same status. Only rank 0 reads the file.
//
//   RunGate gate(ctx, f.baseline, {{"busbw", 40e9, from, "busbw >= 40 GB/s ..."}}, out.document());
//   ... measure, publish ...
//   gate.judge(out.document());  // collective; before out.finish() writes the record
//   gate.print();                 // after the command's own summary
//   return gate.exit_status(out.exit_status(...));
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/common_flags.h"
#include "commands/run_output.h"
#include "gate/gate.h"

namespace shardroof {

struct RunContext;

// A lower bound on the metrics named `metric` of the sizes at least
// `from_bytes` (a command's --expect-* flag); `rule` says it in words.
struct GateExpectation {
  std::string metric;
  double at_least = 0;
  std::uint64_t from_bytes = 0;
  std::string rule;
  double model_fraction = 0;  // > 0: at least this times each result's model value instead of at_least
  double hardware_fraction = 0;  // > 0: at least this times each result's hardware limit (hw:F)
};

// --expect-C VALUE of peak and sweep (metric "C": the large GEMM's FLOP/s
// per rank): a rate, or hw:F of the hardware's peak; `what` names the
// results judged. Empty when VALUE is. UsageError for a bad VALUE.
std::vector<GateExpectation> expect_c_gate(const std::string& value, const std::string& what);

// coll's --expect-busbw over the sizes from --expect-from (default: a tenth
// of the largest, gate::default_expect_from), as typed; none without it.
std::vector<GateExpectation> busbw_expectations(const std::string& expect_busbw, const std::string& expect_from,
                                                const std::vector<std::uint64_t>& sizes);

class RunGate {
 public:
  // Collective. `doc`: the run's document, begun (its command and settings).
  RunGate(RunContext& ctx, const BaselineFlags& flags, std::vector<GateExpectation> expectations,
          const nlohmann::json& doc);

  // Whether any gate was asked for.
  bool active() const { return !expectations_.empty() || !path_.empty(); }

  // Collective: rank 0 judges `doc`'s results and records "gate" in it;
  // every rank learns whether it failed. Nothing without a gate.
  void judge(nlohmann::json& doc);
  // The verdict on the report (rank 0): the rules, what fell short, by how
  // much and on which ranks. Nothing without a gate or before judge().
  void print() const;

  // `status` when it is not 0 (interrupted, wrong results win), else
  // ExitCode::GateFailed when the gate failed, with one line on stderr.
  int exit_status(int status) const;

 private:
  RunContext& ctx_;
  std::vector<GateExpectation> expectations_;
  std::string path_;
  double tolerance_ = 0;
  std::vector<gate::Metric> baseline_;  // rank 0
  gate::Verdict verdict_;               // rank 0
  bool judged_ = false;                 // every rank
  bool failed_ = false;                 // every rank
};

// The end of every command's run, written once: the gates judge the
// results (unless the run was interrupted), the files are finished, the
// command's summary and the gates' verdict are printed, then where the
// files went, and the exit status (interrupted, else wrong results, else
// the gate's). Collective; call it after the trace is finished.
struct RunEnd {
  std::function<std::string()> csv_text;  // the CSV, for a command with --csv
  std::function<void()> summary;          // the command's own summary on the report
  bool summary_if_stopped = true;         // false: an interrupted run ends with its files written
  std::string wrong;                      // the wrong results in words; "" when none
  std::string stopped_note;               // what an interruption left undone
};
int end_run(RunOutput& out, RunGate& gate, nlohmann::json& doc, const RunEnd& end);

}  // namespace shardroof

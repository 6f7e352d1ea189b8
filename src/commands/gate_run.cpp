#include "commands/gate_run.h"

#include <fmt/format.h>

#include <fstream>
#include <iostream>

#include "cli/command.h"
#include "cli/values.h"
#include "collectives/mpi_transport.h"
#include "report/gate_report.h"
#include "util/agreement.h"
#include "util/error.h"
#include "util/mpi_session.h"
#include "util/units.h"

namespace shardroof {
namespace {

nlohmann::json read_baseline(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw_usage("--baseline: cannot read '{}'", path);
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw_usage("--baseline: '{}' is not JSON: {}", path, e.what());
  }
}

}  // namespace

std::vector<GateExpectation> expect_c_gate(const std::string& value, const std::string& what) {
  const ExpectFlag e = expect_flag(value, "--expect-C", false, true);
  if (!e.set()) return {};
  GateExpectation g;
  g.metric = "C";
  if (e.hardware_fraction > 0) {
    g.hardware_fraction = e.hardware_fraction;
    g.rule = fmt::format("--expect-C {}: {} at least {:g}% of the hardware's own peak per rank", value, what,
                         100 * e.hardware_fraction);
  } else {
    g.at_least = e.at_least;
    g.rule = fmt::format("--expect-C {}: {} at least {:g} GFLOP/s per rank", value, what, e.at_least / 1e9);
  }
  return {g};
}

RunGate::RunGate(RunContext& ctx, const BaselineFlags& flags, std::vector<GateExpectation> expectations,
                 const nlohmann::json& doc)
    : ctx_(ctx), expectations_(std::move(expectations)), path_(flags.baseline) {
  run_agreed(ctx.mpi.world(), [&] {
    tolerance_ = baseline_tolerance(flags);
    if (path_.empty() || !ctx.mpi.is_root()) return;
    const nlohmann::json baseline = read_baseline(path_);
    try {
      gate::require_comparable(doc, baseline, path_);
      baseline_ = gate::metrics_of(baseline);
    } catch (const nlohmann::json::exception& e) {
      throw_usage("--baseline: '{}' is not a readable shardroof record: {}", path_, e.what());
    }
  });
}

void RunGate::judge(nlohmann::json& doc) {
  if (!active()) return;
  run_agreed(ctx_.mpi.world(), [&] {
    if (!ctx_.mpi.is_root()) return;
    const std::vector<gate::Metric> run = gate::metrics_of(doc);
    for (const auto& e : expectations_) {
      if (e.hardware_fraction > 0)
        gate::check_hardware_expectation(verdict_, run, e.metric, e.hardware_fraction, e.rule);
      else if (e.model_fraction > 0)
        gate::check_model_expectation(verdict_, run, e.metric, e.model_fraction, e.from_bytes, e.rule);
      else
        gate::check_expectation(verdict_, run, e.metric, e.at_least, e.from_bytes, e.rule);
    }
    if (!path_.empty()) gate::check_baseline(verdict_, run, baseline_, tolerance_, path_);
    failed_ = !verdict_.passed();
    doc["gate"] = gate_json(verdict_, failed_ ? static_cast<int>(ExitCode::GateFailed) : 0);
  });
  long long failed = failed_ ? 1 : 0;
  broadcast_from_root(ctx_.mpi.world(), {&failed, 1});
  failed_ = failed != 0;
  judged_ = true;
}

void RunGate::print() const {
  if (!judged_ || !ctx_.mpi.is_root()) return;
  ctx_.out << "#\n";
  print_gate(ctx_.out, verdict_);
}

int RunGate::exit_status(int status) const {
  if (status != 0 || !failed_) return status;
  if (ctx_.mpi.is_root()) std::cerr << fmt::format("shardroof: {}\n", gate_failure_text(verdict_)) << std::flush;
  return static_cast<int>(ExitCode::GateFailed);
}

int end_run(RunOutput& out, RunGate& gate, nlohmann::json& doc, const RunEnd& end) {
  if (!out.stopped()) gate.judge(doc);
  out.finish(end.csv_text);
  if (out.stopped() && !end.summary_if_stopped) return out.exit_status("", end.stopped_note);
  if (end.summary) end.summary();
  gate.print();
  out.print_written_files();
  return gate.exit_status(out.exit_status(end.wrong, end.stopped_note));
}

std::vector<GateExpectation> busbw_expectations(const std::string& expect_busbw, const std::string& expect_from,
                                                const std::vector<std::uint64_t>& sizes) {
  const ExpectFlag busbw = expect_flag(expect_busbw, "--expect-busbw", true);
  if (!busbw.set()) {
    if (!expect_from.empty()) throw_usage("--expect-from {}: only with --expect-busbw", expect_from);
    return {};
  }
  const std::uint64_t from =
      expect_from.empty() ? gate::default_expect_from(sizes) : parse_bytes(expect_from, "--expect-from");
  if (!sizes.empty() && from > sizes.back())
    throw_usage("--expect-from {}: larger than the largest size measured ({})", expect_from,
                format_bytes(sizes.back()));
  const std::string what =
      busbw.model_fraction > 0
          ? fmt::format("busbw at least {:g}% of the model's (this run's expected busbw of the same row)",
                        busbw.model_fraction * 100)
          : fmt::format("busbw at least {}", format_metric_value(busbw.at_least, "B/s"));
  return {{"busbw", busbw.at_least, from,
           fmt::format("--expect-busbw {}: {} at every size from {} ({}), every implementation and placement",
                       expect_busbw, what, format_bytes(from),
                       expect_from.empty() ? "a tenth of the largest size" : "--expect-from"),
           busbw.model_fraction}};
}

}  // namespace shardroof

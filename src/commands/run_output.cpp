#include "commands/run_output.h"

#include <fmt/format.h>

#include <iostream>

#include "cli/command.h"
#include "commands/environment.h"
#include "commands/output_path.h"
#include "report/results_file.h"
#include "report/trace_report.h"
#include "trace/clock_sync.h"
#include "util/error.h"
#include "util/interrupt.h"
#include "util/mpi_session.h"

namespace shardroof {

std::string RunProgress::text(const std::string& unit) const {
  return total ? fmt::format("{} of {} {}", done, *total, unit) : fmt::format("{} {} of the search", done, unit);
}

RunOutput RunOutput::agree(RunContext& ctx, std::string command, std::string unit, OutputRequest asked) {
  const MPI_Comm world = ctx.mpi.world();
  asked.json = agree_output_path(world, asked.json, ctx.force, "--json", ctx.progress);
  asked.csv = agree_output_path(world, asked.csv, ctx.force, "--csv", ctx.progress);
  asked.trace = agree_output_path(world, asked.trace, ctx.force, "--trace", ctx.progress);
  return RunOutput(&ctx.mpi, ctx.mpi.is_root(), ctx.out, std::cerr, std::move(command), std::move(unit),
                   std::move(asked));
}

RunOutput::RunOutput(const MpiSession* mpi, bool writer, std::ostream& out, std::ostream& errors, std::string command,
                     std::string unit, OutputRequest paths)
    : mpi_(mpi),
      writer_(writer),
      out_(out),
      errors_(errors),
      command_(std::move(command)),
      unit_(std::move(unit)),
      paths_(std::move(paths)) {}

RunOutput::~RunOutput() = default;

void RunOutput::begin_document(nlohmann::json fields) {
  doc_ = std::move(fields);
  doc_["command"] = command_;
  if (mpi_) doc_["environment"] = environment_json(gather_environment(*mpi_));  // collective: every rank calls it
}

void RunOutput::write(const std::function<std::string()>& csv_text) {
  if (!writer_) return;
  if (!paths_.json.empty()) write_json_atomically(paths_.json, doc_);
  if (!paths_.csv.empty() && csv_text) write_file_atomically(paths_.csv, csv_text());
}

void RunOutput::publish(std::size_t done, std::optional<std::size_t> total,
                        const std::function<std::string()>& csv_text) {
  progress_ = {done, total};
  write(csv_text);
  if (writer_ && !results_path().empty())
    set_interrupt_note(fmt::format("{} are in {}", progress_.text(unit_), results_path()));
}

void RunOutput::publish_throttled(std::size_t done, std::optional<std::size_t> total, bool now,
                                  const std::function<void()>& update) {
  const auto start = std::chrono::steady_clock::now();
  if (!writes_files() ||
      (!now && std::chrono::duration<double>(start - last_write_).count() < 10 * last_write_s_)) {
    note_progress(done, total);
    return;
  }
  if (update) update();
  publish(done, total);
  last_write_ = std::chrono::steady_clock::now();
  last_write_s_ = std::chrono::duration<double>(last_write_ - start).count();
}

void RunOutput::note_progress(std::size_t done, std::optional<std::size_t> total) { progress_ = {done, total}; }

bool RunOutput::stop_requested(std::size_t steps_done) {
  hold_for_signal_if_asked(steps_done);
  if (progress_.total && progress_.done >= *progress_.total) return false;
  stopped_ = mpi_ ? any_rank_interrupted(mpi_->world()) : interrupt_requested();
  return stopped_;
}

trace::Recorder* RunOutput::start_trace() {
  if (paths_.trace.empty() || !mpi_) return nullptr;
  trace_ = std::make_unique<trace::TraceSession>(mpi_->world());
  return &trace_->recorder();
}

void RunOutput::finish_trace(std::string traced, bool device_work) {
  if (!trace_) return;
  const auto ranks = trace_->finish();
  if (!writer_) return;
  TraceInfo info;
  info.command = command_;
  info.traced = std::move(traced);
  info.mpi_wtime_is_global = trace::mpi_wtime_is_global();
  if (device_work)
    info.device_note = "device work is asynchronous: spans show when the host issued and waited for work, "
                       "not when kernels ran";
  info.settings = doc_.contains("settings") ? doc_["settings"] : nlohmann::json();
  write_json_atomically(paths_.trace, chrome_trace_json(ranks, info));
}

void RunOutput::finish(const std::function<std::string()>& csv_text) {
  if (stopped_) doc_["interrupted"] = interrupt_signal_name().empty() ? "on another rank" : interrupt_signal_name();
  write(csv_text);
}

void RunOutput::print_written_files() {
  if (!paths_.json.empty()) out_ << "# JSON written to " << paths_.json << "\n";
  if (!paths_.csv.empty()) out_ << "# CSV written to " << paths_.csv << "\n";
  if (!paths_.trace.empty())
    out_ << "# trace written to " << paths_.trace << " (open it in https://ui.perfetto.dev)\n";
}

int RunOutput::exit_status(const std::string& wrong, const std::string& stopped_note) {
  if (stopped_) {
    const std::string where = results_path().empty()
                                  ? std::string(paths_.csv_flag ? "no --json or --csv file was asked for"
                                                                : "no --json file was asked for")
                                  : fmt::format("finished {} are in {}", unit_, results_path());
    // One write, so the launcher does not interleave it with stdout.
    if (writer_)
      errors_ << fmt::format("shardroof: interrupted after {}; {}{}\n", progress_.text(unit_), where,
                             stopped_note.empty() ? "" : "; " + stopped_note)
              << std::flush;
    return static_cast<int>(ExitCode::Interrupted);
  }
  if (!wrong.empty()) {
    if (writer_) errors_ << fmt::format("shardroof: error: {}\n", wrong) << std::flush;
    return static_cast<int>(ExitCode::WrongResults);
  }
  return 0;
}

}  // namespace shardroof

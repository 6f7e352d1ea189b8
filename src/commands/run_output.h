// The lifecycle of a command's results, the same for every command: agree
// on the output paths, start the JSON document, publish it after every
// finished step, stop every rank at the same step when one was interrupted,
// finish the trace, print where the files went and end with the exit status.
//
// A run goes:
//   RunOutput out = RunOutput::agree(ctx, "coll", "sizes", {f.json, "", f.trace, false});
//   out.begin_document({{"settings", ...}});        // collective
//   trace::Recorder* rec = out.start_trace();       // collective; null without --trace
//   for each step: measure; out.publish(done, total); if (out.stop_requested(done)) break;
//   out.finish_trace(what was traced, device work); // collective
//   out.finish();                                   // "interrupted" into the file
//   console summary; out.print_written_files();
//   return out.exit_status(wrong results, in words);
//
// Only the writing rank (rank 0) writes files and messages; every rank
// calls every method, in the same order.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>

#include "trace/session.h"

namespace shardroof {

struct RunContext;
class MpiSession;

// The output files of a command ("" = not asked for).
struct OutputRequest {
  std::string json;
  std::string csv;
  std::string trace;
  // The command has --csv (then "no --json or --csv file was asked for").
  bool csv_flag = false;
};

// How far a run got: `done` of `total` steps; no total for a search, whose
// end is open.
struct RunProgress {
  std::size_t done = 0;
  std::optional<std::size_t> total;

  // "3 of 7 points", or "3 points of the search".
  std::string text(const std::string& unit) const;
};

class RunOutput {
 public:
  // Collective on the world: the no-overwrite policy for every path asked
  // for (agree_output_path: rank 0 picks a free name, says so on
  // ctx.progress, every rank takes its choice). `unit` names the steps in
  // messages ("sizes", "pairs", "measurements", "points").
  static RunOutput agree(RunContext& ctx, std::string command, std::string unit, OutputRequest asked);

  // With paths already agreed. Without an MPI session (a single process:
  // tests) the local interrupt flag decides a stop, and there is no
  // environment and no trace. Reports go to `out`, messages to `errors`.
  RunOutput(const MpiSession* mpi, bool writer, std::ostream& out, std::ostream& errors, std::string command,
            std::string unit, OutputRequest paths);
  ~RunOutput();
  RunOutput(const RunOutput&) = delete;
  RunOutput& operator=(const RunOutput&) = delete;

  const std::string& json_path() const { return paths_.json; }
  const std::string& csv_path() const { return paths_.csv; }
  const std::string& trace_path() const { return paths_.trace; }

  // Collective: the document starts as `fields` plus "command" and
  // "environment" (hosts, libraries, build, date).
  void begin_document(nlohmann::json fields);
  nlohmann::json& document() { return doc_; }

  // After a step: the writing rank replaces the JSON file (and the CSV,
  // from `csv_text`) atomically, and the interrupt handler's note says
  // where the finished steps are. Call it on every rank.
  void publish(std::size_t done, std::optional<std::size_t> total,
               const std::function<std::string()>& csv_text = {});
  // publish, but writing no sooner than ten times the last writing's time
  // after it, so that rewriting files that grow with every step takes at
  // most a tenth of the run; `now` writes regardless (a step every reader
  // must find in the file). `update` fills the document first, only when
  // this rank writes. Otherwise the step only counts (note_progress).
  void publish_throttled(std::size_t done, std::optional<std::size_t> total, bool now,
                         const std::function<void()>& update);
  // A step done without writing the files: the progress every rank keeps
  // moves on as publish's does, so stop_requested stays collective; the
  // files and the interrupt note keep the last publish's.
  void note_progress(std::size_t done, std::optional<std::size_t> total);
  // Whether this rank writes a file on publish (the writing rank, with
  // --json or --csv): what only the file needs can be left unbuilt elsewhere.
  bool writes_files() const { return writer_ && !results_path().empty(); }

  // Collective: true on every rank when any rank got SIGINT/SIGTERM, so all
  // stop after the same step. `steps_done` is the step a reliability test
  // may hold after (hold_for_signal_if_asked). After the last step of a
  // run with a total there is nothing left to stop: false without asking.
  bool stop_requested(std::size_t steps_done);
  bool stopped() const { return stopped_; }

  // Collective: starts the --trace session (the clock offsets, the span
  // buffers); null without --trace.
  trace::Recorder* start_trace();
  // Collective, stopped or not (the traced steps are kept): gathers every
  // rank's spans and rank 0 writes the trace. `traced` says in words which
  // iterations were traced; `device_work`: spans time the host's side of
  // asynchronous device work.
  void finish_trace(std::string traced, bool device_work);

  // After the last step: a stopped run's document says so ("interrupted":
  // the signal, or "on another rank"), and the files are written once more.
  void finish(const std::function<std::string()>& csv_text = {});

  // "# JSON written to FILE" (and CSV, trace) on the report.
  void print_written_files();

  // The exit status, with one message on `errors`: Interrupted (where the
  // finished steps are, then `stopped_note` when given), else WrongResults
  // when `wrong` says what was wrong, else 0.
  int exit_status(const std::string& wrong = "", const std::string& stopped_note = "");

 private:
  void write(const std::function<std::string()>& csv_text);
  // The file that holds the finished steps: the JSON, else the CSV.
  const std::string& results_path() const { return paths_.json.empty() ? paths_.csv : paths_.json; }

  const MpiSession* mpi_;
  bool writer_;
  std::ostream& out_;
  std::ostream& errors_;
  std::string command_;
  std::string unit_;
  OutputRequest paths_;
  nlohmann::json doc_;
  RunProgress progress_;
  bool stopped_ = false;
  std::chrono::steady_clock::time_point last_write_{};  // publish_throttled's last write
  double last_write_s_ = 0;                             // and how long it took
  std::unique_ptr<trace::TraceSession> trace_;
};

}  // namespace shardroof

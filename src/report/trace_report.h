// The `--trace` file: Chrome trace-event JSON (the "JSON Object Format" that
// https://ui.perfetto.dev and chrome://tracing open) built from every
// rank's recorded spans. It consumes trace::RankTrace records; it never
// measures.
//
// Layout: one process per rank, pid = rank + 1 (pid 0 is Linux's idle task,
// which Perfetto treats specially), named "rank R" by a process_name event;
// one thread per track: tid = rank + 1 for the main thread ("rank R") and
// N + rank + 1 for the communication thread ("rank R comm"), since Perfetto
// keys threads by tid alone. Spans are complete ("X") events with ts and dur
// in microseconds (whole nanoseconds, so nesting survives the conversion)
// on rank 0's clock: each rank's times are shifted by its estimated offset,
// interpolated between the estimates taken before and after measuring.
// "otherData" holds the metadata: what was traced, the clock offsets and
// round trips, dropped spans and the command's settings.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "trace/records.h"

namespace shardroof {

struct TraceInfo {
  std::string command;           // "coll" or "sweep"
  std::string traced;            // which iterations were traced, in words
  bool mpi_wtime_is_global = false;
  std::string device_note;       // set when spans time host-side enqueue of device work
  nlohmann::json settings;       // the command's settings, as in --json
};

// The slice name a span gets in the trace.
std::string trace_span_name(const trace::Span& span, const std::vector<trace::Region>& regions);

nlohmann::json chrome_trace_json(const std::vector<trace::RankTrace>& ranks, const TraceInfo& info);

}  // namespace shardroof

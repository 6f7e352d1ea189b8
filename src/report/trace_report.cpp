#include "report/trace_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "shardroof/config.h"
#include "util/units.h"

namespace shardroof {

namespace {

std::string region_label(const trace::Region& r) {
  if (r.measurement == "coll")
    return fmt::format("{} {} {}{}", r.collective, r.algorithm, format_bytes(r.bytes),
                       r.in_place == 1 ? " in place" : r.in_place == 0 ? " out of place" : "");
  if (r.chunks > 0) return fmt::format("{} D={}, {} chunks", r.measurement, r.D, r.chunks);
  return fmt::format("{} D={}", r.measurement, r.D);
}

nlohmann::json region_json(const trace::Region& r) {
  nlohmann::json j = {{"measurement", r.measurement},
                      {"collective", r.collective},
                      {"algorithm", r.algorithm},
                      {"bytes", r.bytes},
                      {"iteration", r.iteration + 1},
                      {"iterations", r.iterations}};
  if (r.measurement != "coll") {
    j["D"] = r.D;
    j["shard"] = r.shard;
  }
  if (r.in_place >= 0) j["in_place"] = r.in_place == 1;
  if (r.chunks > 0) j["chunks"] = r.chunks;
  return j;
}

nlohmann::json offset_json(const trace::ClockOffset& c) {
  return {{"offset_s", c.offset_s}, {"round_trip_s", c.round_trip_s}, {"local_time_s", c.local_time_s},
          {"rounds", c.rounds}};
}

// Rank 0's time for this rank's time t: the offset drifts linearly between
// the estimate before measuring and the one after.
double aligned(const trace::RankTrace& rt, double t) {
  const auto& a = rt.clock_start;
  const auto& b = rt.clock_end;
  const double span = b.local_time_s - a.local_time_s;
  if (!(span > 0)) return t + a.offset_s;
  const double f = (t - a.local_time_s) / span;
  return t + a.offset_s + f * (b.offset_s - a.offset_s);
}

std::int64_t to_ns(double seconds) { return std::llround(seconds * 1e9); }

// Microseconds with whole nanoseconds: Perfetto rounds ts * 1000 to an
// integer, so begin and end come back exactly and children stay inside
// their parents.
double ns_to_us(std::int64_t ns) { return static_cast<double>(ns) / 1000.0; }

}  // namespace

std::string trace_span_name(const trace::Span& span, const std::vector<trace::Region>& regions) {
  const bool has_region = span.region >= 0 && static_cast<std::size_t>(span.region) < regions.size();
  if (span.category == "iteration" && has_region) return region_label(regions[static_cast<std::size_t>(span.region)]);
  // Ring steps and the chunks of an overlapped step are numbered.
  const char* number = span.category == "step" ? "step" : "chunk";
  for (const auto& [key, value] : span.args) {
    if (key != number) continue;
    return span.category == "step" ? fmt::format("{} {}", span.name, value)
                                   : fmt::format("{} chunk {}", span.name, value);
  }
  return span.name;
}

nlohmann::json chrome_trace_json(const std::vector<trace::RankTrace>& ranks, const TraceInfo& info) {
  const int n = static_cast<int>(ranks.size());
  const auto pid_of = [](int rank) { return rank + 1; };
  const auto tid_of = [n](int rank, int track) { return track == 0 ? rank + 1 : n * track + rank + 1; };

  // Times start near zero: the earliest aligned begin over all ranks.
  std::int64_t origin = std::numeric_limits<std::int64_t>::max();
  std::size_t total = 0;
  std::uint64_t dropped = 0;
  for (const auto& rt : ranks) {
    for (const auto& s : rt.spans) origin = std::min(origin, to_ns(aligned(rt, s.begin_s)));
    total += rt.spans.size();
    dropped += rt.dropped;
  }
  if (total == 0) origin = 0;

  struct Slice {
    std::int64_t ts, dur;
    int pid, tid;
    nlohmann::json event;
  };
  std::vector<Slice> slices;
  slices.reserve(total);
  nlohmann::json events = nlohmann::json::array();
  nlohmann::json offsets = nlohmann::json::array();
  for (const auto& rt : ranks) {
    const int pid = pid_of(rt.rank);
    bool track_used[trace::kTracks] = {};
    for (const auto& s : rt.spans) {
      const std::int64_t begin = to_ns(aligned(rt, s.begin_s)) - origin;
      const std::int64_t end = to_ns(aligned(rt, s.end_s)) - origin;
      const int tid = tid_of(rt.rank, s.track);
      if (s.track >= 0 && s.track < trace::kTracks) track_used[s.track] = true;
      nlohmann::json args = nlohmann::json::object();
      for (const auto& [key, value] : s.args) args[key] = value;
      if (s.category == "iteration" && s.region >= 0 && static_cast<std::size_t>(s.region) < rt.regions.size())
        args.update(region_json(rt.regions[static_cast<std::size_t>(s.region)]));
      nlohmann::json e = {{"name", trace_span_name(s, rt.regions)},
                          {"cat", s.category},
                          {"ph", "X"},
                          {"ts", ns_to_us(begin)},
                          {"dur", ns_to_us(std::max<std::int64_t>(end - begin, 0))},
                          {"pid", pid},
                          {"tid", tid},
                          {"args", std::move(args)}};
      slices.push_back({begin, end - begin, pid, tid, std::move(e)});
    }
    const std::string rank_name = fmt::format("rank {}", rt.rank);
    events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", pid}, {"tid", tid_of(rt.rank, 0)},
                      {"args", {{"name", rank_name}}}});
    events.push_back({{"name", "process_sort_index"}, {"ph", "M"}, {"pid", pid}, {"tid", tid_of(rt.rank, 0)},
                      {"args", {{"sort_index", rt.rank}}}});
    for (int track = 0; track < trace::kTracks; ++track) {
      if (track != 0 && !track_used[track]) continue;
      const std::string name = track == 0 ? rank_name : rank_name + " comm";
      events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", pid}, {"tid", tid_of(rt.rank, track)},
                        {"args", {{"name", name}}}});
      events.push_back({{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", pid}, {"tid", tid_of(rt.rank, track)},
                        {"args", {{"sort_index", track}}}});
    }
    offsets.push_back({{"rank", rt.rank},
                       {"host", rt.host},
                       {"pid", pid},
                       {"spans", rt.spans.size()},
                       {"dropped", rt.dropped},
                       {"before", offset_json(rt.clock_start)},
                       {"after", offset_json(rt.clock_end)}});
  }
  // Per thread in time order, a parent before the children that start with it.
  std::sort(slices.begin(), slices.end(), [](const Slice& a, const Slice& b) {
    if (a.pid != b.pid) return a.pid < b.pid;
    if (a.tid != b.tid) return a.tid < b.tid;
    if (a.ts != b.ts) return a.ts < b.ts;
    return a.dur > b.dur;
  });
  for (auto& s : slices) events.push_back(std::move(s.event));

  nlohmann::json other = {
      {"producer", std::string("shardroof ") + SHARDROOF_VERSION},
      {"command", info.command},
      {"ranks", n},
      {"traced", info.traced},
      {"clock",
       {{"source", "each rank's steady_clock (CLOCK_MONOTONIC); rank R's times shifted onto rank 0's clock by an "
                   "offset estimated with ping-pongs before and after measuring (the round with the smallest round "
                   "trip), interpolated linearly in between"},
        {"mpi_wtime_is_global", info.mpi_wtime_is_global},
        {"origin_ns", origin},
        {"ranks", std::move(offsets)}}},
      {"tracks", "pid = rank + 1; tid = rank + 1 (main thread: GEMM, and the collective when it runs there), "
                 "ranks + rank + 1 (communication thread)"},
      {"spans", total},
      {"dropped_spans", dropped},
      {"capacity_per_track", ranks.empty() ? 0 : ranks.front().capacity},
      {"settings", info.settings}};
  if (!info.device_note.empty()) other["device"] = info.device_note;
  return {{"traceEvents", std::move(events)}, {"otherData", std::move(other)}};
}

}  // namespace shardroof

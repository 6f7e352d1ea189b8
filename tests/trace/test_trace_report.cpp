// report/trace_report.h: the Chrome trace-event JSON written by --trace.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "report/trace_report.h"

namespace shardroof {
namespace {

using trace::RankTrace;
using trace::Region;
using trace::Span;

// Two ranks; rank 1's clock runs 5 s behind rank 0's, so its local times are
// 5 s smaller for the same moment.
std::vector<RankTrace> two_ranks() {
  std::vector<RankTrace> ranks(2);
  for (int r = 0; r < 2; ++r) {
    RankTrace& t = ranks[static_cast<std::size_t>(r)];
    t.rank = r;
    t.host = "h";
    t.capacity = 100;
    const double shift = r == 0 ? 0.0 : -5.0;
    t.clock_start = {r == 0 ? 0.0 : 5.0, r == 0 ? 0.0 : 2e-6, 10.0 + shift, 16};
    t.clock_end = {r == 0 ? 0.0 : 5.0, r == 0 ? 0.0 : 3e-6, 20.0 + shift, 16};
    t.regions.push_back({"coll", "all_reduce", "ring/mpi", 1 << 20, 0, 0, 1, 19, 20, 0});
    t.spans.push_back({"reduce-scatter step", "step", 0, 0, 12.000001 + shift, 12.000004 + shift,
                       {{"step", 1}, {"bytes_sent", 4096}}});
    t.spans.push_back({"iteration", "iteration", 0, 0, 12.0 + shift, 12.00001 + shift, {}});
    t.spans.push_back({"recv", "wait", 0, 0, 12.000002 + shift, 12.000003 + shift, {{"step", 1}, {"bytes", 4096}}});
  }
  ranks[1].spans.push_back({"recv", "wait", 1, 0, 7.000002, 7.000003, {{"step", 0}}});
  return ranks;
}

nlohmann::json written(const std::vector<RankTrace>& ranks) {
  TraceInfo info;
  info.command = "coll";
  info.traced = "the last timed iteration";
  info.settings = {{"iters", 20}};
  // Through text, as a viewer reads it.
  return nlohmann::json::parse(chrome_trace_json(ranks, info).dump());
}

TEST(TraceReport, CompleteEventsCarryTheFieldsViewersNeed) {
  const auto doc = written(two_ranks());
  ASSERT_TRUE(doc.at("traceEvents").is_array());
  int complete = 0;
  for (const auto& e : doc.at("traceEvents")) {
    ASSERT_TRUE(e.at("ph").is_string());
    ASSERT_TRUE(e.at("pid").is_number_integer());
    ASSERT_TRUE(e.at("tid").is_number_integer());
    ASSERT_TRUE(e.at("name").is_string());
    // pid 0 is Linux's idle task, which Perfetto treats specially.
    EXPECT_GE(e.at("pid").get<int>(), 1);
    if (e.at("ph") != "X") continue;
    ++complete;
    ASSERT_TRUE(e.at("ts").is_number());
    ASSERT_TRUE(e.at("dur").is_number());
    EXPECT_GE(e.at("ts").get<double>(), 0);
    EXPECT_GE(e.at("dur").get<double>(), 0);
    ASSERT_TRUE(e.at("args").is_object());
    ASSERT_TRUE(e.at("cat").is_string());
  }
  EXPECT_EQ(complete, 7);
}

TEST(TraceReport, TracksAreNamedPerRankAndThread) {
  const auto doc = written(two_ranks());
  std::map<int, std::string> process, thread;
  for (const auto& e : doc.at("traceEvents")) {
    if (e.at("ph") != "M") continue;
    if (e.at("name") == "process_name") process[e.at("pid").get<int>()] = e.at("args").at("name");
    if (e.at("name") == "thread_name") thread[e.at("tid").get<int>()] = e.at("args").at("name");
  }
  EXPECT_EQ(process, (std::map<int, std::string>{{1, "rank 0"}, {2, "rank 1"}}));
  // Rank 0 used its main thread only; rank 1 also a communication thread.
  // Thread ids are unique across processes (Perfetto keys threads by tid).
  EXPECT_EQ(thread, (std::map<int, std::string>{{1, "rank 0"}, {2, "rank 1"}, {4, "rank 1 comm"}}));
  for (const auto& e : doc.at("traceEvents")) {
    if (e.at("ph") == "X" && e.at("pid") == 2 && e.at("name") == "recv" && e.at("args").at("step") == 0) {
      EXPECT_EQ(e.at("tid"), 4);
    }
  }
}

TEST(TraceReport, NamesStepsAndIterations) {
  const auto doc = written(two_ranks());
  std::set<std::string> names;
  for (const auto& e : doc.at("traceEvents"))
    if (e.at("ph") == "X") names.insert(e.at("name").get<std::string>());
  EXPECT_TRUE(names.count("reduce-scatter step 1"));
  EXPECT_TRUE(names.count("all_reduce ring/mpi 1 MiB in place"));
  EXPECT_TRUE(names.count("recv"));
  for (const auto& e : doc.at("traceEvents")) {
    if (e.at("ph") != "X" || e.at("cat") != "iteration") continue;
    EXPECT_EQ(e.at("args").at("iteration"), 20);
    EXPECT_EQ(e.at("args").at("iterations"), 20);
    EXPECT_EQ(e.at("args").at("bytes"), 1 << 20);
    EXPECT_EQ(e.at("args").at("in_place"), true);
  }
}

TEST(TraceReport, NamesTheChunksOfAnOverlappedStep) {
  std::vector<RankTrace> ranks(1);
  ranks[0].regions.push_back({"T_overlap", "all_reduce", "ring/mpi", 4096, 512, 256, -1, 9, 10, 4});
  ranks[0].spans = {{"iteration", "iteration", 0, 0, 1.0, 2.0, {}},
                    {"gemm", "compute", 0, 0, 1.1, 1.2, {{"chunk", 2}, {"elements", 64}}},
                    {"all_reduce", "collective", 1, 0, 1.2, 1.3, {{"bytes", 256}, {"chunk", 2}}},
                    {"wait comm", "wait", 0, 0, 1.5, 1.9, {{"chunks", 4}}}};
  const auto doc = written(ranks);
  std::map<std::string, int> tid_of;
  for (const auto& e : doc.at("traceEvents"))
    if (e.at("ph") == "X") tid_of[e.at("name").get<std::string>()] = e.at("tid").get<int>();
  EXPECT_EQ(tid_of, (std::map<std::string, int>{
                        {"T_overlap D=512, 4 chunks", 1}, {"gemm chunk 2", 1}, {"all_reduce chunk 2", 2}, {"wait comm", 1}}));
  for (const auto& e : doc.at("traceEvents")) {
    if (e.at("ph") == "X" && e.at("cat") == "iteration") {
      EXPECT_EQ(e.at("args").at("chunks"), 4);
    }
  }
}

TEST(TraceReport, AlignsRanksOnRankZerosClockAndKeepsNesting) {
  const auto doc = written(two_ranks());
  // The same span on both ranks happened at the same moment.
  std::map<int, std::pair<double, double>> iteration, recv;
  for (const auto& e : doc.at("traceEvents")) {
    if (e.at("ph") != "X" || e.at("tid").get<int>() > 2) continue;
    const int pid = e.at("pid");
    const std::pair<double, double> span{e.at("ts").get<double>(), e.at("ts").get<double>() + e.at("dur").get<double>()};
    if (e.at("cat") == "iteration") iteration[pid] = span;
    if (e.at("name") == "recv") recv[pid] = span;
  }
  ASSERT_EQ(iteration.size(), 2u);
  EXPECT_NEAR(iteration[1].first, iteration[2].first, 1e-3);
  // Times start at the earliest span, in microseconds.
  EXPECT_NEAR(iteration[1].first, 0.0, 1e-3);
  EXPECT_NEAR(iteration[1].second, 10.0, 1e-3);
  for (int pid : {1, 2}) {
    // Whole nanoseconds: a viewer that rounds ts * 1000 gets exact bounds.
    EXPECT_DOUBLE_EQ(std::round(recv[pid].first * 1000) / 1000, recv[pid].first);
    EXPECT_GE(recv[pid].first, iteration[pid].first);
    EXPECT_LE(recv[pid].second, iteration[pid].second);
  }
  // The earlier of two spans starting together is the parent.
  double last_ts = -1;
  for (const auto& e : doc.at("traceEvents")) {
    if (e.at("ph") != "X" || e.at("pid") != 1) continue;
    EXPECT_GE(e.at("ts").get<double>(), last_ts);
    last_ts = e.at("ts").get<double>();
  }
}

TEST(TraceReport, InterpolatesADriftingOffset) {
  auto ranks = two_ranks();
  // Rank 1's offset grows from 5 s to 5.001 s between the two estimates;
  // halfway (local time 10 s) it is 5.0005 s.
  ranks[1].clock_end.offset_s = 5.001;
  ranks[1].spans = {{"iteration", "iteration", 0, 0, 10.0, 10.0 + 1e-6, {}}};
  ranks[0].spans = {{"iteration", "iteration", 0, 0, 15.0, 15.0 + 1e-6, {}}};
  const auto doc = written(ranks);
  std::map<int, double> ts;
  for (const auto& e : doc.at("traceEvents"))
    if (e.at("ph") == "X") ts[e.at("pid")] = e.at("ts");
  // Origin: the earlier one, rank 0 at 15 s; rank 1 at 10 + 5.0005 s.
  EXPECT_NEAR(ts[1], 0.0, 1e-3);
  EXPECT_NEAR(ts[2], 500.0, 1e-2);
}

TEST(TraceReport, MetadataSaysWhatWasTracedAndHowClocksWereAligned) {
  auto ranks = two_ranks();
  ranks[1].dropped = 2;
  const auto doc = written(ranks);
  const auto& other = doc.at("otherData");
  EXPECT_EQ(other.at("command"), "coll");
  EXPECT_EQ(other.at("ranks"), 2);
  EXPECT_EQ(other.at("traced"), "the last timed iteration");
  EXPECT_EQ(other.at("spans"), 7);
  EXPECT_EQ(other.at("dropped_spans"), 2);
  EXPECT_EQ(other.at("capacity_per_track"), 100);
  EXPECT_EQ(other.at("settings").at("iters"), 20);
  const auto& clock = other.at("clock");
  EXPECT_FALSE(clock.at("mpi_wtime_is_global").get<bool>());
  ASSERT_EQ(clock.at("ranks").size(), 2u);
  EXPECT_EQ(clock.at("ranks")[1].at("rank"), 1);
  EXPECT_EQ(clock.at("ranks")[1].at("pid"), 2);
  EXPECT_DOUBLE_EQ(clock.at("ranks")[1].at("before").at("offset_s").get<double>(), 5.0);
  EXPECT_DOUBLE_EQ(clock.at("ranks")[1].at("after").at("round_trip_s").get<double>(), 3e-6);
  EXPECT_EQ(clock.at("ranks")[1].at("dropped"), 2);
  EXPECT_FALSE(other.contains("device"));
}

TEST(TraceReport, EmptyTraceIsStillValid) {
  std::vector<RankTrace> ranks(1);
  const auto doc = written(ranks);
  EXPECT_EQ(doc.at("otherData").at("spans"), 0);
  for (const auto& e : doc.at("traceEvents")) EXPECT_EQ(e.at("ph"), "M");
}

}  // namespace
}  // namespace shardroof

// collectives/trace.h and trace/recorder.h: what a span records, when, and
// the bounds of the buffers; the serialized form a rank sends to rank 0.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "collectives/trace.h"
#include "trace/gather.h"
#include "trace/recorder.h"

namespace shardroof::trace {
namespace {

// A tracer that keeps what it is given.
class CountingTracer final : public coll::Tracer {
 public:
  void record(const coll::TraceEvent& e) noexcept override { events.push_back(e); }
  void arm(bool on) { set_recording(on); }
  std::vector<coll::TraceEvent> events;
};

TEST(TraceSpan, RecordsOnlyWhenTheTracerIsRecordingAtTheStart) {
  CountingTracer t;
  { coll::TraceSpan span(&t, "send", "comm", {{"bytes", 8}}); }
  EXPECT_TRUE(t.events.empty());
  {
    coll::TraceSpan span(&t, "send", "comm", {{"bytes", 8}});
    t.arm(true);  // armed after the span began: that span stays unrecorded
  }
  EXPECT_TRUE(t.events.empty());
  {
    coll::TraceSpan span(&t, "send", "comm", {{"bytes", 8}, {"to", 1}, {"a", 1}, {"b", 2}, {"c", 3}, {"dropped", 4}});
  }
  ASSERT_EQ(t.events.size(), 1u);
  const coll::TraceEvent& e = t.events[0];
  EXPECT_STREQ(e.name, "send");
  EXPECT_STREQ(e.category, "comm");
  EXPECT_LE(e.begin_s, e.end_s);
  // At most kMaxTraceArgs arguments are kept, in order.
  ASSERT_EQ(coll::kMaxTraceArgs, 5u);
  EXPECT_STREQ(e.args[0].key, "bytes");
  EXPECT_EQ(e.args[0].value, 8);
  EXPECT_STREQ(e.args[4].key, "c");
  { coll::TraceSpan span(nullptr, "send", "comm"); }
  EXPECT_EQ(t.events.size(), 1u);
}

TEST(Recorder, RecordsOnlyWhileArmed) {
  Recorder rec(16);
  rec.begin_region({"coll", "all_reduce", "ring/mpi", 1024, 0, 0, 0, 4, 5, 0});
  { coll::TraceSpan span(tracer_of(&rec), "send", "comm", {{"step", 0}}); }
  rec.set_recording(true);
  { coll::TraceSpan span(tracer_of(&rec), "recv", "wait", {{"step", 1}, {"bytes", 64}, {"from", 2}}); }
  rec.set_recording(false);
  { coll::TraceSpan span(tracer_of(&rec), "reduce", "compute"); }
  const RankTrace t = rec.collect(3);
  ASSERT_EQ(t.spans.size(), 1u);
  const Span& s = t.spans[0];
  EXPECT_EQ(t.rank, 3);
  EXPECT_EQ(s.name, "recv");
  EXPECT_EQ(s.category, "wait");
  EXPECT_EQ(s.track, 0);
  EXPECT_EQ(s.region, 0);
  EXPECT_LE(s.begin_s, s.end_s);
  ASSERT_EQ(s.args.size(), 3u);
  EXPECT_EQ(s.args[0], (std::pair<std::string, std::int64_t>{"step", 1}));
  EXPECT_EQ(s.args[1], (std::pair<std::string, std::int64_t>{"bytes", 64}));
  EXPECT_EQ(s.args[2], (std::pair<std::string, std::int64_t>{"from", 2}));
}

TEST(Recorder, ChildEndsBeforeParentAndSpansKeepTheirRegion) {
  Recorder rec(16);
  rec.set_recording(true);
  rec.begin_region({"T_math", "all_reduce", "ring/mpi", 64, 8, 4, -1, 0, 1, 0});
  {
    coll::TraceSpan parent(tracer_of(&rec), "iteration", "iteration");
    coll::TraceSpan child(tracer_of(&rec), "gemm", "compute", {{"m", 2}, {"n", 3}, {"k", 4}});
  }
  rec.begin_region({"T_comm", "all_reduce", "ring/mpi", 64, 8, 4, -1, 0, 1, 0});
  { coll::TraceSpan span(tracer_of(&rec), "all_reduce", "collective"); }
  const RankTrace t = rec.collect(0);
  ASSERT_EQ(t.spans.size(), 3u);
  // Spans are recorded as they end: the child first.
  EXPECT_EQ(t.spans[0].name, "gemm");
  EXPECT_EQ(t.spans[1].name, "iteration");
  EXPECT_GE(t.spans[0].begin_s, t.spans[1].begin_s);
  EXPECT_LE(t.spans[0].end_s, t.spans[1].end_s);
  EXPECT_EQ(t.spans[0].region, 0);
  EXPECT_EQ(t.spans[2].region, 1);
  EXPECT_EQ(t.regions.size(), 2u);
}

TEST(Recorder, BoundedBufferCountsWhatItDrops) {
  Recorder rec(4);
  rec.set_recording(true);
  for (int i = 0; i < 10; ++i) coll::TraceSpan span(tracer_of(&rec), "send", "comm");
  const RankTrace t = rec.collect(0);
  EXPECT_EQ(t.spans.size(), 4u);
  EXPECT_EQ(t.dropped, 6u);
  EXPECT_EQ(t.capacity, 4u);
}

TEST(Recorder, TracksAreSeparateAndFillFromTheirOwnThreads) {
  Recorder rec(64);
  rec.set_recording(true);
  std::thread comm([&] {
    for (int i = 0; i < 20; ++i) coll::TraceSpan span(tracer_of(&rec, Track::Comm), "recv", "wait");
  });
  for (int i = 0; i < 20; ++i) coll::TraceSpan span(tracer_of(&rec, Track::Main), "gemm", "compute");
  comm.join();
  const RankTrace t = rec.collect(1);
  ASSERT_EQ(t.spans.size(), 40u);
  for (const auto& s : t.spans) EXPECT_EQ(s.track, s.name == "gemm" ? 0 : 1) << s.name;
}

TEST(Gather, SerializationRoundTrips) {
  RankTrace t;
  t.rank = 2;
  t.host = "node7";
  t.clock_start = {0.25, 1e-5, 100.0, 16};
  t.clock_end = {0.2500001, 2e-5, 160.0, 16};
  t.dropped = 3;
  t.capacity = 1024;
  t.regions.push_back({"T_overlap", "reduce_scatter", "ring/mpi", 4096, 512, 171, -1, 9, 10, 4});
  t.spans.push_back({"reduce-scatter step", "step", 0, 0, 101.5, 101.75, {{"step", 1}, {"bytes_sent", 1 << 20}}});
  t.spans.push_back({"recv", "wait", 1, 0, 101.6, 101.7, {{"bytes", -1}}});
  const RankTrace u = deserialize(serialize(t));
  EXPECT_EQ(u.rank, 2);
  EXPECT_EQ(u.host, "node7");
  EXPECT_DOUBLE_EQ(u.clock_start.offset_s, 0.25);
  EXPECT_DOUBLE_EQ(u.clock_end.offset_s, 0.2500001);
  EXPECT_DOUBLE_EQ(u.clock_end.local_time_s, 160.0);
  EXPECT_EQ(u.clock_end.rounds, 16);
  EXPECT_EQ(u.dropped, 3u);
  EXPECT_EQ(u.capacity, 1024u);
  ASSERT_EQ(u.regions.size(), 1u);
  EXPECT_EQ(u.regions[0].measurement, "T_overlap");
  EXPECT_EQ(u.regions[0].collective, "reduce_scatter");
  EXPECT_EQ(u.regions[0].D, 512u);
  EXPECT_EQ(u.regions[0].shard, 171u);
  EXPECT_EQ(u.regions[0].in_place, -1);
  EXPECT_EQ(u.regions[0].iteration, 9);
  EXPECT_EQ(u.regions[0].chunks, 4);
  ASSERT_EQ(u.spans.size(), 2u);
  EXPECT_EQ(u.spans[0].name, "reduce-scatter step");
  EXPECT_EQ(u.spans[0].category, "step");
  EXPECT_DOUBLE_EQ(u.spans[0].begin_s, 101.5);
  EXPECT_EQ(u.spans[0].args, t.spans[0].args);
  EXPECT_EQ(u.spans[1].track, 1);
  EXPECT_EQ(u.spans[1].args, t.spans[1].args);
}

}  // namespace
}  // namespace shardroof::trace

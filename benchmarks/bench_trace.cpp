// What one span costs (collectives/trace.h): with no tracer (the default of
// every collective), with a tracer that is attached but not recording (the
// iterations `--trace` leaves out), and recording into the bounded buffer
// of `--trace` (the traced iteration). A ring step records a handful.
//
//   build-x/benchmarks/bench_trace
#include <benchmark/benchmark.h>

#include <memory>

#include "collectives/trace.h"
#include "trace/recorder.h"

namespace {

using shardroof::coll::TraceSpan;
using shardroof::trace::Recorder;

void BM_SpanNoTracer(benchmark::State& state) {
  shardroof::coll::Tracer* tracer = nullptr;
  benchmark::DoNotOptimize(tracer);
  for (auto _ : state) {
    TraceSpan span(tracer, "recv", "wait", {{"step", 1}, {"segment", 2}, {"bytes", 4096}, {"from", 3}});
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_SpanNoTracer);

void BM_SpanNotRecording(benchmark::State& state) {
  Recorder recorder(16);
  shardroof::coll::Tracer* tracer = &recorder.tracer(shardroof::trace::Track::Main);
  benchmark::DoNotOptimize(tracer);
  for (auto _ : state) {
    TraceSpan span(tracer, "recv", "wait", {{"step", 1}, {"segment", 2}, {"bytes", 4096}, {"from", 3}});
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_SpanNotRecording);

void BM_SpanRecording(benchmark::State& state) {
  // Refilled in batches outside the timed loop, so every span lands in the
  // buffer (a full buffer only counts drops, which is cheaper).
  constexpr std::size_t kBatch = 1 << 16;
  auto recorder = std::make_unique<Recorder>(kBatch);
  recorder->set_recording(true);
  std::size_t in_batch = 0;
  for (auto _ : state) {
    if (in_batch == kBatch) {
      state.PauseTiming();
      recorder = std::make_unique<Recorder>(kBatch);
      recorder->set_recording(true);
      in_batch = 0;
      state.ResumeTiming();
    }
    TraceSpan span(&recorder->tracer(shardroof::trace::Track::Main), "recv", "wait",
                   {{"step", 1}, {"segment", 2}, {"bytes", 4096}, {"from", 3}});
    ++in_batch;
  }
}
BENCHMARK(BM_SpanRecording);

}  // namespace

BENCHMARK_MAIN();

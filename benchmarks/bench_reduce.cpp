// The host reduction kernel (collectives' host_reduce, dst = a op b) for
// every datatype, against memcpy of the same output size. Bytes/s count
// what the kernel moves: two inputs read and one output written (memcpy:
// one read, one write). Sizes span in-cache segments to DRAM-sized blocks.
//
//   build-x/benchmarks/bench_reduce --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include "collectives/check_pattern.h"
#include "collectives/memory.h"
#include "collectives/types.h"

namespace {

using shardroof::coll::DataType;
using shardroof::coll::ReduceOp;

void BM_Memcpy(benchmark::State& state) {
  const auto bytes = static_cast<std::size_t>(state.range(0));
  std::vector<std::byte> src(bytes, std::byte{1}), dst(bytes);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), bytes);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(2 * bytes));
  state.counters["out_bytes"] = static_cast<double>(bytes);
}

template <DataType T>
void BM_ReduceSum(benchmark::State& state) {
  const auto bytes = static_cast<std::size_t>(state.range(0));
  const std::size_t n = bytes / shardroof::coll::size_of(T);
  std::vector<std::byte> a(bytes), b(bytes), dst(bytes);
  shardroof::coll::fill_pattern(a.data(), n, 0, 0, 2, T, ReduceOp::Sum);
  shardroof::coll::fill_pattern(b.data(), n, 0, 1, 2, T, ReduceOp::Sum);
  for (auto _ : state) {
    shardroof::coll::host_reduce(dst.data(), a.data(), b.data(), n, T, ReduceOp::Sum);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(3 * bytes));
  state.counters["out_bytes"] = static_cast<double>(bytes);
}

// 64 KiB (L2-resident, a pipeline segment) to 64 MiB (DRAM).
void sizes(benchmark::internal::Benchmark* b) {
  for (long bytes : {64L << 10, 1L << 20, 64L << 20}) b->Arg(bytes);
}

BENCHMARK(BM_Memcpy)->Apply(sizes);
BENCHMARK(BM_ReduceSum<DataType::Float>)->Name("BM_ReduceSum/float")->Apply(sizes);
BENCHMARK(BM_ReduceSum<DataType::Double>)->Name("BM_ReduceSum/double")->Apply(sizes);
BENCHMARK(BM_ReduceSum<DataType::Int32>)->Name("BM_ReduceSum/int32")->Apply(sizes);
BENCHMARK(BM_ReduceSum<DataType::BFloat16>)->Name("BM_ReduceSum/bfloat16")->Apply(sizes);
BENCHMARK(BM_ReduceSum<DataType::Half>)->Name("BM_ReduceSum/half")->Apply(sizes);

}  // namespace

BENCHMARK_MAIN();

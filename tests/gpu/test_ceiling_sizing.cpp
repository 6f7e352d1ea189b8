// How the device ceilings are sized and timed, played on the CPU backend so
// it runs everywhere: C_peak's GEMM grows until one call is long enough and
// stops at the memory budget; the memory kernels are made larger than the
// backend's cache; the memory roof and the reduction rate are timed with
// the backend's own clock (CUDA events on a GPU).
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "../mpi_test_util.h"
#include "cpu/cpu_backend.h"
#include "ceilings/ceilings.h"

namespace shardroof::sweep {
namespace {

using coll::DataType;

double operand_bytes(const GemmShape& s, std::size_t es) {
  return (static_cast<double>(s.m) * s.k + static_cast<double>(s.k) * s.n + static_cast<double>(s.m) * s.n) * es;
}

TEST(GrownGemmShape, GrowsTheVolumeByTheMissingTimeWithinBounds) {
  const GemmShape start{2048, 2048, 1024};
  // 10 us against 20 ms: the volume may grow at most 64x in one round (each
  // dimension 4x), in whole multiples of 128.
  const GemmShape big = grown_gemm_shape(start, 10e-6, 0.020, 2, std::size_t{1} << 40);
  EXPECT_EQ(big, (GemmShape{8192, 8192, 4096}));
  // 5 ms against 20 ms: 1.2 * 4 = 4.8x the volume, cube root 1.687 per dimension.
  const GemmShape mid = grown_gemm_shape(start, 0.005, 0.020, 2, std::size_t{1} << 40);
  EXPECT_EQ(mid.m % 128, 0u);
  EXPECT_EQ(mid.k % 128, 0u);
  EXPECT_NEAR(static_cast<double>(mid.m) / 2048, std::cbrt(4.8), 128.0 / 2048);
  EXPECT_NEAR(static_cast<double>(mid.k) / 1024, std::cbrt(4.8), 128.0 / 1024);
  // Nearly long enough: still at least twice the volume.
  const GemmShape near = grown_gemm_shape(start, 0.019, 0.020, 2, std::size_t{1} << 40);
  EXPECT_GE(static_cast<double>(near.m) * near.n * near.k, 2.0 * 2048 * 2048 * 1024);
}

TEST(GrownGemmShape, StaysWithinTheMemoryBudget) {
  const GemmShape start{1024, 1024, 1024};
  const std::size_t budget = 64u << 20;  // 64 MiB for A, B and C
  const GemmShape s = grown_gemm_shape(start, 1e-6, 0.020, 4, budget);
  EXPECT_LE(operand_bytes(s, 4), static_cast<double>(budget));
  EXPECT_GT(static_cast<double>(s.m) * s.n * s.k, 1024.0 * 1024 * 1024);
  // No room for anything larger: the shape stays.
  EXPECT_EQ(grown_gemm_shape(start, 1e-6, 0.020, 4, 12u << 20), start);
  // Small starting shapes grow too (rounded up to the alignment).
  const GemmShape tiny = grown_gemm_shape({16, 16, 16}, 1e-6, 0.020, 4, budget);
  EXPECT_EQ(tiny, (GemmShape{128, 128, 128}));
}

// The CPU backend with a chosen cache size and free memory, counting the
// clocks it hands out and their start()s.
class ProbeBackend final : public ComputeBackend {
 public:
  ProbeBackend(std::size_t cache, std::size_t free) : inner_(make_cpu_backend(1)), cache_(cache), free_(free) {}
  std::string describe() const override { return inner_->describe(); }
  coll::MemoryOps& memory() override { return inner_->memory(); }
  void gemm(std::size_t m, std::size_t n, std::size_t k, const void* A, const void* B, void* C,
            DataType type) override {
    inner_->gemm(m, n, k, A, B, C, type);
  }
  std::string arithmetic(DataType type) const override { return inner_->arithmetic(type); }
  bool supports(DataType type) const override { return inner_->supports(type); }
  std::unique_ptr<Clock> make_clock() override { return std::make_unique<CountingClock>(starts_); }
  void synchronize() override { inner_->synchronize(); }
  std::unique_ptr<PreparedGemmChunks> prepare_gemm_chunks(std::size_t m, std::size_t n, std::size_t k,
                                                          const void* A, const void* B,
                                                          std::vector<std::vector<GemmBlock>> chunks,
                                                          DataType type) override {
    return inner_->prepare_gemm_chunks(m, n, k, A, B, std::move(chunks), type);
  }
  std::size_t cache_bytes() const override { return cache_; }
  std::size_t free_memory_bytes() const override { return free_; }
  int clock_starts() const { return starts_; }

 private:
  class CountingClock final : public Clock {
   public:
    explicit CountingClock(int& starts) : starts_(starts) {}
    void start() override {
      ++starts_;
      host_.start();
    }
    double stop() override { return host_.stop(); }

   private:
    int& starts_;
    HostClock host_;
  };
  std::unique_ptr<ComputeBackend> inner_;
  std::size_t cache_, free_;
  int starts_ = 0;
};

TEST(PeakGemmRate, GrowsUntilOneCallIsLongEnough) {
  ProbeBackend backend(0, std::size_t{1} << 30);
  const double target = 0.002;
  const GemmRate r = measure_peak_gemm_rate(backend, MPI_COMM_WORLD, 16, 16, 16, DataType::Float, {1, 3}, target);
  // The loop ends on the first shape whose median call took the target (the
  // median is the max over ranks, the same on every rank), or at the budget.
  const GemmShape shape{r.m, r.n, r.k};
  const bool long_enough = r.time.median >= target;
  const bool at_budget = grown_gemm_shape(shape, r.time.median, target, 4, (std::size_t{1} << 30) / 4) == shape;
  EXPECT_ALL_RANKS(long_enough || at_budget, "median " + std::to_string(r.time.median) + " s");
  EXPECT_GT(r.m, 16u);
  EXPECT_EQ(r.time.samples.size(), 3u);  // the accepted shape got the full timing plan
  EXPECT_NEAR(r.flops_per_s, 2.0 * r.m * r.n * r.k / r.time.median, 1e-6 * r.flops_per_s);
}

// On one rank (the budget is a quarter of the free memory per rank of the node).
TEST(PeakGemmRate, StopsAtTheMemoryBudget) {
  // 2 MiB free: 512 KiB for the operands.
  ProbeBackend backend(0, 2u << 20);
  const GemmRate r = measure_peak_gemm_rate(backend, MPI_COMM_WORLD, 64, 64, 64, DataType::Float, {1, 3}, 10.0);
  EXPECT_LE(operand_bytes({r.m, r.n, r.k}, 4), static_cast<double>(512u << 10));
  EXPECT_GE(r.m, 64u);
  EXPECT_LT(r.time.median, 10.0);
}

TEST(MemoryBandwidth, ArraysOutgrowTheCacheAndTheBackendClockTimesThem) {
  const std::size_t cache = 1u << 20;
  ProbeBackend backend(cache, 0);
  const TimingPlan plan{1, 2};
  const MemoryBandwidth m = measure_memory_bandwidth(backend, MPI_COMM_WORLD, 1000, plan);
  EXPECT_EQ(m.elements, kCacheMultiple * cache / sizeof(double));
  EXPECT_EQ(backend.clock_starts(), 2 * plan.iters);  // copy and triad, timed iterations only
  EXPECT_GT(m.copy_bytes_per_s, 0);
  EXPECT_GT(m.triad_bytes_per_s, 0);
  // A backend that knows no cache keeps the size asked for.
  ProbeBackend plain(0, 0);
  EXPECT_EQ(measure_memory_bandwidth(plain, MPI_COMM_WORLD, 1000, plan).elements, 1000u);
}

TEST(ReduceRate, TimedWithTheBackendClock) {
  ProbeBackend backend(0, 0);
  const TimingPlan plan{2, 3};
  const ReduceRate r = measure_reduce_rate(backend, MPI_COMM_WORLD, DataType::BFloat16, 4096, plan);
  EXPECT_EQ(backend.clock_starts(), plan.iters);
  EXPECT_EQ(r.count, 4096u);
  EXPECT_GT(r.s_per_elem, 0);
}

}  // namespace
}  // namespace shardroof::sweep

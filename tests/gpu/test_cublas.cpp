// cuBLAS GEMMs against a host reference, row-major as ComputeBackend
// documents, for every supported type; k = 0 zeroes C; the event clock
// measures queued work.
#include <cmath>
#include <random>
#include <vector>

#include "collectives/check_pattern.h"
#include "cuda/cuda_api.h"
#include "gpu_test_util.h"

namespace shardroof {
namespace {

using coll::DataType;
using testing::GpuTest;

class CublasTest : public GpuTest {};

// Small integers: every product and sum is exact in every type (also TF32,
// bfloat16 with float accumulation), so the comparison is exact.
std::vector<std::byte> small_ints(std::size_t n, DataType type, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> dist(-4, 4);
  std::vector<std::byte> out(n * coll::size_of(type) + 1);
  for (std::size_t i = 0; i < n; ++i) coll::store_from_double(out.data(), i, dist(gen), type);
  return out;
}

void check_gemm(ComputeBackend& backend, std::size_t m, std::size_t n, std::size_t k, DataType type) {
  auto& mem = backend.memory();
  const std::size_t es = coll::size_of(type);
  const auto A = small_ints(m * k, type, 3);
  const auto B = small_ints(k * n, type, 4);
  auto dA = mem.allocate(m * k * es);
  auto dB = mem.allocate(k * n * es);
  auto dC = mem.allocate(m * n * es);
  mem.copy(dA->data(), A.data(), m * k * es);
  mem.copy(dB->data(), B.data(), k * n * es);
  // C starts as garbage: the GEMM must overwrite it.
  const auto junk = small_ints(m * n, type, 5);
  mem.copy(dC->data(), junk.data(), m * n * es);
  backend.gemm(m, n, k, dA->data(), dB->data(), dC->data(), type);
  backend.synchronize();
  std::vector<std::byte> C(m * n * es + 1);
  mem.copy(C.data(), dC->data(), m * n * es);
  mem.synchronize();
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      double want = 0;
      for (std::size_t p = 0; p < k; ++p)
        want += coll::load_as_double(A.data(), i * k + p, type) * coll::load_as_double(B.data(), p * n + j, type);
      if (coll::load_as_double(C.data(), i * n + j, type) != want) ++wrong;
    }
  }
  EXPECT_EQ(wrong, 0u) << coll::to_string(type) << " " << m << "x" << n << "x" << k;
}

TEST_F(CublasTest, RowMajorProductMatchesHostReference) {
  for (const bool tf32 : {false, true}) {
    auto backend = make_cuda_compute_backend(MPI_COMM_WORLD, {tf32});
    for (const DataType type : {DataType::Float, DataType::Double, DataType::BFloat16, DataType::Half}) {
      ASSERT_TRUE(backend->supports(type));
      check_gemm(*backend, 37, 53, 29, type);  // odd, non-square shapes catch transposes
      check_gemm(*backend, 64, 8, 256, type);
      check_gemm(*backend, 5, 7, 0, type);  // k = 0: C becomes zeros
    }
    EXPECT_FALSE(backend->supports(DataType::Int32));
    EXPECT_NE(backend->arithmetic(DataType::Float).find(tf32 ? "TF32" : "no TF32"), std::string::npos);
  }
}

TEST_F(CublasTest, EventClockTimesQueuedWork) {
  auto backend = make_cuda_compute_backend(MPI_COMM_WORLD, {});
  auto& mem = backend->memory();
  const std::size_t n = 2048;
  auto a = mem.allocate(n * n * 4), b = mem.allocate(n * n * 4), c = mem.allocate(n * n * 4);
  const auto host = small_ints(n * n, DataType::Float, 6);
  mem.copy(a->data(), host.data(), n * n * 4);
  mem.copy(b->data(), host.data(), n * n * 4);
  backend->gemm(n, n, n, a->data(), b->data(), c->data(), DataType::Float);  // warm-up
  auto clock = backend->make_clock();
  clock->start();
  backend->gemm(n, n, n, a->data(), b->data(), c->data(), DataType::Float);
  const double one = clock->stop();
  clock->start();
  for (int i = 0; i < 4; ++i) backend->gemm(n, n, n, a->data(), b->data(), c->data(), DataType::Float);
  const double four = clock->stop();
  EXPECT_GT(one, 0.0);
  // Ratios inside one run only: four GEMMs take clearly longer than one.
  EXPECT_GT(four, 2.0 * one);
}

}  // namespace
}  // namespace shardroof

// cuBLAS GEMMs against a host reference, row-major as ComputeBackend
// documents, for every supported type; k = 0 zeroes C; the event clock
// measures queued work.
#include <cmath>
#include <random>
#include <vector>

#include "collectives/check_pattern.h"
#include "cpu/cpu_backend.h"
#include "cuda/cuda_api.h"
#include "gpu_test_util.h"

namespace shardroof {
namespace {

using coll::DataType;
using testing::GpuTest;

class CublasTest : public GpuTest {};

// Small integers: every product and partial sum is exact in the float (or
// double) accumulator, also for TF32 inputs, so the accumulated value is
// the exact product. The output is rounded once to the output type, and a
// 16-bit type cannot hold every integer of a long sum (bfloat16 holds
// integers exactly up to 256, half up to 2048), so the reference is the
// exact value rounded to the type as cuBLAS rounds it (to nearest even).
std::vector<std::byte> small_ints(std::size_t n, DataType type, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> dist(-4, 4);
  std::vector<std::byte> out(n * coll::size_of(type) + 1);
  for (std::size_t i = 0; i < n; ++i) coll::store_from_double(out.data(), i, dist(gen), type);
  return out;
}

// `value` as the output type stores it.
double rounded_to(DataType type, double value) {
  std::byte buf[sizeof(double)] = {};
  coll::store_from_double(buf, 0, value, type);
  return coll::load_as_double(buf, 0, type);
}

// Runs the GEMM and compares; returns how many results the type could not
// hold exactly (compared after rounding).
std::size_t check_gemm(ComputeBackend& backend, std::size_t m, std::size_t n, std::size_t k, DataType type) {
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
  std::size_t wrong = 0, rounded = 0;
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      double want = 0;
      for (std::size_t p = 0; p < k; ++p)
        want += coll::load_as_double(A.data(), i * k + p, type) * coll::load_as_double(B.data(), p * n + j, type);
      const double stored = rounded_to(type, want);
      if (stored != want) ++rounded;
      if (coll::load_as_double(C.data(), i * n + j, type) != stored) ++wrong;
    }
  }
  EXPECT_EQ(wrong, 0u) << coll::to_string(type) << " " << m << "x" << n << "x" << k << " (" << rounded
                       << " results not representable in the type, compared after rounding)";
  return rounded;
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

// The reference itself, on the CPU backend, which also multiplies bfloat16
// in float and rounds C once: runs without a GPU. The 64x8x256 product has
// sums beyond 256 that bfloat16 must round, which an exact comparison
// would have counted as wrong.
TEST(CublasReferenceTest, RoundedReferenceMatchesTheCpuBackend) {
  auto backend = make_cpu_backend(1);
  for (const DataType type : {DataType::Float, DataType::Double, DataType::BFloat16}) {
    check_gemm(*backend, 37, 53, 29, type);
    const std::size_t rounded = check_gemm(*backend, 64, 8, 256, type);
    if (type == DataType::BFloat16) {
      EXPECT_GT(rounded, 0u) << "the bfloat16 case no longer needs rounding: it tests less than it says";
    } else {
      EXPECT_EQ(rounded, 0u) << coll::to_string(type);
    }
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

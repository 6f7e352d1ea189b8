// The device reductions agree bit for bit with host_reduce / host_divide, on
// the exact-value check pattern and on arbitrary values (rounding of
// bfloat16 and half), including a destination that aliases an input.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "collectives/check_pattern.h"
#include "collectives/cuda/cuda_handles.h"
#include "collectives/cuda/cuda_memory.h"
#include "collectives/half.h"
#include "collectives/memory.h"
#include "gpu_test_util.h"
#include "../collective_test_values.h"

namespace shardroof::coll {
namespace {

using shardroof::testing::GpuTest;
using shardroof::testing::to_host;

constexpr const auto& kTypes = shardroof::testing::kAllTypes;
constexpr const auto& kOps = shardroof::testing::kAllOps;

// Values with fractions and mixed signs so that 16-bit rounding matters.
std::vector<std::byte> random_values(std::size_t n, DataType type, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-300.0, 300.0);
  std::vector<std::byte> out(n * size_of(type));
  for (std::size_t i = 0; i < n; ++i) {
    double v = dist(gen);
    if (type == DataType::Int32) v = std::floor(v);
    store_from_double(out.data(), i, v, type);
  }
  return out;
}

class DeviceReduceTest : public GpuTest {
 protected:
  void check(const std::vector<std::byte>& a, const std::vector<std::byte>& b, std::size_t n, DataType type,
             ReduceOp op, bool aliased) {
    CudaStream stream;
    CudaMemoryOps mem(stream.get());
    const std::size_t bytes = n * size_of(type);
    auto da = mem.allocate(bytes);
    auto db = mem.allocate(bytes);
    auto dc = mem.allocate(bytes);
    mem.copy(da->data(), a.data(), bytes);
    mem.copy(db->data(), b.data(), bytes);
    void* dst = aliased ? da->data() : dc->data();
    mem.reduce(dst, da->data(), db->data(), n, type, op);
    if (op == ReduceOp::Avg) mem.divide(dst, n, type, 3);
    mem.synchronize();
    const auto got = to_host(dst, bytes);

    std::vector<std::byte> want(bytes + 1);
    host_reduce(want.data(), a.data(), b.data(), n, type, op);
    if (op == ReduceOp::Avg) host_divide(want.data(), n, type, 3);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < bytes; ++i) wrong += got[i] != want[i] ? 1 : 0;
    EXPECT_EQ(wrong, 0u) << to_string(type) << " " << to_string(op) << (aliased ? " (dst aliases a)" : "");
  }
};

TEST_F(DeviceReduceTest, MatchesHostOnCheckPattern) {
  // Not a multiple of the block size, and large enough for several blocks per thread.
  const std::size_t n = 3'000'017;
  for (const DataType type : kTypes) {
    for (const ReduceOp op : kOps) {
      std::vector<std::byte> a(n * size_of(type)), b(n * size_of(type));
      fill_pattern(a.data(), n, 0, 0, 2, type, op);
      fill_pattern(b.data(), n, 0, 1, 2, type, op);
      check(a, b, n, type, op, false);
    }
  }
}

TEST_F(DeviceReduceTest, MatchesHostOnArbitraryValuesAndAliasing) {
  const std::size_t n = 100'003;
  for (const DataType type : kTypes) {
    for (const ReduceOp op : kOps) {
      if (op == ReduceOp::Prod && type == DataType::Int32) continue;  // overflow is UB on the host
      const auto a = random_values(n, type, 1);
      const auto b = random_values(n, type, 2);
      check(a, b, n, type, op, false);
      check(a, b, n, type, op, true);
    }
  }
}

TEST_F(DeviceReduceTest, ZeroCountIsANoOp) {
  CudaStream stream;
  CudaMemoryOps mem(stream.get());
  auto d = mem.allocate(0);
  EXPECT_NE(d->data(), nullptr);
  mem.reduce(d->data(), d->data(), d->data(), 0, DataType::Float, ReduceOp::Sum);
  mem.divide(d->data(), 0, DataType::Half, 2);
  mem.synchronize();
}

}  // namespace
}  // namespace shardroof::coll

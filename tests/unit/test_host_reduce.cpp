// host_reduce / host_divide: every datatype x op, out of place and with dst
// aliasing either input (the ring reduces into its own accumulator).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "collectives/check_pattern.h"
#include "collectives/half.h"
#include "collectives/memory.h"
#include "collectives/types.h"
#include "../collective_test_values.h"

namespace shardroof::coll {
namespace {

constexpr const auto& kTypes = shardroof::testing::kAllTypes;
constexpr const auto& kOps = shardroof::testing::kAllOps;

// Inputs: signed, fractional for the float types, including values whose
// sum needs rounding in 16-bit types.
double input_a(std::size_t i, DataType t) {
  const double v = static_cast<double>(static_cast<int>(i % 23) - 11);
  return t == DataType::Int32 ? v : v * 0.375 + (i % 3 == 0 ? 100.0 : 0.0);
}
double input_b(std::size_t i, DataType t) {
  const double v = static_cast<double>(static_cast<int>((i * 7) % 19) - 9);
  return t == DataType::Int32 ? v * 3 : v * 1.25 + (i % 5 == 0 ? 0.5 : 0.0);
}

// The result the reduction must produce for one element: computed in the
// element's arithmetic type (float for the 16-bit types), rounded once.
double reference(double a, double b, DataType t, ReduceOp op) {
  const auto apply = [op](auto x, auto y) {
    switch (op) {
      case ReduceOp::Sum:
      case ReduceOp::Avg: return x + y;
      case ReduceOp::Prod: return x * y;
      case ReduceOp::Max: return std::max(x, y);
      case ReduceOp::Min: return std::min(x, y);
    }
    return x;
  };
  switch (t) {
    case DataType::Double: return apply(a, b);
    case DataType::Float: return apply(static_cast<float>(a), static_cast<float>(b));
    case DataType::Int32: return apply(static_cast<std::int32_t>(a), static_cast<std::int32_t>(b));
    case DataType::BFloat16: {
      const float r = apply(static_cast<float>(a), static_cast<float>(b));
      return bf16_to_float(float_to_bf16(r));
    }
    case DataType::Half: {
      const float r = apply(static_cast<float>(a), static_cast<float>(b));
      return half_to_float(float_to_half(r));
    }
  }
  return 0;
}

std::vector<std::byte> make_buffer(std::size_t n, DataType t, double (*gen)(std::size_t, DataType)) {
  std::vector<std::byte> buf(n * size_of(t) + 1);
  for (std::size_t i = 0; i < n; ++i) store_from_double(buf.data(), i, gen(i, t), t);
  return buf;
}

enum class Alias { None, DstIsA, DstIsB };

class HostReduce : public ::testing::TestWithParam<std::tuple<DataType, ReduceOp>> {};

TEST_P(HostReduce, MatchesReferenceWithAndWithoutAliasing) {
  const auto [type, op] = GetParam();
  // Odd length so vectorised loops also run their remainder.
  constexpr std::size_t n = 1037;
  for (const Alias alias : {Alias::None, Alias::DstIsA, Alias::DstIsB}) {
    SCOPED_TRACE(alias == Alias::None ? "dst separate" : alias == Alias::DstIsA ? "dst == a" : "dst == b");
    auto a = make_buffer(n, type, input_a);
    auto b = make_buffer(n, type, input_b);
    std::vector<double> want(n);
    for (std::size_t i = 0; i < n; ++i)
      want[i] = reference(load_as_double(a.data(), i, type), load_as_double(b.data(), i, type), type, op);
    std::vector<std::byte> separate(n * size_of(type) + 1);
    void* dst = alias == Alias::None ? separate.data() : alias == Alias::DstIsA ? a.data() : b.data();
    host_reduce(dst, a.data(), b.data(), n, type, op);
    int wrong = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double got = load_as_double(dst, i, type);
      if (got != want[i] && wrong++ < 5) ADD_FAILURE() << "element " << i << ": got " << got << ", want " << want[i];
    }
    EXPECT_EQ(wrong, 0);
  }
}

TEST_P(HostReduce, ZeroCountTouchesNothing) {
  const auto [type, op] = GetParam();
  std::vector<std::byte> dst(16, std::byte{0x5a});
  host_reduce(dst.data(), nullptr, nullptr, 0, type, op);
  EXPECT_TRUE(std::all_of(dst.begin(), dst.end(), [](std::byte v) { return v == std::byte{0x5a}; }));
}

INSTANTIATE_TEST_SUITE_P(EveryTypeAndOp, HostReduce, ::testing::Combine(::testing::ValuesIn(kTypes), ::testing::ValuesIn(kOps)),
                         [](const auto& param_info) {
                           return std::string(to_string(std::get<0>(param_info.param))) + "_" +
                                  std::string(to_string(std::get<1>(param_info.param)));
                         });

// 16-bit types are reduced in float and rounded once per call, to nearest
// even: known cases where a second rounding or truncation would differ.
TEST(HostReduceRounding, SixteenBitTypesRoundOnceToNearestEven) {
  const auto bf = [](float v) { return float_to_bf16(v); };
  std::uint16_t a[4] = {bf(1.0f), bf(1.0f + 0x1p-7f), bf(256.0f), bf(-1.0f)};
  std::uint16_t b[4] = {bf(0x1p-8f), bf(0x1p-8f), bf(1.0f), bf(-0x1p-8f)};
  std::uint16_t d[4];
  host_reduce(d, a, b, 4, DataType::BFloat16, ReduceOp::Sum);
  EXPECT_EQ(bf16_to_float(d[0]), 1.0f);               // tie, 1.0 is even
  EXPECT_EQ(bf16_to_float(d[1]), 1.0f + 0x1p-6f);     // tie, rounds up to even
  EXPECT_EQ(bf16_to_float(d[2]), 256.0f);             // 257 ties to 256
  EXPECT_EQ(bf16_to_float(d[3]), -1.0f);

  std::uint16_t ha[2] = {float_to_half(2048.0f), float_to_half(65504.0f)};
  std::uint16_t hb[2] = {float_to_half(3.0f), float_to_half(32.0f)};
  std::uint16_t hd[2];
  host_reduce(hd, ha, hb, 2, DataType::Half, ReduceOp::Sum);
  EXPECT_EQ(half_to_float(hd[0]), 2052.0f);            // 2051 ties to the even 2052
  EXPECT_TRUE(std::isinf(half_to_float(hd[1])));       // 65536 overflows to inf
}

TEST(HostReduceRounding, Int32SumAndMinAreExact) {
  std::int32_t a[3] = {-7, 2147483000, 5};
  std::int32_t b[3] = {3, 600, -5};
  std::int32_t d[3];
  host_reduce(d, a, b, 3, DataType::Int32, ReduceOp::Sum);
  EXPECT_EQ(d[0], -4);
  EXPECT_EQ(d[1], 2147483600);
  EXPECT_EQ(d[2], 0);
  host_reduce(d, a, b, 3, DataType::Int32, ReduceOp::Min);
  EXPECT_EQ(d[0], -7);
  EXPECT_EQ(d[2], -5);
}

TEST(HostDivide, EveryTypeDividesInItsOwnPrecision) {
  for (const DataType type : kTypes) {
    SCOPED_TRACE(std::string(to_string(type)));
    constexpr std::size_t n = 9;
    std::vector<std::byte> buf(n * size_of(type));
    for (std::size_t i = 0; i < n; ++i) store_from_double(buf.data(), i, static_cast<double>(i * 3) - 7, type);
    host_divide(buf.data(), n, type, 3);
    for (std::size_t i = 0; i < n; ++i) {
      const double x = static_cast<double>(i * 3) - 7;
      double want = 0;
      switch (type) {
        case DataType::Int32: want = static_cast<double>(static_cast<std::int32_t>(x) / 3); break;
        case DataType::Double: want = x / 3; break;
        case DataType::Float: want = static_cast<float>(x) / 3.0f; break;
        case DataType::BFloat16: want = bf16_to_float(float_to_bf16(static_cast<float>(x) / 3.0f)); break;
        case DataType::Half: want = half_to_float(float_to_half(static_cast<float>(x) / 3.0f)); break;
      }
      EXPECT_EQ(load_as_double(buf.data(), i, type), want) << "element " << i;
    }
  }
}

TEST(HostMemoryOps, ReduceAndCopyGoThroughTheHostKernels) {
  HostMemoryOps mem;
  auto alloc = mem.allocate(4 * sizeof(float));
  ASSERT_NE(alloc->data(), nullptr);
  EXPECT_EQ(alloc->bytes(), 4 * sizeof(float));
  const float a[4] = {1, 2, 3, 4};
  const float b[4] = {10, -20, 30, -40};
  mem.copy(alloc->data(), a, sizeof a);
  mem.reduce(alloc->data(), alloc->data(), b, 4, DataType::Float, ReduceOp::Max);
  const auto* d = static_cast<const float*>(alloc->data());
  EXPECT_EQ(d[0], 10);
  EXPECT_EQ(d[1], 2);
  EXPECT_EQ(d[2], 30);
  EXPECT_EQ(d[3], 4);
  // A zero-byte allocation is still a valid pointer.
  auto empty = mem.allocate(0);
  EXPECT_NE(empty->data(), nullptr);
  EXPECT_EQ(empty->bytes(), 0u);
}

}  // namespace
}  // namespace shardroof::coll

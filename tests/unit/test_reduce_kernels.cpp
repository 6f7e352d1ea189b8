// The vector 16-bit reduction kernels against the portable loops, bit for
// bit (a NaN from two NaN operands only needs to be a NaN): every bfloat16 / half value as the left operand against a spread of
// right operands (zeros, subnormals, normals, infinities, NaNs with payloads),
// every op, every tail length, and dst aliasing an input.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "collectives/reduce_kernels.h"
#include "collectives/types.h"
#include "../collective_test_values.h"

namespace shardroof::coll::detail {
namespace {

constexpr const auto& kOps = shardroof::testing::kAllOps;

// Right operands: for each of these, paired with all 65536 left operands.
std::vector<std::uint16_t> special_operands(DataType type) {
  if (type == DataType::BFloat16)
    return {0x0000, 0x8000, 0x0001, 0x807f, 0x0080, 0x3f80, 0xbf80, 0x3f81, 0x4049, 0x7f7f,
            0xff7f, 0x7f80, 0xff80, 0x7fc0, 0xffc1, 0x7f81, 0x4b00, 0x3c00, 0x1234, 0xc2f7};
  return {0x0000, 0x8000, 0x0001, 0x83ff, 0x0400, 0x3c00, 0xbc00, 0x3c01, 0x4248, 0x7bff,
          0xfbff, 0x7c00, 0xfc00, 0x7e00, 0xfe01, 0x7c01, 0x6400, 0x1400, 0x1234, 0xc2f7};
}

bool is_nan(std::uint16_t v, DataType type) {
  return type == DataType::BFloat16 ? (v & 0x7f80) == 0x7f80 && (v & 0x7f) != 0
                                    : (v & 0x7c00) == 0x7c00 && (v & 0x3ff) != 0;
}

// Equal bits; or, for two NaN operands, both NaN: which operand's NaN an
// addition returns is up to the compiler's operand order, in either path.
bool same(std::uint16_t want, std::uint16_t got, DataType type) {
  return want == got || (is_nan(want, type) && is_nan(got, type));
}

class ReduceKernels : public ::testing::TestWithParam<DataType> {
 protected:
  void SetUp() override {
    if (!have_avx2_f16c()) GTEST_SKIP() << "this CPU has no AVX2 and F16C: only the portable kernels run";
  }
};

TEST_P(ReduceKernels, VectorKernelMatchesPortableBitForBitOnEveryValue) {
  const DataType type = GetParam();
  std::vector<std::uint16_t> a(65536), b(65536), want(65536), got(65536);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<std::uint16_t>(i);
  long long mismatches = 0;
  std::string first;
  for (ReduceOp op : kOps) {
    for (std::uint16_t rhs : special_operands(type)) {
      std::fill(b.begin(), b.end(), rhs);
      reduce_16bit_portable(want.data(), a.data(), b.data(), a.size(), type, op);
      reduce_16bit_avx2(got.data(), a.data(), b.data(), a.size(), type, op);
      // Also with the operands swapped: max/min differ by order on NaNs.
      std::vector<std::uint16_t> want_swapped(a.size()), got_swapped(a.size());
      reduce_16bit_portable(want_swapped.data(), b.data(), a.data(), a.size(), type, op);
      reduce_16bit_avx2(got_swapped.data(), b.data(), a.data(), a.size(), type, op);
      for (std::size_t i = 0; i < a.size(); ++i) {
        const bool two_nans = is_nan(a[i], type) && is_nan(rhs, type);
        const bool ok = two_nans ? same(want[i], got[i], type) && same(want_swapped[i], got_swapped[i], type)
                                 : want[i] == got[i] && want_swapped[i] == got_swapped[i];
        if (ok) continue;
        if (mismatches++ == 0)
          first = std::string(to_string(op)) + " of " + std::to_string(a[i]) + " and " + std::to_string(rhs) +
                  ": portable " + std::to_string(want[i]) + "/" + std::to_string(want_swapped[i]) + ", vector " +
                  std::to_string(got[i]) + "/" + std::to_string(got_swapped[i]);
      }
    }
  }
  EXPECT_EQ(mismatches, 0) << "first: " << first;
}

TEST_P(ReduceKernels, EveryTailLengthAndAliasingMatchesPortable) {
  const DataType type = GetParam();
  for (std::size_t n = 0; n <= 40; ++n) {
    for (std::size_t offset : {0, 1, 3}) {  // unaligned starts
      std::vector<std::uint16_t> a(n + offset + 1), b(n + offset + 1);
      for (std::size_t i = 0; i < a.size(); ++i) {
        a[i] = static_cast<std::uint16_t>(0x3c00 + i * 37);
        b[i] = static_cast<std::uint16_t>(0x4000 + i * 91);
      }
      // Sentinels past the end must stay untouched.
      std::vector<std::uint16_t> want = a, got = a;
      reduce_16bit_portable(want.data() + offset, want.data() + offset, b.data() + offset, n, type, ReduceOp::Sum);
      reduce_16bit_avx2(got.data() + offset, got.data() + offset, b.data() + offset, n, type, ReduceOp::Sum);
      ASSERT_EQ(want, got) << "n=" << n << " offset=" << offset;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(SixteenBitTypes, ReduceKernels, ::testing::Values(DataType::BFloat16, DataType::Half),
                         [](const auto& param_info) { return std::string(to_string(param_info.param)); });

}  // namespace
}  // namespace shardroof::coll::detail

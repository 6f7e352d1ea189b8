// bfloat16 / half conversions: checked against a decoder written from the
// format definitions (not from the implementation), over every bit pattern,
// and at every rounding midpoint where round-to-nearest-even decides.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "collectives/half.h"

namespace shardroof::coll {
namespace {

// IEEE binary16: 1 sign, 5 exponent (bias 15), 10 mantissa bits.
double ref_half(std::uint16_t h) {
  const double sign = (h & 0x8000u) ? -1.0 : 1.0;
  const int exp = (h >> 10) & 0x1f;
  const int mant = h & 0x3ff;
  if (exp == 0x1f) return mant ? std::numeric_limits<double>::quiet_NaN() : sign * INFINITY;
  if (exp == 0) return sign * std::ldexp(mant, -24);
  return sign * std::ldexp(1024 + mant, exp - 25);
}

// bfloat16: 1 sign, 8 exponent (bias 127), 7 mantissa bits.
double ref_bf16(std::uint16_t h) {
  const double sign = (h & 0x8000u) ? -1.0 : 1.0;
  const int exp = (h >> 7) & 0xff;
  const int mant = h & 0x7f;
  if (exp == 0xff) return mant ? std::numeric_limits<double>::quiet_NaN() : sign * INFINITY;
  if (exp == 0) return sign * std::ldexp(mant, -133);
  return sign * std::ldexp(128 + mant, exp - 134);
}

struct Format {
  const char* name;
  double (*ref)(std::uint16_t);
  float (*to_float)(std::uint16_t);
  std::uint16_t (*from_float)(float);
  std::uint16_t inf_bits;      // +infinity
  std::uint16_t max_finite;    // largest finite positive pattern
  double first_past_max;       // the value one step above max_finite (rounds to inf)
};

const Format kFormats[] = {
    {"half", ref_half, half_to_float, float_to_half, 0x7c00, 0x7bff, 65536.0},
    {"bfloat16", ref_bf16, bf16_to_float, float_to_bf16, 0x7f80, 0x7f7f, std::ldexp(1.0, 128)},
};

bool is_nan_pattern(const Format& f, std::uint16_t h) {
  return (h & 0x7fffu) > f.inf_bits;
}

TEST(HalfConversions, EveryBitPatternWidensExactly) {
  for (const auto& f : kFormats) {
    SCOPED_TRACE(f.name);
    int failures = 0;
    for (std::uint32_t i = 0; i <= 0xffffu && failures < 10; ++i) {
      const auto h = static_cast<std::uint16_t>(i);
      const double want = f.ref(h);
      const float got = f.to_float(h);
      if (std::isnan(want)) {
        if (!std::isnan(got)) ++failures, ADD_FAILURE() << std::hex << "0x" << i << " should be NaN";
      } else if (static_cast<double>(got) != want || std::signbit(got) != std::signbit(want)) {
        ++failures;
        ADD_FAILURE() << std::hex << "0x" << i << std::dec << ": got " << got << ", want " << want;
      }
    }
  }
}

TEST(HalfConversions, EveryBitPatternRoundTrips) {
  for (const auto& f : kFormats) {
    SCOPED_TRACE(f.name);
    int failures = 0;
    for (std::uint32_t i = 0; i <= 0xffffu && failures < 10; ++i) {
      const auto h = static_cast<std::uint16_t>(i);
      const std::uint16_t back = f.from_float(f.to_float(h));
      if (is_nan_pattern(f, h)) {
        // NaN stays NaN (quieted; the payload may change) and keeps its sign.
        if (!is_nan_pattern(f, back) || (back & 0x8000u) != (h & 0x8000u)) {
          ++failures;
          ADD_FAILURE() << std::hex << "NaN 0x" << i << " came back as 0x" << back;
        }
      } else if (back != h) {
        ++failures;
        ADD_FAILURE() << std::hex << "0x" << i << " came back as 0x" << back;
      }
    }
  }
}

// Between consecutive representable values a and b (b = a + 1 ulp) the
// midpoint rounds to the one with an even mantissa, and one float ulp either
// side of it rounds to the nearer one. Covers subnormals, the
// normal/subnormal boundary, and overflow to infinity past the largest value.
TEST(HalfConversions, MidpointsRoundToNearestEven) {
  for (const auto& f : kFormats) {
    SCOPED_TRACE(f.name);
    int failures = 0;
    for (std::uint32_t i = 0; i <= f.max_finite && failures < 10; ++i) {
      const auto lo = static_cast<std::uint16_t>(i);
      const auto hi = static_cast<std::uint16_t>(i + 1);
      const double a = f.ref(lo);
      const double b = i == f.max_finite ? f.first_past_max : f.ref(hi);
      const auto mid = static_cast<float>((a + b) / 2);  // exact: one more bit than the format
      ASSERT_EQ(static_cast<double>(mid), (a + b) / 2);
      const std::uint16_t even = (lo & 1u) == 0 ? lo : hi;
      for (const double sign : {1.0, -1.0}) {
        const std::uint16_t s = sign < 0 ? 0x8000 : 0;
        const float m = static_cast<float>(sign) * mid;
        const float below = std::nextafter(m, 0.0f);
        const float above = std::nextafter(m, static_cast<float>(sign) * INFINITY);
        const std::uint16_t got_mid = f.from_float(m);
        const std::uint16_t got_below = f.from_float(below);
        const std::uint16_t got_above = f.from_float(above);
        if (got_mid != (even | s) || got_below != (lo | s) || got_above != (hi | s)) {
          ++failures;
          ADD_FAILURE() << std::hex << "between 0x" << (lo | s) << " and 0x" << (hi | s) << ": mid -> 0x"
                        << got_mid << ", below -> 0x" << got_below << ", above -> 0x" << got_above;
        }
      }
    }
  }
}

TEST(HalfConversions, SpecialValues) {
  EXPECT_EQ(float_to_half(0.0f), 0x0000);
  EXPECT_EQ(float_to_half(-0.0f), 0x8000);
  EXPECT_EQ(float_to_half(1.0f), 0x3c00);
  EXPECT_EQ(float_to_half(-2.0f), 0xc000);
  EXPECT_EQ(float_to_half(65504.0f), 0x7bff);
  EXPECT_EQ(float_to_half(1e6f), 0x7c00);
  EXPECT_EQ(float_to_half(-1e6f), 0xfc00);
  EXPECT_EQ(float_to_half(INFINITY), 0x7c00);
  EXPECT_EQ(float_to_half(-INFINITY), 0xfc00);
  EXPECT_TRUE(std::isnan(half_to_float(float_to_half(NAN))));
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -14)), 0x0400);  // smallest normal
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -26)), 0x0000);  // below half the smallest: zero
  EXPECT_EQ(float_to_half(-std::ldexp(1.0f, -26)), 0x8000);
  EXPECT_EQ(float_to_half(std::numeric_limits<float>::denorm_min()), 0x0000);

  EXPECT_EQ(float_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(float_to_bf16(-0.0f), 0x8000);
  EXPECT_EQ(float_to_bf16(INFINITY), 0x7f80);
  EXPECT_EQ(float_to_bf16(-INFINITY), 0xff80);
  EXPECT_EQ(float_to_bf16(std::numeric_limits<float>::max()), 0x7f80);  // rounds up to inf
  EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(NAN))));
  EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(-NAN))));
  // A signalling NaN whose payload sits only in the low 16 bits must not
  // truncate to infinity.
  float snan;
  const std::uint32_t snan_bits = 0x7f800001u;
  std::memcpy(&snan, &snan_bits, sizeof snan);
  EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(snan))));
  EXPECT_TRUE(std::isnan(half_to_float(float_to_half(snan))));
  // 256 and 257: integers are exact up to 256 in bfloat16; 257 ties to 256.
  EXPECT_EQ(bf16_to_float(float_to_bf16(256.0f)), 256.0f);
  EXPECT_EQ(bf16_to_float(float_to_bf16(257.0f)), 256.0f);
  EXPECT_EQ(bf16_to_float(float_to_bf16(259.0f)), 260.0f);
  EXPECT_EQ(half_to_float(float_to_half(2049.0f)), 2048.0f);
  EXPECT_EQ(half_to_float(float_to_half(2051.0f)), 2052.0f);
}

}  // namespace
}  // namespace shardroof::coll

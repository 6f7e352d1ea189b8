// AVX2 + F16C kernels for bfloat16 and half reductions (see reduce_kernels.h).
// Compiled for the baseline ISA like the rest of the library: the functions
// carry target attributes and run only where have_avx2_f16c() says so.
#include <immintrin.h>

#include <cstdint>

#include "collectives/half.h"
#include "collectives/reduce_kernels.h"

namespace shardroof::coll::detail {

#define SHARDROOF_AVX2 __attribute__((target("avx2,f16c")))

namespace {

// Same formula as float_to_bf16: round to nearest even on the upper 16 bits,
// a NaN keeps its sign and payload and is made quiet.
SHARDROOF_AVX2 inline __m128i bf16_from_float8(__m256 f) {
  const __m256i bits = _mm256_castps_si256(f);
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(1));
  const __m256i rounded =
      _mm256_srli_epi32(_mm256_add_epi32(bits, _mm256_add_epi32(lsb, _mm256_set1_epi32(0x7fff))), 16);
  const __m256i quiet = _mm256_or_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(0x40));
  const __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(f, f, _CMP_UNORD_Q));
  const __m256i r = _mm256_blendv_epi8(rounded, quiet, nan);
  // Pack the 8 low halves of the 32-bit lanes (each < 2^16) into 16 bytes.
  const __m256i packed = _mm256_packus_epi32(r, r);
  return _mm256_castsi256_si128(_mm256_permute4x64_epi64(packed, 0x08));
}

SHARDROOF_AVX2 inline __m256 bf16_to_float8(const std::uint16_t* p) {
  const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}

// F16C rounds to nearest even and handles subnormals and overflow as
// float_to_half does; only a NaN's payload differs, so NaNs are replaced by
// the quiet NaN float_to_half makes (sign | 0x7e00) before converting.
SHARDROOF_AVX2 inline __m128i half_from_float8(__m256 f) {
  const __m256 nan = _mm256_cmp_ps(f, f, _CMP_UNORD_Q);
  const __m256 sign = _mm256_and_ps(f, _mm256_castsi256_ps(_mm256_set1_epi32(static_cast<int>(0x80000000u))));
  const __m256 quiet = _mm256_or_ps(sign, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fc00000)));
  return _mm256_cvtps_ph(_mm256_blendv_ps(f, quiet, nan), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

SHARDROOF_AVX2 inline __m256 half_to_float8(const std::uint16_t* p) {
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

// The operand order matches SumOp..MinOp in memory.cpp on NaNs:
// std::max(x, y) is (x < y) ? y : x, which is _mm256_max_ps(y, x).
SHARDROOF_AVX2 inline __m256 combine8(__m256 x, __m256 y, ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Avg: return _mm256_add_ps(x, y);
    case ReduceOp::Prod: return _mm256_mul_ps(x, y);
    case ReduceOp::Max: return _mm256_max_ps(y, x);
    case ReduceOp::Min: return _mm256_min_ps(y, x);
  }
  return x;
}

template <__m256 (*Load)(const std::uint16_t*), __m128i (*Store)(__m256), ReduceOp Op>
SHARDROOF_AVX2 void reduce_loop(std::uint16_t* d, const std::uint16_t* x, const std::uint16_t* y,
                                std::size_t n) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 r = combine8(Load(x + i), Load(y + i), Op);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i), Store(r));
  }
  if (i == n) return;
  // The tail goes through the same vector code on a zero-padded copy, so it
  // rounds exactly like the body.
  alignas(16) std::uint16_t tx[8] = {}, ty[8] = {}, td[8];
  for (std::size_t j = 0; i + j < n; ++j) {
    tx[j] = x[i + j];
    ty[j] = y[i + j];
  }
  _mm_store_si128(reinterpret_cast<__m128i*>(td), Store(combine8(Load(tx), Load(ty), Op)));
  for (std::size_t j = 0; i + j < n; ++j) d[i + j] = td[j];
}

template <__m256 (*Load)(const std::uint16_t*), __m128i (*Store)(__m256)>
SHARDROOF_AVX2 void reduce_format(std::uint16_t* d, const std::uint16_t* x, const std::uint16_t* y,
                                  std::size_t n, ReduceOp op) {
  // The op is a template argument so each loop holds one instruction, not a switch.
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Avg: return reduce_loop<Load, Store, ReduceOp::Sum>(d, x, y, n);
    case ReduceOp::Prod: return reduce_loop<Load, Store, ReduceOp::Prod>(d, x, y, n);
    case ReduceOp::Max: return reduce_loop<Load, Store, ReduceOp::Max>(d, x, y, n);
    case ReduceOp::Min: return reduce_loop<Load, Store, ReduceOp::Min>(d, x, y, n);
  }
}

}  // namespace

SHARDROOF_AVX2 void reduce_16bit_avx2(void* dst, const void* a, const void* b, std::size_t n,
                                      DataType type, ReduceOp op) {
  auto* d = static_cast<std::uint16_t*>(dst);
  const auto* x = static_cast<const std::uint16_t*>(a);
  const auto* y = static_cast<const std::uint16_t*>(b);
  if (type == DataType::BFloat16) {
    reduce_format<bf16_to_float8, bf16_from_float8>(d, x, y, n, op);
  } else {
    reduce_format<half_to_float8, half_from_float8>(d, x, y, n, op);
  }
}

bool have_avx2_f16c() {
  static const bool have = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
  return have;
}

#undef SHARDROOF_AVX2

}  // namespace shardroof::coll::detail

// Element-wise reduction kernels behind host_reduce, exposed so tests can
// hold each implementation against the portable one.
//
// The 16-bit formats are widened to float, combined, and rounded back once
// (round to nearest even). The portable loops convert one element at a time
// through branches the compiler cannot vectorise; on x86-64 CPUs with AVX2
// and F16C the same arithmetic runs 8 elements at a time (bfloat16 through
// integer shifts and the same rounding formula, half through the F16C
// conversions). Both paths give the same bits for every input, NaN included:
// a NaN result is the quiet NaN the portable conversion makes.
#pragma once

#include <cstddef>

#include "collectives/types.h"

namespace shardroof::coll::detail {

// dst[i] = a[i] op b[i] for bfloat16 or half; dst may alias a or b.
void reduce_16bit_portable(void* dst, const void* a, const void* b, std::size_t n, DataType type,
                           ReduceOp op);
void reduce_16bit_avx2(void* dst, const void* a, const void* b, std::size_t n, DataType type,
                       ReduceOp op);
// Whether this CPU runs reduce_16bit_avx2 (AVX2 and F16C); fixed for the process.
bool have_avx2_f16c();

}  // namespace shardroof::coll::detail

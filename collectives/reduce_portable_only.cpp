// Processors other than x86-64: the 16-bit reductions run the portable loops
// only (see reduce_kernels.h).
#include <cstring>
#include <stdexcept>

#include "collectives/reduce_kernels.h"

namespace shardroof::coll::detail {

void reduce_16bit_avx2(void*, const void*, const void*, std::size_t, DataType, ReduceOp) {
  throw std::logic_error("reduce_16bit_avx2 called on a processor without AVX2");
}

bool have_avx2_f16c() { return false; }

void copy_streaming(void* dst, const void* src, std::size_t bytes) {
  if (bytes > 0) std::memcpy(dst, src, bytes);
}

}  // namespace shardroof::coll::detail

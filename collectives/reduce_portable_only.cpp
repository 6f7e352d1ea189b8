// Processors other than x86-64: the 16-bit reductions run the portable loops
// only (see reduce_kernels.h).
#include <stdexcept>

#include "collectives/reduce_kernels.h"

namespace shardroof::coll::detail {

void reduce_16bit_avx2(void*, const void*, const void*, std::size_t, DataType, ReduceOp) {
  throw std::logic_error("reduce_16bit_avx2 called on a processor without AVX2");
}

bool have_avx2_f16c() { return false; }

}  // namespace shardroof::coll::detail

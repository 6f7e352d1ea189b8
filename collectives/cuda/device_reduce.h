// Element-wise reductions on device memory, queued on a stream: the device
// counterpart of host_reduce / host_divide (collectives/memory.h) with the
// same semantics, so the exact-value checks of check_pattern.h apply:
//   dst[i] = a[i] op b[i] (dst may alias a or b, element-wise);
//   bfloat16 and half are widened to float, combined, and rounded once to
//   nearest even; max/min pick as std::max/std::min do; Avg reduces as Sum
//   and device_divide is its last step (integer division truncates).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "collectives/types.h"

namespace shardroof::coll {

void device_reduce(void* dst, const void* a, const void* b, std::size_t count, DataType type,
                   ReduceOp op, cudaStream_t stream);
void device_divide(void* buf, std::size_t count, DataType type, int divisor, cudaStream_t stream);

}  // namespace shardroof::coll

#include "collectives/cuda/device_reduce.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>

#include "collectives/cuda/cuda_check.h"

namespace shardroof::coll {
namespace {

// The operators, written as host_reduce writes them (std::max(x, y) is
// `x < y ? y : x`, std::min(x, y) is `y < x ? y : x`), so NaN and signed
// zero behave identically on both sides.
struct SumOp {
  template <class T>
  __device__ T operator()(T x, T y) const { return x + y; }
};
struct ProdOp {
  template <class T>
  __device__ T operator()(T x, T y) const { return x * y; }
};
struct MaxOp {
  template <class T>
  __device__ T operator()(T x, T y) const { return x < y ? y : x; }
};
struct MinOp {
  template <class T>
  __device__ T operator()(T x, T y) const { return y < x ? y : x; }
};

// Storage types widened to the type the arithmetic runs in.
struct NativeIO {
  template <class T>
  __device__ static T load(T v) { return v; }
  template <class T>
  __device__ static T store(T v) { return v; }
};
struct Bf16IO {
  __device__ static float load(__nv_bfloat16 v) { return __bfloat162float(v); }
  __device__ static __nv_bfloat16 store(float v) { return __float2bfloat16_rn(v); }
};
struct HalfIO {
  __device__ static float load(__half v) { return __half2float(v); }
  __device__ static __half store(float v) { return __float2half_rn(v); }
};

template <class Storage, class IO, class Op>
__global__ void reduce_kernel(Storage* dst, const Storage* a, const Storage* b, std::size_t n) {
  const Op op;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    dst[i] = IO::store(op(IO::load(a[i]), IO::load(b[i])));
  }
}

template <class Storage, class IO, class Compute>
__global__ void divide_kernel(Storage* buf, std::size_t n, Compute divisor) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    buf[i] = IO::store(IO::load(buf[i]) / divisor);
  }
}

constexpr unsigned kThreads = 256;

// Enough blocks to fill any current GPU; the grid-stride loops cover the rest.
unsigned blocks_for(std::size_t n) {
  const std::size_t wanted = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(std::min<std::size_t>(wanted, 8192));
}

template <class Op>
void reduce_typed(void* dst, const void* a, const void* b, std::size_t n, DataType type, cudaStream_t s) {
  const unsigned g = blocks_for(n);
  switch (type) {
    case DataType::Float:
      reduce_kernel<float, NativeIO, Op><<<g, kThreads, 0, s>>>(
          static_cast<float*>(dst), static_cast<const float*>(a), static_cast<const float*>(b), n);
      return;
    case DataType::Double:
      reduce_kernel<double, NativeIO, Op><<<g, kThreads, 0, s>>>(
          static_cast<double*>(dst), static_cast<const double*>(a), static_cast<const double*>(b), n);
      return;
    case DataType::Int32:
      reduce_kernel<std::int32_t, NativeIO, Op><<<g, kThreads, 0, s>>>(
          static_cast<std::int32_t*>(dst), static_cast<const std::int32_t*>(a),
          static_cast<const std::int32_t*>(b), n);
      return;
    case DataType::BFloat16:
      reduce_kernel<__nv_bfloat16, Bf16IO, Op><<<g, kThreads, 0, s>>>(
          static_cast<__nv_bfloat16*>(dst), static_cast<const __nv_bfloat16*>(a),
          static_cast<const __nv_bfloat16*>(b), n);
      return;
    case DataType::Half:
      reduce_kernel<__half, HalfIO, Op><<<g, kThreads, 0, s>>>(
          static_cast<__half*>(dst), static_cast<const __half*>(a), static_cast<const __half*>(b), n);
      return;
  }
}

}  // namespace

void device_reduce(void* dst, const void* a, const void* b, std::size_t count, DataType type,
                   ReduceOp op, cudaStream_t stream) {
  if (count == 0) return;
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Avg: reduce_typed<SumOp>(dst, a, b, count, type, stream); break;
    case ReduceOp::Prod: reduce_typed<ProdOp>(dst, a, b, count, type, stream); break;
    case ReduceOp::Max: reduce_typed<MaxOp>(dst, a, b, count, type, stream); break;
    case ReduceOp::Min: reduce_typed<MinOp>(dst, a, b, count, type, stream); break;
  }
  SHARDROOF_CUDA_CHECK_LAUNCH("reduce kernel launch");
}

void device_divide(void* buf, std::size_t count, DataType type, int divisor, cudaStream_t stream) {
  if (count == 0) return;
  const unsigned g = blocks_for(count);
  const float fdiv = static_cast<float>(divisor);
  switch (type) {
    case DataType::Float:
      divide_kernel<float, NativeIO, float><<<g, kThreads, 0, stream>>>(static_cast<float*>(buf), count, fdiv);
      break;
    case DataType::Double:
      divide_kernel<double, NativeIO, double><<<g, kThreads, 0, stream>>>(static_cast<double*>(buf), count,
                                                                          static_cast<double>(divisor));
      break;
    case DataType::Int32:
      divide_kernel<std::int32_t, NativeIO, std::int32_t><<<g, kThreads, 0, stream>>>(
          static_cast<std::int32_t*>(buf), count, divisor);
      break;
    case DataType::BFloat16:
      divide_kernel<__nv_bfloat16, Bf16IO, float><<<g, kThreads, 0, stream>>>(
          static_cast<__nv_bfloat16*>(buf), count, fdiv);
      break;
    case DataType::Half:
      divide_kernel<__half, HalfIO, float><<<g, kThreads, 0, stream>>>(static_cast<__half*>(buf), count, fdiv);
      break;
  }
  SHARDROOF_CUDA_CHECK_LAUNCH("divide kernel launch");
}

}  // namespace shardroof::coll

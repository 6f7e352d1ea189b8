#include "cuda/memory_kernels.h"

#include <algorithm>

#include "collectives/cuda/cuda_check.h"

namespace shardroof {
namespace {

constexpr unsigned kThreads = 256;

__global__ void fill_kernel(double* dst, double value, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (std::size_t i = first; i < n; i += stride) dst[i] = value;
}

// Pairs of doubles (16-byte accesses; cudaMalloc aligns to 256 bytes), then
// the odd last element, if any, by the first thread.
__global__ void copy_kernel(double* dst, const double* src, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  auto* d2 = reinterpret_cast<double2*>(dst);
  const auto* s2 = reinterpret_cast<const double2*>(src);
  for (std::size_t i = first; i < n / 2; i += stride) d2[i] = s2[i];
  if (first == 0 && n % 2 == 1) dst[n - 1] = src[n - 1];
}

__global__ void triad_kernel(double* a, const double* b, const double* c, double scalar, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  auto* a2 = reinterpret_cast<double2*>(a);
  const auto* b2 = reinterpret_cast<const double2*>(b);
  const auto* c2 = reinterpret_cast<const double2*>(c);
  for (std::size_t i = first; i < n / 2; i += stride) {
    const double2 x = b2[i], y = c2[i];
    a2[i] = make_double2(x.x + scalar * y.x, x.y + scalar * y.y);
  }
  if (first == 0 && n % 2 == 1) a[n - 1] = b[n - 1] + scalar * c[n - 1];
}

}  // namespace

unsigned memory_kernel_blocks(int multiprocessors, int max_threads_per_multiprocessor) {
  const int per_sm = std::max(1, max_threads_per_multiprocessor / static_cast<int>(kThreads));
  return static_cast<unsigned>(std::max(1, multiprocessors) * per_sm);
}

void launch_fill(double* dst, double value, std::size_t n, unsigned blocks, cudaStream_t stream) {
  if (n == 0) return;
  fill_kernel<<<blocks, kThreads, 0, stream>>>(dst, value, n);
  SHARDROOF_CUDA_CHECK_LAUNCH("fill kernel launch");
}

void launch_copy(double* dst, const double* src, std::size_t n, unsigned blocks, cudaStream_t stream) {
  if (n == 0) return;
  copy_kernel<<<blocks, kThreads, 0, stream>>>(dst, src, n);
  SHARDROOF_CUDA_CHECK_LAUNCH("copy kernel launch");
}

void launch_triad(double* a, const double* b, const double* c, double scalar, std::size_t n, unsigned blocks,
                  cudaStream_t stream) {
  if (n == 0) return;
  triad_kernel<<<blocks, kThreads, 0, stream>>>(a, b, c, scalar, n);
  SHARDROOF_CUDA_CHECK_LAUNCH("triad kernel launch");
}

}  // namespace shardroof

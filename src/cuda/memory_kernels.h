// STREAM's copy and triad on device arrays of doubles, queued on a stream:
// the kernels behind the CUDA backend's memory roof M. Each thread moves
// 16 bytes per access (double2) in a grid-stride loop; the grid is one
// wave of resident blocks of the device (`blocks`, from its
// multiprocessor count), so every multiprocessor streams at once.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace shardroof {

// The grid for the kernels below: as many blocks as the device keeps
// resident at once.
unsigned memory_kernel_blocks(int multiprocessors, int max_threads_per_multiprocessor);

void launch_fill(double* dst, double value, std::size_t n, unsigned blocks, cudaStream_t stream);
// dst[i] = src[i]
void launch_copy(double* dst, const double* src, std::size_t n, unsigned blocks, cudaStream_t stream);
// a[i] = b[i] + scalar * c[i]
void launch_triad(double* a, const double* b, const double* c, double scalar, std::size_t n, unsigned blocks,
                  cudaStream_t stream);

}  // namespace shardroof

// Shared by the GPU tests: a fixture that skips (on every rank alike) when
// no CUDA device is visible, and helpers to move data to and from devices.
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstddef>
#include <string>
#include <vector>

namespace shardroof::testing {

// Number of visible devices, 0 when none (or no driver); `why` says which.
inline int visible_devices(std::string* why = nullptr) {
  int n = 0;
  const cudaError_t rc = cudaGetDeviceCount(&n);
  if (rc != cudaSuccess) {
    if (why) *why = std::string(cudaGetErrorName(rc)) + ": " + cudaGetErrorString(rc);
    cudaGetLastError();
    return 0;
  }
  if (why && n == 0) *why = "0 devices";
  return n;
}

// Every rank sees the same answer on one node; across nodes the verdict is
// combined so that all ranks skip or none does.
inline int devices_on_every_rank() {
  int mine = visible_devices();
  int least = 0;
  MPI_Allreduce(&mine, &least, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return least;
}

class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    const int mine = visible_devices(&why);
    int least = 0;
    MPI_Allreduce(&mine, &least, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (least == 0) GTEST_SKIP() << "no CUDA device visible (" << (why.empty() ? "on another rank" : why) << ")";
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    ASSERT_EQ(cudaSetDevice(rank % mine), cudaSuccess);
  }
};

template <class T = std::byte>
std::vector<T> to_host(const void* device, std::size_t bytes) {
  std::vector<T> out(bytes / sizeof(T) + 1);
  cudaMemcpy(out.data(), device, bytes, cudaMemcpyDeviceToHost);
  out.resize(bytes / sizeof(T));
  return out;
}

}  // namespace shardroof::testing

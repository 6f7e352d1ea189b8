#include "cuda/cuda_context.h"


#include <algorithm>
#include <cstdlib>
#include <fmt/format.h>
#include <mutex>

#include "collectives/cuda/cuda_check.h"
#include "collectives/mpi_transport.h"
#include "util/agreement.h"
#include "util/error.h"
#include "util/node.h"

namespace shardroof {
namespace {

bool shared_gpus_allowed() {
  const char* v = std::getenv("SHARDROOF_ALLOW_SHARED_GPU");
  return v && std::string_view(v) == "1";
}

}  // namespace

DeviceChoice select_device_by_local_rank(MPI_Comm comm) {
  DeviceChoice choice;
  {
    const NodeComm local(comm);
    choice.local_rank = local.rank();
    choice.local_size = local.size();
  }
  choice.host = host_name();

  run_agreed(comm, [&] {
    const cudaError_t rc = cudaGetDeviceCount(&choice.device_count);
    if (rc != cudaSuccess || choice.device_count == 0) {
      const std::string why = rc != cudaSuccess ? fmt::format("{}: {}", cudaGetErrorName(rc), cudaGetErrorString(rc))
                                                : std::string("0 devices");
      cudaGetLastError();  // clear the sticky-free error so later calls start clean
      throw_usage("--backend cuda: no CUDA GPU is visible on {} (cudaGetDeviceCount: {}); check the driver and "
                  "CUDA_VISIBLE_DEVICES, or use --backend cpu",
                  choice.host, why);
    }
    if (choice.device_count < choice.local_size && !shared_gpus_allowed()) {
      throw_usage("--backend cuda: {} ranks run on {} but only {} GPU{} visible there; one GPU per rank is "
                  "needed (start at most {} ranks per node, or set SHARDROOF_ALLOW_SHARED_GPU=1 to share "
                  "GPUs, for tests)",
                  choice.local_size, choice.host, choice.device_count, choice.device_count == 1 ? " is" : "s are",
                  choice.device_count);
    }
    choice.device = choice.local_rank % choice.device_count;
    SHARDROOF_CUDA_CHECK(cudaSetDevice(choice.device));
    cudaDeviceProp prop{};
    SHARDROOF_CUDA_CHECK(cudaGetDeviceProperties(&prop, choice.device));
    choice.name = prop.name;
    choice.multiprocessors = prop.multiProcessorCount;
    choice.max_threads_per_multiprocessor = prop.maxThreadsPerMultiProcessor;
    choice.l2_bytes = static_cast<std::size_t>(std::max(prop.l2CacheSize, 0));
  });
  return choice;
}

CudaRankContext::CudaRankContext(DeviceChoice device)
    : device_(std::move(device)), stream_(), memory_(stream_.get()) {}

std::string CudaRankContext::describe() const {
  return fmt::format("{} (device {} of {}, local rank {} of {})", device_.name, device_.device,
                     device_.device_count, device_.local_rank, device_.local_size);
}

std::shared_ptr<CudaRankContext> CudaRankContext::acquire(MPI_Comm comm) {
  static std::mutex mutex;
  static std::weak_ptr<CudaRankContext> current;
  const std::lock_guard<std::mutex> lock(mutex);
  if (auto alive = current.lock()) return alive;
  auto choice = select_device_by_local_rank(comm);
  std::shared_ptr<CudaRankContext> made;
  // The stream is created on the chosen device; agree so that a failure on
  // one rank does not leave the others in the next collective.
  run_agreed(comm, [&] { made = std::make_shared<CudaRankContext>(choice); });
  current = made;
  return made;
}

}  // namespace shardroof

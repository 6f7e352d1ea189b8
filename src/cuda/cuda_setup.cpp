// The CUDA backend's factories: device buffers over MPI or NCCL, cuBLAS
// compute, and what --version says about them.
#include <fmt/format.h>

#include <cstdint>
#include <cstring>

#include "collectives/algorithms.h"
#include "collectives/traits.h"
#include "collectives/cuda/cuda_aware_mpi.h"
#include "collectives/cuda/cuda_check.h"
#include "collectives/cuda/mpi_device_transport.h"
#include "collectives/mpi_native.h"
#include "cuda/cublas_backend.h"
#include "cuda/cuda_api.h"
#include "cuda/cuda_context.h"
#include "cuda/nccl_setup.h"
#include "cuda/shared_gpu.h"
#include "util/agreement.h"
#include "util/error.h"

namespace shardroof {
namespace {

// MPI's own collectives on device buffers: the data is copied to pinned
// host buffers, MpiNativeCollective runs there, the result is copied back.
// (MpiNativeCollective reduces bfloat16/half and divides for avg on the
// host, so device pointers are never handed to it.)
class StagedMpiNative final : public coll::Collective {
 public:
  StagedMpiNative(coll::CollectiveKind kind, MPI_Comm comm, coll::CudaMemoryOps& memory, int root)
      : host_(kind, comm, root), memory_(memory) {
    SHARDROOF_MPI_CHECK(MPI_Comm_rank(comm, &rank_));
    SHARDROOF_MPI_CHECK(MPI_Comm_size(comm, &size_));
  }
  coll::CollectiveKind kind() const override { return host_.kind(); }
  std::string algorithm() const override { return "mpi-staged"; }

  void run(const void* send, void* recv, std::size_t count, coll::DataType type, coll::ReduceOp op) override {
    const std::size_t es = coll::size_of(type);
    const coll::CollectiveTraits& traits = coll::traits(host_.kind());
    const coll::CallShape shape{count, rank_, size_};
    const coll::InPlaceLayout layout = traits.in_place(shape);
    const auto* s = static_cast<const std::byte*>(send);
    auto* r = static_cast<std::byte*>(recv);
    // In place, send and recv sit at their offsets in one buffer.
    const bool in_place = reinterpret_cast<std::uintptr_t>(s) + layout.recv_offset * es ==
                          reinterpret_cast<std::uintptr_t>(r) + layout.send_offset * es;
    const std::size_t in_bytes = traits.input_count(shape) * es;
    const std::size_t out_bytes = traits.output_count(shape) * es;

    if (in_place) {
      // One full-size host buffer keeps the in-place relation of the
      // device buffers (collective.h conventions).
      auto* full = static_cast<std::byte*>(host(full_, layout.buffer * es));
      memory_.copy(full, r - layout.recv_offset * es, layout.buffer * es);
      memory_.synchronize();
      host_.run(full + layout.send_offset * es, full + layout.recv_offset * es, count, type, op);
      memory_.copy(r, full + layout.recv_offset * es, out_bytes);
    } else {
      void* hs = host(in_, in_bytes);
      void* hr = host(out_, out_bytes);
      memory_.copy(hs, s, in_bytes);
      memory_.synchronize();
      host_.run(hs, hr, count, type, op);
      memory_.copy(r, hr, out_bytes);
    }
    memory_.synchronize();
  }

 private:
  // Pinned buffers kept between calls: allocation stays out of timed calls.
  static void* host(std::unique_ptr<coll::PinnedAllocation>& buf, std::size_t bytes) {
    if (!buf || buf->bytes() < bytes) buf = std::make_unique<coll::PinnedAllocation>(bytes);
    return buf->data();
  }
  coll::MpiNativeCollective host_;
  coll::CudaMemoryOps& memory_;
  int rank_ = 0;
  int size_ = 1;
  std::unique_ptr<coll::PinnedAllocation> full_, in_, out_;
};

class MpiDeviceSetup final : public CommSetup {
 public:
  MpiDeviceSetup(std::shared_ptr<CudaRankContext> context, MPI_Comm comm, coll::CudaAwareMpi aware)
      : context_(std::move(context)),
        comm_(comm),
        aware_(std::move(aware)),
        transport_(comm, context_->stream(), aware_.supported ? coll::DeviceMpiMode::Direct : coll::DeviceMpiMode::Staged) {}
  coll::Transport& transport() override { return transport_; }
  coll::MemoryOps& memory() override { return context_->memory(); }
  std::string describe(coll::Algorithm algorithm) const override {
    return algorithm == coll::Algorithm::Native ? "mpi (staged via host)"
                                                : fmt::format("{}/{}", coll::to_string(algorithm), transport_.name());
  }

 protected:
  std::unique_ptr<coll::Collective> make_native(coll::CollectiveKind kind, const coll::CollectiveOptions& ring) override {
    return std::make_unique<StagedMpiNative>(kind, comm_, context_->memory(), ring.broadcast.root);
  }

 private:
  std::shared_ptr<CudaRankContext> context_;
  MPI_Comm comm_;
  coll::CudaAwareMpi aware_;
  coll::MpiDeviceTransport transport_;
};

}  // namespace

std::unique_ptr<CommSetup> make_cuda_comm_setup(TransportKind transport, MPI_Comm comm) {
  auto context = CudaRankContext::acquire(comm);
  if (transport == TransportKind::Nccl) {
    // Ranks share GPUs only where SHARDROOF_ALLOW_SHARED_GPU=1 let them
    // (device selection refuses it otherwise); NCCL then needs a distinct
    // host id per round of ranks (cuda/shared_gpu.h).
    set_shared_gpu_host_id(context->device());
    return make_nccl_comm_setup(std::move(context), comm);
  }
  std::unique_ptr<CommSetup> setup;
  run_agreed(comm, [&] { setup = std::make_unique<MpiDeviceSetup>(context, comm, coll::detect_cuda_aware_mpi()); });
  return setup;
}

std::unique_ptr<ComputeBackend> make_cuda_compute_backend(MPI_Comm comm, const CudaComputeOptions& options) {
  auto context = CudaRankContext::acquire(comm);
  std::unique_ptr<ComputeBackend> backend;
  run_agreed(comm, [&] { backend = std::make_unique<CublasBackend>(context, options); });
  return backend;
}

std::string cuda_built_in_text() {
  int runtime = 0;
  cudaRuntimeGetVersion(&runtime);
  std::string text = fmt::format("CUDA runtime {}.{}", runtime / 1000, runtime % 1000 / 10);
  const auto nccl = nccl_version_text();
  if (!nccl.empty()) text += ", " + nccl;
  const auto aware = coll::detect_cuda_aware_mpi();
  text += fmt::format("; CUDA-aware MPI: {} ({})", aware.supported ? "yes" : "no", aware.reason);
  return text;
}

}  // namespace shardroof

#include "measure/comm_setup.h"

#include "collectives/algorithms.h"
#include "collectives/mpi_native.h"
#include "collectives/mpi_transport.h"
#include "cuda/cuda_api.h"
#include "measure/tuning_file.h"
#include "util/error.h"

namespace shardroof {

std::string_view to_string(Impl impl) {
  switch (impl) {
    case Impl::Auto: return "auto";
    case Impl::Ring: return "ring";
    case Impl::Pairwise: return "pairwise";
    case Impl::Direct: return "direct";
    case Impl::Native: return "native";
  }
  return "?";
}

std::optional<Impl> parse_impl(std::string_view name) {
  for (auto impl : {Impl::Auto, Impl::Ring, Impl::Pairwise, Impl::Direct, Impl::Native})
    if (name == to_string(impl)) return impl;
  return std::nullopt;
}

coll::Algorithm own_algorithm(Impl impl) {
  switch (impl) {
    case Impl::Auto: return coll::Algorithm::Auto;
    case Impl::Pairwise: return coll::Algorithm::Pairwise;
    case Impl::Direct: return coll::Algorithm::Direct;
    case Impl::Ring:
    case Impl::Native: break;
  }
  return coll::Algorithm::Ring;
}

std::string_view to_string(TransportKind t) { return t == TransportKind::Mpi ? "mpi" : "nccl"; }

std::optional<TransportKind> parse_transport(std::string_view name) {
  if (name == "mpi") return TransportKind::Mpi;
  if (name == "nccl") return TransportKind::Nccl;
  return std::nullopt;
}

std::string_view to_string(Backend b) { return b == Backend::Cpu ? "cpu" : "cuda"; }

std::optional<Backend> parse_backend(std::string_view name) {
  if (name == "cpu") return Backend::Cpu;
  if (name == "cuda") return Backend::Cuda;
  return std::nullopt;
}

std::unique_ptr<coll::Collective> make_ring_collective(coll::CollectiveKind kind, coll::Transport& t,
                                                       coll::MemoryOps& m, const coll::RingOptions& ring) {
  return coll::make_collective(coll::Algorithm::Ring, kind, t, m, ring);
}

const coll::TuningTable& CommSetup::tuning() {
  if (!tuning_) {
    const TuningScope scope{std::string(transport().name()), memory().space() == coll::MemorySpace::Host ? "cpu" : "cuda", 0};
    tuning_ = std::make_shared<const coll::TuningTable>(applicable_tuning(builtin_tuning_table(), scope));
  }
  return *tuning_;
}

std::unique_ptr<coll::Collective> CommSetup::make_auto(coll::CollectiveKind kind, const coll::RingOptions& ring,
                                                       const std::vector<coll::Algorithm>& own,
                                                       coll::NativeFactory native) {
  return coll::make_auto_collective(kind, transport(), memory(), ring, tuning(), own, std::move(native));
}

namespace {

class HostMpiSetup final : public CommSetup {
 public:
  explicit HostMpiSetup(MPI_Comm comm) : comm_(comm), transport_(comm) {}
  coll::Transport& transport() override { return transport_; }
  coll::MemoryOps& memory() override { return memory_; }
  std::unique_ptr<coll::Collective> make(coll::CollectiveKind kind, Impl impl,
                                         const coll::RingOptions& ring) override {
    if (impl == Impl::Native) return std::make_unique<coll::MpiNativeCollective>(kind, comm_, ring.root);
    if (impl == Impl::Auto)
      return make_auto(kind, ring, {coll::Algorithm::Ring, coll::Algorithm::Pairwise, coll::Algorithm::Direct},
                       [this, kind, root = ring.root] {
                         return std::make_unique<coll::MpiNativeCollective>(kind, comm_, root);
                       });
    if (!coll::supports(own_algorithm(impl), kind))
      throw_usage("--impl {}: there is no {} {}", to_string(impl), to_string(impl), coll::to_string(kind));
    return coll::make_collective(own_algorithm(impl), kind, transport_, memory_, ring);
  }
  std::string describe(Impl impl) const override {
    return impl == Impl::Native ? "mpi" : std::string(to_string(impl)) + "/mpi";
  }

 private:
  MPI_Comm comm_;
  coll::MpiTransport transport_;
  coll::HostMemoryOps memory_;
};

}  // namespace

std::unique_ptr<CommSetup> make_host_mpi_setup(MPI_Comm comm) { return std::make_unique<HostMpiSetup>(comm); }

std::unique_ptr<CommSetup> make_comm_setup(Backend backend, TransportKind transport, MPI_Comm comm) {
  if (backend == Backend::Cpu) {
    if (transport != TransportKind::Mpi)
      throw_usage("--transport {} needs --backend cuda (NCCL moves device buffers)", to_string(transport));
    return make_host_mpi_setup(comm);
  }
  // Defined by the CUDA sources, or by cuda/unavailable.cpp (a UsageError) in builds without CUDA.
  return make_cuda_comm_setup(transport, comm);
}

}  // namespace shardroof

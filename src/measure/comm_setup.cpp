#include "measure/comm_setup.h"

#include <utility>

#include "collectives/algorithms.h"
#include "collectives/mpi_native.h"
#include "collectives/mpi_transport.h"
#include "cuda/cuda_api.h"
#include "measure/tuning_file.h"
#include "util/error.h"

namespace shardroof {

namespace {

// Each of ours and the algorithm it runs; its name is the algorithm's
// (collectives/algorithms.h). Native is the library's own, "native".
constexpr std::pair<Impl, coll::Algorithm> kOwn[] = {{Impl::Auto, coll::Algorithm::Auto},
                                                    {Impl::Ring, coll::Algorithm::Ring},
                                                    {Impl::Pairwise, coll::Algorithm::Pairwise},
                                                    {Impl::Direct, coll::Algorithm::Direct},
                                                    {Impl::Hier, coll::Algorithm::Hier}};
constexpr std::string_view kNativeName = "native";

}  // namespace

std::string_view to_string(Impl impl) {
  return impl == Impl::Native ? kNativeName : coll::to_string(own_algorithm(impl));
}

std::optional<Impl> parse_impl(std::string_view name) {
  if (name == kNativeName) return Impl::Native;
  if (const auto algorithm = coll::parse_algorithm(name))
    for (const auto& [impl, a] : kOwn)
      if (a == *algorithm) return impl;
  return std::nullopt;
}

coll::Algorithm own_algorithm(Impl impl) {
  for (const auto& [own, algorithm] : kOwn)
    if (own == impl) return algorithm;
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
  // Collective on `comm` (wait_policy_for): every rank builds its setup at the same point.
  explicit HostMpiSetup(MPI_Comm comm)
      : comm_(comm), transport_(comm, coll::MpiTransport::kMaxPieceBytes, coll::wait_policy_for(comm)) {}
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

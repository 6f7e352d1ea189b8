#include "measure/comm_setup.h"

#include <utility>

#include "collectives/algorithms.h"
#include "collectives/mpi_native.h"
#include "collectives/mpi_transport.h"
#include "util/error.h"

namespace shardroof {

const coll::TuningTable& CommSetup::tuning() const {
  static const coll::TuningTable none;
  return tuning_ ? *tuning_ : none;
}

std::unique_ptr<coll::Collective> CommSetup::make(coll::CollectiveKind kind, coll::Algorithm algorithm,
                                                  const coll::CollectiveOptions& ring) {
  return make_on(transport(), kind, algorithm, ring);
}

std::unique_ptr<coll::Collective> CommSetup::make_beside_compute(coll::CollectiveKind kind, coll::Algorithm algorithm,
                                                                 const coll::CollectiveOptions& ring) {
  coll::Transport* beside = beside_compute_transport();
  return make_on(beside ? *beside : transport(), kind, algorithm, ring);
}

std::unique_ptr<coll::Collective> CommSetup::make_on(coll::Transport& transport, coll::CollectiveKind kind,
                                                     coll::Algorithm algorithm, const coll::CollectiveOptions& ring) {
  const std::string_view name = coll::to_string(algorithm);
  if (algorithm == coll::Algorithm::Native) return make_native(kind, ring);
  if (algorithm == coll::Algorithm::Auto)
    return coll::make_auto_collective(kind, transport, memory(), ring, tuning(),
                                      coll::auto_candidates(kind, tag_matching(), ring, transport.size()),
                                      [this, kind, ring] { return make_native(kind, ring); });
  if (!coll::supports(algorithm, kind)) throw_usage("--impl {}: there is no {} {}", name, name, coll::to_string(kind));
  if (!tag_matching() && coll::own_algorithm_for(algorithm, kind)->needs_tag_matching)
    throw_usage("--impl {}: no {} {} over --transport {} (it relies on tag matching); use ring, direct, auto or "
                "native",
                name, name, coll::to_string(kind), transport.name());
  return coll::make_collective(algorithm, kind, transport, memory(), ring);
}

namespace {

class HostMpiSetup final : public CommSetup {
 public:
  // Collective on `comm` (wait_policy_for): every rank builds its setup at the same point.
  explicit HostMpiSetup(MPI_Comm comm)
      : comm_(comm), transport_(comm, coll::MpiTransport::kMaxPieceBytes, coll::wait_policy_for(comm)),
        beside_(comm, coll::MpiTransport::kMaxPieceBytes, coll::WaitPolicy::Sleep) {}
  coll::Transport& transport() override { return transport_; }
  coll::MemoryOps& memory() override { return memory_; }
  std::string describe(coll::Algorithm algorithm) const override {
    return algorithm == coll::Algorithm::Native ? "mpi" : std::string(coll::to_string(algorithm)) + "/mpi";
  }

 protected:
  std::unique_ptr<coll::Collective> make_native(coll::CollectiveKind kind, const coll::CollectiveOptions& ring) override {
    return std::make_unique<coll::MpiNativeCollective>(kind, comm_, ring.broadcast.root);
  }
  coll::Transport* beside_compute_transport() override { return &beside_; }

 private:
  MPI_Comm comm_;
  coll::MpiTransport transport_;
  coll::MpiTransport beside_;  // the same communicator; its waits sleep
  coll::HostMemoryOps memory_;
};

}  // namespace

std::unique_ptr<CommSetup> make_host_mpi_setup(MPI_Comm comm) { return std::make_unique<HostMpiSetup>(comm); }

}  // namespace shardroof

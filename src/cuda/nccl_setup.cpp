#include "cuda/nccl_setup.h"

#include <fmt/format.h>

#include <vector>

#include "collectives/cuda/nccl_comm.h"
#include "collectives/cuda/nccl_native.h"
#include "collectives/cuda/nccl_transport.h"
#include "collectives/traits.h"
#include "util/agreement.h"
#include "util/error.h"
#include "util/watchdog.h"

namespace shardroof {
namespace {

class NcclSetup final : public CommSetup {
 public:
  NcclSetup(std::shared_ptr<CudaRankContext> context, MPI_Comm comm)
      : context_(std::move(context)), comm_(comm, {coll::NcclMode::Blocking}), transport_(comm_, context_->stream()) {}
  coll::Transport& transport() override { return transport_; }
  coll::MemoryOps& memory() override { return context_->memory(); }
  std::string describe(coll::Algorithm algorithm) const override {
    return algorithm == coll::Algorithm::Native ? "nccl" : std::string(coll::to_string(algorithm)) + "/nccl";
  }

 protected:
  std::unique_ptr<coll::Collective> make_native(coll::CollectiveKind kind, const coll::CollectiveOptions& ring) override {
    return std::make_unique<coll::NcclNativeCollective>(kind, comm_, context_->memory(), ring.broadcast.root);
  }
  // NCCL matches messages between two ranks in posting order and has no
  // tags; an algorithm that keeps messages of two phases (tags) in flight
  // at once (pairwise ReduceScatter, AllGather, AllReduce) cannot run
  // here, and auto never picks it.
  bool tag_matching() const override { return false; }

 private:
  std::shared_ptr<CudaRankContext> context_;  // first: the stream outlives the communicator's work
  coll::NcclComm comm_;
  coll::NcclTransport transport_;
};

}  // namespace

std::unique_ptr<CommSetup> make_nccl_comm_setup(std::shared_ptr<CudaRankContext> context, MPI_Comm comm) {
  // NcclComm agrees on its own outcome across ranks (all or none succeed).
  // The communicator is blocking (timing runs want no asynchronous hand-off
  // at each group end), so a peer that never joins is the watchdog's to end.
  const WatchdogScope scope("NCCL communicator set-up");
  return std::make_unique<NcclSetup>(std::move(context), comm);
}

std::string nccl_version_text() { return "NCCL " + coll::nccl_runtime_version(); }

}  // namespace shardroof

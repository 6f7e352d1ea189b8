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
  std::unique_ptr<coll::Collective> make(coll::CollectiveKind kind, Impl impl,
                                         const coll::RingOptions& ring) override {
    if (impl == Impl::Native)
      return std::make_unique<coll::NcclNativeCollective>(kind, comm_, context_->memory(), ring.root);
    // NCCL matches messages between two ranks in posting order and has no
    // tags; an algorithm that keeps messages of two phases (tags) in flight
    // at once (pairwise ReduceScatter, AllGather, AllReduce) cannot run
    // here, and auto never picks it.
    if (impl == Impl::Auto) {
      std::vector<coll::Algorithm> own;
      for (const auto& a : coll::traits(kind).algorithms)
        if (!a.needs_tag_matching) own.push_back(a.algorithm);
      return make_auto(kind, ring, own, [this, kind, root = ring.root] {
        return std::make_unique<coll::NcclNativeCollective>(kind, comm_, context_->memory(), root);
      });
    }
    const coll::Algorithm algorithm = own_algorithm(impl);
    if (!coll::supports(algorithm, kind))
      throw_usage("--impl {}: there is no {} {}", to_string(impl), to_string(impl), coll::to_string(kind));
    if (coll::own_algorithm_for(algorithm, kind)->needs_tag_matching)
      throw_usage("--impl {}: no {} {} over --transport nccl (it relies on tag matching); use ring, direct, "
                  "auto or native",
                  to_string(impl), to_string(impl), coll::to_string(kind));
    return coll::make_collective(algorithm, kind, transport_, context_->memory(), ring);
  }
  std::string describe(Impl impl) const override {
    return impl == Impl::Native ? "nccl" : std::string(to_string(impl)) + "/nccl";
  }

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

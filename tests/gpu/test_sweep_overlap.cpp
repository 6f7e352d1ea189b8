// sweep --overlap on the CUDA backend: the chunks' GEMMs on a second stream,
// their collectives on the rank's stream after each chunk's event. The
// overlapped step must leave the distributed Z of the plain step, for both
// collectives, shapes whose ReduceScatter pieces start mid-row, over MPI and
// (with one GPU per rank and NCCL built) over NCCL.
#include <fmt/format.h>

#include <vector>

#include "../mpi_test_util.h"
#include "collectives/blocks.h"
#include "commands/backends.h"
#include "cpu/cpu_backend.h"
#include "cuda/cuda_api.h"
#include "gpu_test_util.h"
#include "sweep/product_reference.h"
#include "sweep/runner.h"
#include "util/error.h"

namespace shardroof::sweep {
namespace {

using testing::GpuTest;

class SweepOverlapGpuTest : public GpuTest {};

TEST_F(SweepOverlapGpuTest, ChunkedStepOnASecondStreamLeavesTheStepsZ) {
  const int ranks = testing::world_size();
  const int rank = testing::world_rank();
  auto backend = make_cuda_compute_backend(MPI_COMM_WORLD, {});
  auto reference = make_cpu_backend(1);
  struct Case {
    std::size_t B, F, D;
    int K;
  };
  const std::vector<Case> cases = {{7, 5, 13, 3}, {256, 192, 1000, 4}, {64, 64, 3, 64}};
  for (const auto transport : {TransportKind::Mpi, TransportKind::Nccl}) {
    std::unique_ptr<CommSetup> setup;
    try {
      setup = make_comm_setup(Backend::Cuda, transport, MPI_COMM_WORLD);
    } catch (const UsageError&) {
      // Every rank refuses alike: no NCCL in this build, or ranks share a GPU
      // without SHARDROOF_ALLOW_SHARED_GPU=1.
      continue;
    }
    for (const auto type : {coll::DataType::Float, coll::DataType::BFloat16}) {
      for (const auto kind : {coll::CollectiveKind::AllReduce, coll::CollectiveKind::ReduceScatter}) {
        for (const Case& c : cases) {
          SweepPlan plan;
          plan.B = c.B;
          plan.F = c.F;
          plan.D = {c.D};
          plan.type = type;
          plan.kind = kind;
          plan.backend = Backend::Cuda;
          plan.transport = transport;
          plan.timing = {1, 3};
          if (const int K = std::min<int>(c.K, static_cast<int>(max_chunks(c.B, c.F, ranks, kind))); K > 1)
            plan.overlap.chunks = {K};
          SweepRunner runner(plan, *backend, *setup, MPI_COMM_WORLD);
          std::vector<std::byte> block;
          const PointRecord rec = runner.measure_point(c.D, &block);
          const std::string what = fmt::format("{} {} over {} B={} F={} D={} K={} on {} ranks", coll::to_string(type),
                                               coll::to_string(kind), to_string(transport), c.B, c.F, c.D,
                                               plan.overlap.text(), ranks);
          const coll::BlockPartition zpart(c.B * c.F, ranks);
          const std::size_t first = kind == coll::CollectiveKind::ReduceScatter ? zpart.offset(rank) : 0;
          const double worst = worst_against_local_reference(*reference, plan, c.D, ranks, first, block);
          EXPECT_ALL_RANKS(worst < 1.0, what + fmt::format(": worst error / tolerance = {}", worst));
          EXPECT_TRUE(rec.check.passed()) << what;
          if (plan.overlap.enabled()) {
            ASSERT_TRUE(rec.t_overlap.has_value()) << what;
            EXPECT_GT(rec.t_overlap->median, 0) << what;
            EXPECT_TRUE(rec.overlap_check.checked && rec.overlap_check.passed())
                << what << ": " << rec.overlap_check.wrong << " wrong";
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace shardroof::sweep

// NCCL communicators in both modes run the same collective to the same
// result: blocking (what timing runs use) and non-blocking (polled against
// a deadline). Ranks may share a GPU (cuda/shared_gpu.h). Skipped without a GPU.
#include <cstdlib>
#include <vector>

#include "../mpi_test_util.h"
#include "collectives/check_pattern.h"
#include "collectives/cuda/cuda_handles.h"
#include "collectives/cuda/cuda_memory.h"
#include "collectives/cuda/nccl_comm.h"
#include "collectives/cuda/nccl_native.h"
#include "cuda/cuda_context.h"
#include "cuda/shared_gpu.h"
#include "gpu_test_util.h"

namespace shardroof {
namespace {

class NcclModesTest : public testing::GpuTest {};

TEST_F(NcclModesTest, BlockingAndNonBlockingCommunicatorsAgree) {
  setenv("SHARDROOF_ALLOW_SHARED_GPU", "1", 1);
  const DeviceChoice device = select_device_by_local_rank(MPI_COMM_WORLD);
  set_shared_gpu_host_id(device);
  const int rank = testing::world_rank(), n = testing::world_size();
  const std::size_t count = (1u << 20) + 5;
  std::vector<std::byte> host(count * 4);
  coll::fill_pattern(host.data(), count, 0, rank, n, coll::DataType::Float, coll::ReduceOp::Sum);
  coll::CudaStream stream;
  coll::CudaMemoryOps mem(stream.get());
  for (const auto mode : {coll::NcclMode::Blocking, coll::NcclMode::NonBlocking}) {
    coll::NcclComm comm(MPI_COMM_WORLD, {mode});
    EXPECT_EQ(comm.mode(), mode);
    coll::NcclNativeCollective all_reduce(coll::CollectiveKind::AllReduce, comm, mem);
    auto buf = mem.allocate(count * 4);
    mem.copy(buf->data(), host.data(), count * 4);
    all_reduce.run(buf->data(), buf->data(), count, coll::DataType::Float, coll::ReduceOp::Sum);
    std::vector<std::byte> got(count * 4);
    mem.copy(got.data(), buf->data(), count * 4);
    mem.synchronize();
    const auto wrong = coll::count_wrong(got.data(), {count, rank, n}, coll::CollectiveKind::AllReduce,
                                         coll::DataType::Float, coll::ReduceOp::Sum);
    EXPECT_ALL_RANKS(wrong == 0, std::to_string(wrong) + " wrong elements, " +
                                     (mode == coll::NcclMode::Blocking ? "blocking" : "non-blocking"));
  }
}

}  // namespace
}  // namespace shardroof

// Ring and native collectives on device buffers, over NCCL and over MPI
// (staged or CUDA-aware), checked with the exact-value pattern of
// check_pattern.h on every rank. Ranks may share a GPU in both: over NCCL
// through a distinct NCCL host id per rank sharing it (cuda/shared_gpu.h).
#include <cstdlib>
#include <vector>

#include "collectives/blocks.h"
#include "collectives/check_pattern.h"
#include "cuda/cuda_api.h"
#include "gpu_test_util.h"
#include "mpi_test_util.h"
#include "shardroof/config.h"

namespace shardroof {
namespace {

using coll::CollectiveKind;
using coll::DataType;
using coll::ReduceOp;

class DeviceCollectivesTest : public testing::GpuTest {
 protected:
  // Runs every kind x impl x type x op x count, in and out of place; returns
  // the number of wrong elements on this rank.
  static std::size_t run_all(CommSetup& setup) {
    auto& mem = setup.memory();
    const int rank = setup.transport().rank();
    const int n = setup.transport().size();
    coll::RingOptions ring;
    ring.segment_bytes = 4096;  // many segments: exercises the pipelining
    std::size_t wrong = 0;
    for (const auto kind : {CollectiveKind::AllReduce, CollectiveKind::ReduceScatter, CollectiveKind::AllGather}) {
      for (const Impl impl : {Impl::Ring, Impl::Native}) {
        auto collective = setup.make(kind, impl, ring);
        for (const DataType type : {DataType::Float, DataType::Double, DataType::BFloat16, DataType::Half,
                                    DataType::Int32}) {
          for (const ReduceOp op : {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Max, ReduceOp::Min, ReduceOp::Avg}) {
            if (kind == CollectiveKind::AllGather && op != ReduceOp::Sum) continue;
            for (const std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{1000},
                                            std::size_t{(1u << 20) + 3}}) {
              for (const bool in_place : {false, true}) {
                wrong += run_one(*collective, mem, kind, type, op, count, in_place, rank, n);
              }
            }
          }
        }
      }
    }
    return wrong;
  }

  static std::size_t run_one(coll::Collective& c, coll::MemoryOps& mem, CollectiveKind kind, DataType type,
                             ReduceOp op, std::size_t count, bool in_place, int rank, int n) {
    const std::size_t es = coll::size_of(type);
    const coll::BlockPartition part(count, n);
    const std::size_t off = part.offset(rank), mine = part.size(rank);
    const bool rs = kind == CollectiveKind::ReduceScatter, ag = kind == CollectiveKind::AllGather;
    std::vector<std::byte> host(count * es + 1);
    coll::fill_pattern(host.data(), count, 0, rank, n, type, op);
    auto full = mem.allocate(count * es);
    auto out = mem.allocate(count * es);
    auto* f = static_cast<std::byte*>(full->data());
    const void* send = f;
    void* recv = out->data();
    if (ag && !in_place) {
      mem.copy(f, host.data() + off * es, mine * es);
    } else {
      mem.copy(f, host.data(), count * es);
    }
    if (in_place) {
      recv = rs ? f + off * es : f;
      send = ag ? f + off * es : f;
    }
    c.run(send, recv, count, type, op);
    const std::size_t out_count = rs ? mine : count;
    std::vector<std::byte> got(out_count * es + 1);
    mem.copy(got.data(), recv, out_count * es);
    mem.synchronize();
    return coll::count_wrong(got.data(), {count, rank, n}, kind, type, op);
  }
};

TEST_F(DeviceCollectivesTest, RingAndNativeOverMpiWithDeviceBuffers) {
  setenv("SHARDROOF_ALLOW_SHARED_GPU", "1", 1);
  std::unique_ptr<CommSetup> setup = make_cuda_comm_setup(TransportKind::Mpi, MPI_COMM_WORLD);
  const auto wrong = run_all(*setup);
  EXPECT_ALL_RANKS(wrong == 0, std::to_string(wrong) + " wrong elements over " + setup->describe(Impl::Ring));
}

TEST_F(DeviceCollectivesTest, RingAndNativeOverNccl) {
  if (!SHARDROOF_WITH_NCCL) GTEST_SKIP() << "built without NCCL";
  setenv("SHARDROOF_ALLOW_SHARED_GPU", "1", 1);
  std::unique_ptr<CommSetup> setup = make_cuda_comm_setup(TransportKind::Nccl, MPI_COMM_WORLD);
  const auto wrong = run_all(*setup);
  EXPECT_ALL_RANKS(wrong == 0, std::to_string(wrong) + " wrong elements over NCCL");
}

}  // namespace
}  // namespace shardroof

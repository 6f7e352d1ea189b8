// Every collective, ours and native, on device buffers, over NCCL and over MPI
// (staged or CUDA-aware), checked with the exact-value pattern of
// check_pattern.h on every rank. Ranks may share a GPU in both: over NCCL
// through a distinct NCCL host id per rank sharing it (cuda/shared_gpu.h).
#include <algorithm>
#include <cstdlib>
#include <vector>

#include "collectives/check_pattern.h"
#include "collectives/traits.h"
#include "cuda/cuda_api.h"
#include "gpu_test_util.h"
#include "mpi_test_util.h"
#include "shardroof/config.h"

namespace shardroof {
namespace {

using coll::DataType;
using coll::ReduceOp;

class DeviceCollectivesTest : public testing::GpuTest {
 protected:
  // Runs every collective x impl (our main algorithm, native) x type x op
  // x count, in and out of place; returns the number of wrong elements on
  // this rank.
  static std::size_t run_all(CommSetup& setup) {
    auto& mem = setup.memory();
    const int rank = setup.transport().rank();
    const int n = setup.transport().size();
    coll::CollectiveOptions ring;
    ring.segment_bytes = 4096;  // many segments: exercises the pipelining
    std::size_t wrong = 0;
    for (const coll::CollectiveTraits& t : coll::all_collectives()) {
      const coll::Algorithm ours = *coll::parse_algorithm(coll::to_string(t.algorithms.front().algorithm));
      for (const coll::Algorithm impl : {ours, coll::Algorithm::Native}) {
        auto collective = setup.make(t.kind, impl, ring);
        for (const DataType type : {DataType::Float, DataType::Double, DataType::BFloat16, DataType::Half,
                                    DataType::Int32}) {
          for (const ReduceOp op : {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Max, ReduceOp::Min, ReduceOp::Avg}) {
            if (!t.reduces && op != ReduceOp::Sum) continue;
            for (const std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{1000},
                                            std::size_t{(1u << 20) + 3}}) {
              for (const bool in_place : {false, true}) {
                wrong += run_one(*collective, mem, t, type, op, count, in_place, rank, n);
              }
            }
          }
        }
      }
    }
    return wrong;
  }

  // Buffers shaped by the collective's traits (collectives/traits.h).
  static std::size_t run_one(coll::Collective& c, coll::MemoryOps& mem, const coll::CollectiveTraits& t,
                             DataType type, ReduceOp op, std::size_t count, bool in_place, int rank, int n) {
    const std::size_t es = coll::size_of(type);
    const coll::CallShape shape{count, rank, n};
    const coll::InPlaceLayout layout = t.in_place(shape);
    const std::size_t in_count = t.input_count(shape), out_count = t.output_count(shape);
    std::vector<std::byte> host(std::max(layout.buffer, in_count) * es + 1);
    auto buffer = mem.allocate(layout.buffer * es);
    auto in = mem.allocate(in_count * es);
    auto out = mem.allocate(out_count * es);
    const void* send = in->data();
    void* recv = out->data();
    if (in_place) {
      coll::fill_pattern(host.data(), layout.buffer, 0, rank, n, type, op);
      mem.copy(buffer->data(), host.data(), layout.buffer * es);
      auto* b = static_cast<std::byte*>(buffer->data());
      send = b + layout.send_offset * es;
      recv = b + layout.recv_offset * es;
    } else {
      coll::fill_pattern(host.data(), in_count, t.input_first(shape), rank, n, type, op);
      mem.copy(in->data(), host.data(), in_count * es);
    }
    c.run(send, recv, count, type, op);
    std::vector<std::byte> got(out_count * es + 1);
    mem.copy(got.data(), recv, out_count * es);
    mem.synchronize();
    return coll::count_wrong(got.data(), shape, t.kind, type, op);
  }
};

TEST_F(DeviceCollectivesTest, RingAndNativeOverMpiWithDeviceBuffers) {
  setenv("SHARDROOF_ALLOW_SHARED_GPU", "1", 1);
  std::unique_ptr<CommSetup> setup = make_cuda_comm_setup(TransportKind::Mpi, MPI_COMM_WORLD);
  const auto wrong = run_all(*setup);
  EXPECT_ALL_RANKS(wrong == 0, std::to_string(wrong) + " wrong elements over " + setup->describe(coll::Algorithm::Ring));
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

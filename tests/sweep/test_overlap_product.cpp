// sweep --overlap on 1-4 ranks: the chunked step must leave the distributed
// Z of the unchunked step (checked by the built-in check and against a
// single-rank reference), for K = 1, K dividing the rows or not, K equal to
// the rows, both collectives, D with uneven and empty shards; and a chunk
// made wrong on purpose must fail the check.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <vector>

#include "../mpi_test_util.h"
#include "collectives/blocks.h"
#include "cpu/cpu_backend.h"
#include "product_reference.h"
#include "sweep/runner.h"

namespace shardroof::sweep {
namespace {

struct Case {
  std::size_t B, F, D;
  int K;
};

SweepPlan overlap_plan(const Case& c, coll::DataType type, coll::CollectiveKind kind, coll::Algorithm impl) {
  SweepPlan plan;
  plan.B = c.B;
  plan.F = c.F;
  plan.D = {c.D};
  plan.type = type;
  plan.kind = kind;
  plan.impl = impl;
  plan.timing = {1, 2};
  if (c.K > 1) plan.overlap.chunks = {c.K};
  return plan;
}

void expect_overlapped_product_right(ComputeBackend& backend, CommSetup& setup, const Case& c, coll::DataType type,
                                     coll::CollectiveKind kind, coll::Algorithm impl) {
  const int ranks = testing::world_size();
  const int rank = testing::world_rank();
  const SweepPlan plan = overlap_plan(c, type, kind, impl);
  SweepRunner runner(plan, backend, setup, MPI_COMM_WORLD);
  std::vector<std::byte> block;
  const PointRecord rec = runner.measure_point(c.D, &block);
  const std::string what = fmt::format("{} {} {} B={} F={} D={} K={} on {} ranks", coll::to_string(type),
                                       coll::to_string(kind), to_string(impl), c.B, c.F, c.D, c.K, ranks);
  const coll::BlockPartition zpart(c.B * c.F, ranks);
  const bool scatter = kind == coll::CollectiveKind::ReduceScatter;
  const std::size_t first = scatter ? zpart.offset(rank) : 0;
  const std::size_t expect = (scatter ? zpart.size(rank) : c.B * c.F) * coll::size_of(type);
  const double worst = worst_against_local_reference(backend, plan, c.D, ranks, first, block);
  EXPECT_ALL_RANKS(block.size() == expect, what + ": block size");
  EXPECT_ALL_RANKS(worst < 1.0, what + fmt::format(": worst error / tolerance = {}", worst));
  EXPECT_TRUE(rec.check.checked && rec.check.passed()) << what << ": the step's check failed";
  if (c.K == 1) {
    EXPECT_FALSE(rec.t_overlap.has_value()) << what << ": K = 1 has no overlapped step";
    EXPECT_FALSE(rec.overlap_check.checked) << what;
    return;
  }
  ASSERT_TRUE(rec.t_overlap.has_value()) << what;
  EXPECT_TRUE(rec.overlap_check.checked && rec.overlap_check.passed())
      << what << ": the overlapped step's check failed, " << rec.overlap_check.wrong << " wrong";
  EXPECT_GT(rec.overlap_check.tested, 0) << what;
  EXPECT_GT(rec.t_overlap->median, 0) << what;
  EXPECT_LE(rec.t_overlap->min, rec.t_overlap->median) << what;
  EXPECT_LE(rec.t_overlap->median, rec.t_overlap->max) << what;
}

TEST(OverlapProduct, ChunkedStepLeavesTheDistributedZOfTheStep) {
  auto backend = make_cpu_backend(1);
  auto setup = make_host_mpi_setup(MPI_COMM_WORLD);
  // B = 7: K = 2 and 3 do not divide the rows, K = 7 is one row per chunk.
  // B = 8: K = 4 divides them. D = 1 leaves ranks without a shard, D = 13
  // gives uneven shards (ceil(D/N)) on 2-4 ranks.
  std::vector<Case> cases;
  for (const std::size_t D : {1, 13, 64}) {
    for (const int K : {1, 2, 3, 7}) cases.push_back({7, 5, D, K});
    cases.push_back({8, 6, D, 4});
  }
  for (const auto kind : {coll::CollectiveKind::AllReduce, coll::CollectiveKind::ReduceScatter}) {
    for (const auto& c : cases) expect_overlapped_product_right(*backend, *setup, c, coll::DataType::Float, kind, coll::Algorithm::Ring);
    // The other datatypes and the library's collectives, on one shape.
    for (const auto type : {coll::DataType::Double, coll::DataType::BFloat16})
      expect_overlapped_product_right(*backend, *setup, {7, 5, 13, 3}, type, kind, coll::Algorithm::Ring);
    expect_overlapped_product_right(*backend, *setup, {7, 5, 13, 3}, coll::DataType::Float, kind, coll::Algorithm::Native);
  }
}

// Each edit makes one chunk wrong in a different way; the check after the
// overlapped step must count wrong elements, while the step's own check,
// made before, still passes.
TEST(OverlapProduct, AWrongChunkFailsTheCheck) {
  auto backend = make_cpu_backend(1);
  auto setup = make_host_mpi_setup(MPI_COMM_WORLD);
  const Case c{8, 6, 13, 3};
  struct Edit {
    const char* what;
    SweepRunner::ChunkEdit edit;
  };
  const std::vector<Edit> edits = {
      // The last chunk reduced into the first one's place: the last stays unwritten.
      {"last chunk received in the first's place", [](std::vector<Chunk>& chunks) { chunks.back().recv = chunks.front().recv; }},
      // The first block computes the next row of Z in its place.
      {"first block computes the wrong row",
       [&](std::vector<Chunk>& chunks) {
         ChunkBlock& b = chunks.front().blocks.front();
         b.row = (b.row + 1) % c.B;
       }},
      // The middle chunk's GEMM is never run.
      {"middle chunk without its GEMM", [](std::vector<Chunk>& chunks) { chunks[1].blocks.clear(); }},
  };
  for (const auto kind : {coll::CollectiveKind::AllReduce, coll::CollectiveKind::ReduceScatter}) {
    for (const auto& e : edits) {
      const SweepPlan plan = overlap_plan(c, coll::DataType::Float, kind, coll::Algorithm::Ring);
      SweepRunner runner(plan, *backend, *setup, MPI_COMM_WORLD);
      const PointRecord rec = runner.measure_point(c.D, nullptr, e.edit);
      const std::string what = fmt::format("{}: {}", coll::to_string(kind), e.what);
      EXPECT_TRUE(rec.check.passed()) << what << ": the step's own check should not be affected";
      ASSERT_TRUE(rec.t_overlap.has_value()) << what;
      EXPECT_TRUE(rec.overlap_check.checked) << what;
      EXPECT_GT(rec.overlap_check.wrong, 0) << what << ": the wrong chunk went unnoticed";
      EXPECT_FALSE(rec.overlap_check.passed()) << what;
    }
  }
}

}  // namespace
}  // namespace shardroof::sweep

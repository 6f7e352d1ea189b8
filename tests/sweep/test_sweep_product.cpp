// The distributed product of a sweep point against a single-rank reference:
// every rank computes the whole Z = X @ Y locally (the same operands, from
// the seed) and compares it with the part of the distributed Z it holds.
// Runs on 1-4 ranks, with D divisible by N or not, D < N (idle ranks), both
// collectives, both implementations and the three datatypes.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "collectives/blocks.h"
#include "cpu/cpu_backend.h"
#include "../mpi_test_util.h"
#include "product_reference.h"
#include "sweep/check.h"
#include "sweep/operands.h"
#include "sweep/runner.h"

namespace shardroof::sweep {
namespace {

struct Case {
  std::size_t B, F, D;
};

TEST(SweepProduct, DistributedZMatchesASingleRankReference) {
  const int ranks = testing::world_size();
  const int rank = testing::world_rank();
  auto backend = make_cpu_backend(1);
  auto setup = make_host_mpi_setup(MPI_COMM_WORLD);
  const std::vector<Case> cases = {{6, 5, 1}, {6, 5, 3}, {7, 9, 13}, {8, 8, 64}, {16, 12, 101}};
  for (const auto type : {coll::DataType::Float, coll::DataType::Double, coll::DataType::BFloat16}) {
    for (const auto kind : {coll::CollectiveKind::AllReduce, coll::CollectiveKind::ReduceScatter}) {
      for (const auto impl : {coll::Algorithm::Ring, coll::Algorithm::Native}) {
        for (const auto& c : cases) {
          SweepPlan plan;
          plan.B = c.B;
          plan.F = c.F;
          plan.type = type;
          plan.kind = kind;
          plan.impl = impl;
          plan.timing = {0, 1};
          plan.D = {c.D};
          SweepRunner runner(plan, *backend, *setup, MPI_COMM_WORLD);
          std::vector<std::byte> block;
          const auto rec = runner.measure_point(c.D, &block);
          const coll::BlockPartition zpart(c.B * c.F, ranks);
          const bool scatter = kind == coll::CollectiveKind::ReduceScatter;
          const std::size_t first = scatter ? zpart.offset(rank) : 0;
          const std::size_t expect = (scatter ? zpart.size(rank) : c.B * c.F) * coll::size_of(type);
          const double worst = worst_against_local_reference(*backend, plan, c.D, ranks, first, block);
          const std::string what = fmt::format("{} {} {} B={} F={} D={} on {} ranks", coll::to_string(type),
                                               coll::to_string(kind), to_string(impl), c.B, c.F, c.D, ranks);
          EXPECT_ALL_RANKS(block.size() == expect, what + ": block size");
          EXPECT_ALL_RANKS(worst < 1.0, what + fmt::format(": worst error / tolerance = {}", worst));
          EXPECT_TRUE(rec.check.checked && rec.check.passed()) << what << ": the built-in check failed";
          EXPECT_EQ(rec.shard_max, coll::BlockPartition(c.D, ranks).max_size()) << what;
        }
      }
    }
  }
}

TEST(SweepProduct, FreivaldsPathPassesOnLargeShapesAndCatchesAnError) {
  const int ranks = testing::world_size();
  auto backend = make_cpu_backend(1);
  auto setup = make_host_mpi_setup(MPI_COMM_WORLD);
  SweepPlan plan;
  plan.B = 64;
  plan.F = 48;
  const std::size_t D = 6000;  // B*D*F above the full-reference limit
  ASSERT_GT(static_cast<double>(plan.B * D * plan.F), kFullReferenceMacs);
  plan.kind = coll::CollectiveKind::ReduceScatter;
  plan.timing = {0, 1};
  plan.D = {D};
  SweepRunner runner(plan, *backend, *setup, MPI_COMM_WORLD);
  std::vector<std::byte> block;
  const auto rec = runner.measure_point(D, &block);
  EXPECT_EQ(rec.check.method, "freivalds");
  EXPECT_TRUE(rec.check.passed());
  EXPECT_GT(rec.check.tested, 0);

  // A single wrong element in this rank's block must be caught.
  const coll::BlockPartition zpart(plan.B * plan.F, ranks);
  const int rank = testing::world_rank();
  auto* z = reinterpret_cast<float*>(block.data());
  const std::size_t n = zpart.size(rank);
  bool caught = true;
  if (n > 0) {
    z[n / 2] += 8.0f;
    const auto bad = check_product_block(block.data(), plan.type, plan.seed, plan.B, D, plan.F, zpart.offset(rank), n, ranks);
    caught = bad.wrong == 1;
  }
  EXPECT_ALL_RANKS(caught, "a corrupted element went unnoticed");
}

}  // namespace
}  // namespace shardroof::sweep

// sweep --sharding fsdp's distributed product against a single-rank
// reference: every rank computes the whole Z = X @ W locally (the same
// operands, from the seed) and compares its B/N rows. Runs on 1-4 ranks,
// weights whose D*F does not divide by N (uneven blocks of the gather),
// ring, pairwise and native AllGather, the three datatypes, with and
// without --overlap prefetch; and a weight made wrong after the gather,
// which the check must catch.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "cpu/cpu_backend.h"
#include "../mpi_test_util.h"
#include "sweep/check.h"
#include "sweep/operands.h"
#include "sweep/runner.h"

namespace shardroof::sweep {
namespace {

// Largest |rows - reference| / (tolerance * sum|x||w|) over this rank's rows
// [first_row, first_row + rows) of the whole Z.
double worst_rows(ComputeBackend& backend, const SweepPlan& plan, std::size_t B, std::size_t first_row,
                  const std::vector<std::byte>& rows) {
  const std::size_t es = coll::size_of(plan.type), D = plan.fsdp_D, F = plan.F;
  std::vector<std::byte> x(B * D * es + 1), w(D * F * es + 1), z(B * F * es + 1);
  fill_x_rows(x.data(), plan.type, plan.seed, D, 0, B);
  fill_y_elements(w.data(), plan.type, plan.seed, F, 0, D * F);
  backend.gemm(B, F, D, x.data(), w.data(), z.data(), plan.type);
  const double tol = 2 * product_tolerance(plan.type, D, 1);
  double worst = 0;
  const std::size_t first = first_row * F;
  for (std::size_t i = 0; i < rows.size() / es; ++i) {
    const std::size_t b = (first + i) / F, f = (first + i) % F;
    double scale = 0;
    for (std::size_t d = 0; d < D; ++d)
      scale += std::fabs(operand_value(plan.seed, Operand::X, b, d) * operand_value(plan.seed, Operand::Y, d, f));
    const double err = std::fabs(element_value(rows.data(), plan.type, i) - element_value(z.data(), plan.type, first + i));
    worst = std::max(worst, scale > 0 ? err / (tol * scale) : (err > 0 ? INFINITY : 0));
  }
  return worst;
}

SweepPlan fsdp_plan(std::size_t D, std::size_t F, coll::DataType type, coll::Algorithm impl) {
  SweepPlan plan;
  plan.sharding = model::Sharding::Fsdp;
  plan.kind = coll::CollectiveKind::AllGather;
  plan.fsdp_D = D;
  plan.F = F;
  plan.type = type;
  plan.impl = impl;
  plan.timing = {0, 1};
  return plan;
}

TEST(FsdpProduct, RowsOfZMatchASingleRankReference) {
  const int ranks = testing::world_size();
  const int rank = testing::world_rank();
  auto backend = make_cpu_backend(1);
  auto setup = make_host_mpi_setup(MPI_COMM_WORLD);
  struct Case {
    std::size_t rows_per_rank, D, F;
  };
  // D*F = 7*5 and 13*9 leave uneven blocks of the weight on 2-4 ranks.
  const std::vector<Case> cases = {{1, 7, 5}, {3, 13, 9}, {4, 64, 8}};
  for (const auto type : {coll::DataType::Float, coll::DataType::Double, coll::DataType::BFloat16}) {
    for (const auto impl : {coll::Algorithm::Ring, coll::Algorithm::Pairwise, coll::Algorithm::Native}) {
      for (const bool prefetch : {false, true}) {
        for (const auto& c : cases) {
          SweepPlan plan = fsdp_plan(c.D, c.F, type, impl);
          plan.prefetch.enabled = prefetch;
          plan.prefetch.layers = 3;
          const std::size_t B = c.rows_per_rank * static_cast<std::size_t>(ranks);
          plan.D = {B};
          SweepRunner runner(plan, *backend, *setup, MPI_COMM_WORLD);
          std::vector<std::byte> rows;
          const auto rec = runner.measure_point(B, &rows);
          const std::string what =
              fmt::format("{} {} {} B={} D={} F={} on {} ranks", coll::to_string(type), to_string(impl),
                          prefetch ? "prefetch" : "plain", B, c.D, c.F, ranks);
          const double worst = worst_rows(*backend, plan, B, c.rows_per_rank * static_cast<std::size_t>(rank), rows);
          EXPECT_ALL_RANKS(rows.size() == c.rows_per_rank * c.F * coll::size_of(type), what + ": rows size");
          EXPECT_ALL_RANKS(worst < 1.0, what + fmt::format(": worst error / tolerance = {}", worst));
          EXPECT_TRUE(rec.check.checked && rec.check.passed()) << what << ": the built-in check failed";
          EXPECT_EQ(rec.shard_max, c.rows_per_rank) << what;
          EXPECT_EQ(rec.prefetch.has_value(), prefetch) << what;
          if (prefetch) {
            EXPECT_EQ(rec.prefetch->layers, 3) << what;
            EXPECT_EQ(rec.prefetch->gather_alone_s.size(), 3u) << what;
            EXPECT_TRUE(rec.prefetch->check.checked && rec.prefetch->check.passed()) << what << ": the layers' check";
            EXPECT_GT(rec.prefetch->t_prefetch.median, 0) << what;
          }
        }
      }
    }
  }
}

TEST(FsdpProduct, TheChecksCatchAWrongWeightAndAWrongRow) {
  const int ranks = testing::world_size();
  const SweepPlan plan = fsdp_plan(24, 16, coll::DataType::Float, coll::Algorithm::Ring);
  const std::size_t D = plan.fsdp_D, F = plan.F;
  // A weight as the gather leaves it, one element off: the exact check counts it.
  std::vector<float> w(D * F);
  fill_y_elements(w.data(), plan.type, plan.seed, F, 0, D * F);
  EXPECT_EQ(check_gathered_weight(w.data(), plan.type, plan.seed, D, F).wrong, 0);
  w[D * F / 2] += 1.0f / 64;
  const LocalCheck bad_w = check_gathered_weight(w.data(), plan.type, plan.seed, D, F);
  EXPECT_EQ(bad_w.wrong, 1);
  EXPECT_EQ(bad_w.tested, static_cast<long long>(D * F));
  // Rows of Z computed with another layer's weights (seed + 1) fail the product check.
  auto backend = make_cpu_backend(1);
  const std::size_t B = 2 * static_cast<std::size_t>(ranks);
  std::vector<float> x(B * D), other(D * F), z(B * F);
  fill_x_rows(x.data(), plan.type, plan.seed, D, 0, B);
  fill_y_elements(other.data(), plan.type, plan.seed + 1, F, 0, D * F);
  backend->gemm(B, F, D, x.data(), other.data(), z.data(), plan.type);
  EXPECT_GT(check_product_block(z.data(), plan.type, plan.seed, plan.seed, B, D, F, 0, B * F, 1).wrong, 0);
  EXPECT_EQ(check_product_block(z.data(), plan.type, plan.seed, plan.seed + 1, B, D, F, 0, B * F, 1).wrong, 0);
}

}  // namespace
}  // namespace shardroof::sweep

// The sweep's distributed product against a single-rank reference, for the
// MPI tests: the whole Z = X @ Y computed locally from the seed, compared
// with the part of the distributed Z a rank holds.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "compute/compute_backend.h"
#include "sweep/check.h"
#include "sweep/operands.h"
#include "sweep/plan.h"

namespace shardroof::sweep {

// Largest |distributed - reference| / (tolerance * sum|x||y|) over `block`,
// elements [first, first + block size) of Z.
inline double worst_against_local_reference(ComputeBackend& backend, const SweepPlan& plan, std::size_t D, int ranks,
                                            std::size_t first, const std::vector<std::byte>& block) {
  const std::size_t es = coll::size_of(plan.type);
  std::vector<std::byte> x(plan.B * D * es + 1), y(D * plan.F * es + 1), z(plan.B * plan.F * es + 1);
  fill_x_shard(x.data(), plan.type, plan.seed, plan.B, {0, D});
  fill_y_shard(y.data(), plan.type, plan.seed, plan.F, {0, D});
  backend.gemm(plan.B, plan.F, D, x.data(), y.data(), z.data(), plan.type);
  // Both sides are rounded: the reference in one GEMM over all of D.
  const double tol = 2 * product_tolerance(plan.type, D, ranks);
  double worst = 0;
  const std::size_t count = block.size() / es;
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t b = (first + i) / plan.F, f = (first + i) % plan.F;
    double scale = 0;
    for (std::size_t d = 0; d < D; ++d)
      scale += std::fabs(operand_value(plan.seed, Operand::X, b, d) * operand_value(plan.seed, Operand::Y, d, f));
    const double err = std::fabs(element_value(block.data(), plan.type, i) - element_value(z.data(), plan.type, first + i));
    worst = std::max(worst, scale > 0 ? err / (tol * scale) : (err > 0 ? INFINITY : 0));
  }
  return worst;
}

}  // namespace shardroof::sweep

// The second sharding (fsdp: the batch split, the weights gathered before
// the matmul) in the model: the ring AllGather's T_comm, the crossover B*
// and its per-rank rule against hand-computed values and the book's
// "tokens per device", both cases on every link of a preset, and the
// prefetch pipeline (two weight buffers) against its recurrence.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "model/hardware.h"
#include "model/pipeline.h"
#include "model/roofline.h"
#include "model/sharding_links.h"

namespace shardroof::model {
namespace {

// The fsdp shape: Shape::B holds the whole D, the weight is D x F.
Shape fsdp(int ranks, double s, double D, double F) {
  Shape sh;
  sh.sharding = Sharding::Fsdp;
  sh.collective = Collective::AllGather;
  sh.ranks = ranks;
  sh.bytes_per_elem = s;
  sh.B = D;
  sh.F = F;
  return sh;
}

Ceilings ceilings(double C, double W, double a = 0, double g = 0, double M = 0) {
  Ceilings c;
  c.flops_per_s = C;
  c.link_bytes_per_s = W;
  c.latency_s = a;
  c.reduce_s_per_elem = g;
  c.memory_bytes_per_s = M;
  return c;
}

// N = 4, float, C = 1e12, W = 1e10, a = 1e-6, D = F = 1000:
//   T_comm = (N-1)*a + (N-1)/N*D*F*s/W = 3e-6 + 0.75*4e6/1e10 = 3e-6 + 3e-4 = 3.03e-4 s
//   B*     = (N-1)*s*C/(2W) + N(N-1)*a*C/(2*D*F) = 600 + 12*1e6/2e6 = 600 + 6 = 606 (the whole batch)
//   B*/N   = C*s*(N-1)/(2*N*W) + (N-1)*a*C/(2*D*F) = 150 + 1.5 = 151.5
// and g (a reduction) plays no part: a gather reduces nothing.
TEST(FsdpModel, AllGatherCrossoverByHand) {
  const Shape sh = fsdp(4, 4, 1000, 1000);
  const Ceilings c = ceilings(1e12, 1e10, 1e-6, 1e-9);
  EXPECT_NEAR(t_comm(sh, c), 3.03e-4, 1e-12);
  EXPECT_NEAR(d_star_bandwidth(sh, c), 600, 1e-9);
  EXPECT_NEAR(d_star(sh, c), 606, 1e-9);
  EXPECT_NEAR(d_star(sh, c) / sh.ranks, 151.5, 1e-9);
  // T_math = T_comm exactly at B*: 2*(B*/N)*D*F/C (continuous in B; t_math
  // itself counts whole rows of the slowest rank, ceil(B/N)).
  EXPECT_NEAR(2 * 151.5 * 1000 * 1000 / 1e12, t_comm(sh, c), 1e-12);
  EXPECT_NEAR(t_math_compute_only(sh, c, 606), 2 * 152 * 1000 * 1000 / 1e12, 1e-12);
  // Intensity: FLOPs per rank over bytes each rank sends, 2*(B/N)*D*F / ((N-1)/N*D*F*s) = 2B/((N-1)*s).
  EXPECT_NEAR(intensity(sh, 600), 2 * 600 / (3.0 * 4), 1e-12);
  EXPECT_EQ(to_string(Collective::AllGather), "all_gather");
  EXPECT_EQ(swept_name(Sharding::Fsdp), "B");
  EXPECT_EQ(whole_name(Sharding::Fsdp), "D");
}

// The book's rule: for bf16 and many ranks the batch per rank must exceed
// C/W. A TPU v5p, 4.59e14 FLOP/s, over ICI counted both ways (1.8e11 B/s):
// about 2,550 tokens per device. D and F cancel in the bandwidth term.
TEST(FsdpModel, BookTokensPerDevice) {
  const int N = 1 << 20;
  const Ceilings c = ceilings(4.59e14, 1.8e11);
  EXPECT_NEAR(d_star_bandwidth(fsdp(N, 2, 8192, 8192), c) / N, 2550, 1);
  EXPECT_DOUBLE_EQ(d_star(fsdp(2, 2, 8192, 8192), c), d_star(fsdp(2, 2, 7, 13), c));
}

// predict --hw h100 --sharding fsdp (bf16, N = 2, D = F = 1024):
//   NVLink (W 4.5e11, a 3.4 us):  B*/N = 9.89e14*2*1/(2*2*4.5e11) = 1098.89
//                                       + 3.4e-6*9.89e14/(2*1048576) = 1603.41  -> 2702.30
//                                 D* contracting = 1*2*9.89e14/4.5e11 = 4395.56
//   InfiniBand (5e10, 9.6 us):    B*/N = 9890 + 9.6e-6*9.89e14/2097152 = 9890 + 4527.28 = 14417.28
//                                 D* contracting = 2*9.89e14/5e10 = 39560
TEST(FsdpModel, H100LinksByHand) {
  const HardwarePreset hw = load_hardware_preset("h100");
  const Ceilings c = preset_ceilings(hw, "nvlink", "bfloat16");
  const auto rows = link_crossovers(fsdp(2, 2, 1024, 1024), c, &hw, "nvlink", false);
  ASSERT_EQ(rows.size(), hw.links.size());
  EXPECT_EQ(rows.front().link, "nvlink");  // the table's link first
  EXPECT_NEAR(rows.front().b_star_per_rank_bandwidth, 1098.89, 0.01);
  EXPECT_NEAR(rows.front().b_star_per_rank, 2702.30, 0.01);
  EXPECT_NEAR(rows.front().d_star_bandwidth, 4395.56, 0.01);
  bool ib = false;
  for (const auto& r : rows)
    if (r.link == "infiniband") {
      ib = true;
      EXPECT_NEAR(r.b_star_per_rank_bandwidth, 9890, 0.01);
      EXPECT_NEAR(r.b_star_per_rank, 14417.28, 0.01);
      EXPECT_NEAR(r.d_star_bandwidth, 39560, 0.01);
      EXPECT_NEAR(r.critical_intensity, 9.89e14 / 5e10, 1e-6);
    }
  EXPECT_TRUE(ib);
  // Flags that replaced the link: that one link alone.
  EXPECT_EQ(link_crossovers(fsdp(2, 2, 1024, 1024), c, &hw, "nvlink", true).size(), 1u);
}

// The two-buffer prefetch against its recurrence, by hand.
TEST(FsdpModel, PrefetchEqualLayersFollowTheBookPipeline) {
  // c + (L-1)*max(c, g) + g: gather-bound and GEMM-bound.
  EXPECT_DOUBLE_EQ(prefetch_time({3, 3, 3, 3}, {1, 1, 1, 1}), 3 + 3 * 3 + 1);
  EXPECT_DOUBLE_EQ(prefetch_time({1, 1, 1, 1}, {3, 3, 3, 3}), 1 + 3 * 3 + 3);
  EXPECT_DOUBLE_EQ(prefetch_time({}, {}), 0);
  EXPECT_THROW(prefetch_time({1}, {1, 2}), std::invalid_argument);
}

TEST(FsdpModel, PrefetchWaitsForTheBufferTwoLayersBack) {
  // gather: 1, 1, 1; GEMM: 5, 1, 1.
  //   gather_end: 1; max(1, 0) + 1 = 2; max(2, gemm_end(0) = 6) + 1 = 7 (its buffer is layer 0's)
  //   gemm_end:   1 + 5 = 6; max(6, 2) + 1 = 7; max(7, 7) + 1 = 8
  EXPECT_DOUBLE_EQ(prefetch_time({1, 1, 1}, {5, 1, 1}), 8);
  const PrefetchPrediction p = predict_prefetch(2, 1, {1, 1, 1}, {2, 2, 2});
  EXPECT_EQ(p.layers, 3);
  EXPECT_DOUBLE_EQ(p.t_no_overlap, 9);
  EXPECT_DOUBLE_EQ(p.t_ideal, 3 * 2 + 1);
  EXPECT_DOUBLE_EQ(p.t_predicted, 1 + 2 + 2 + 2);
}

}  // namespace
}  // namespace shardroof::model

#include <gtest/gtest.h>

#include <cmath>

#include "link/alpha_beta_fit.h"

using shardroof::link::fit_alpha_beta;

namespace {

std::vector<std::uint64_t> sizes_8B_to_64MiB() {
  std::vector<std::uint64_t> n;
  for (std::uint64_t b = 8; b <= (64ull << 20); b *= 4) n.push_back(b);
  return n;
}

}  // namespace

TEST(AlphaBetaFit, RecoversExactModel) {
  const double alpha = 3e-6;
  const double W = 12.5e9;
  const auto n = sizes_8B_to_64MiB();
  std::vector<double> t;
  for (auto b : n) t.push_back(alpha + static_cast<double>(b) / W);
  const auto fit = fit_alpha_beta(n, t);
  ASSERT_TRUE(fit.valid);
  EXPECT_NEAR(fit.alpha_s, alpha, alpha * 1e-9);
  EXPECT_NEAR(fit.W_bytes_per_s, W, W * 1e-9);
  EXPECT_NEAR(fit.beta_s_per_byte * fit.W_bytes_per_s, 1.0, 1e-12);
  EXPECT_FALSE(fit.alpha_clamped);
  EXPECT_LT(fit.max_rel_residual, 1e-9);
}

TEST(AlphaBetaFit, MultiplicativeNoiseKeepsBothParameters) {
  // +-5% alternating noise: relative weights keep alpha from the small
  // sizes and W from the large ones, each within a few percent.
  const double alpha = 20e-6;
  const double W = 1.2e8;
  const auto n = sizes_8B_to_64MiB();
  std::vector<double> t;
  for (std::size_t i = 0; i < n.size(); ++i)
    t.push_back((alpha + static_cast<double>(n[i]) / W) * (i % 2 ? 1.05 : 0.95));
  const auto fit = fit_alpha_beta(n, t);
  ASSERT_TRUE(fit.valid);
  EXPECT_NEAR(fit.alpha_s, alpha, 0.1 * alpha);
  EXPECT_NEAR(fit.W_bytes_per_s, W, 0.1 * W);
  EXPECT_NEAR(fit.max_rel_residual, 0.05, 0.03);
}

TEST(AlphaBetaFit, NegativeInterceptIsClampedToZero) {
  // Times proportional to size but a little super-linear: the free fit's
  // intercept is negative, so alpha is pinned at zero and W refitted.
  const std::vector<std::uint64_t> n{1000, 2000, 4000};
  const std::vector<double> t{0.9e-6, 2.0e-6, 4.2e-6};
  const auto fit = fit_alpha_beta(n, t);
  ASSERT_TRUE(fit.valid);
  EXPECT_TRUE(fit.alpha_clamped);
  EXPECT_EQ(fit.alpha_s, 0.0);
  EXPECT_GT(fit.W_bytes_per_s, 0.9e9);
  EXPECT_LT(fit.W_bytes_per_s, 1.1e9);
}

TEST(AlphaBetaFit, TwoPointsAreEnough) {
  const auto fit = fit_alpha_beta({100, 1100}, {2e-6, 3e-6});
  ASSERT_TRUE(fit.valid);
  EXPECT_NEAR(fit.alpha_s, 1.9e-6, 1e-12);
  EXPECT_NEAR(fit.W_bytes_per_s, 1e9, 1e-3);
}

TEST(AlphaBetaFit, InvalidWithoutTwoDistinctSizesOrGrowth) {
  EXPECT_FALSE(fit_alpha_beta({}, {}).valid);
  EXPECT_FALSE(fit_alpha_beta({64}, {1e-6}).valid);
  EXPECT_FALSE(fit_alpha_beta({64, 64}, {1e-6, 2e-6}).valid);
  // Times that fall with size: no positive beta exists.
  EXPECT_FALSE(fit_alpha_beta({64, 1 << 20}, {2e-6, 1e-6}).valid);
  // Non-positive times are ignored, leaving one point.
  EXPECT_FALSE(fit_alpha_beta({64, 128}, {0.0, 1e-6}).valid);
}

// `sweep --model-hw`: flag resolution and the comparison records.
#include <gtest/gtest.h>

#include <string>

#include "report/preset_report.h"
#include "util/error.h"

namespace shardroof {
namespace {

TEST(PresetReport, NoModelHwIsNothing) {
  EXPECT_FALSE(resolve_model_hardware("", "", "float").has_value());
  EXPECT_THROW(resolve_model_hardware("", "nvlink", "float"), UsageError);
}

TEST(PresetReport, ResolvesPresetLinkAndDatatype) {
  const auto target = resolve_model_hardware("h100", "infiniband", "float");
  ASSERT_TRUE(target.has_value());
  EXPECT_EQ(target->link, "infiniband");
  EXPECT_EQ(target->ceilings.flops_per_s, 6.7e13);
  EXPECT_EQ(target->ceilings.link_bytes_per_s, 5e10);
  EXPECT_EQ(target->ceilings.latency_s, 9.6e-6);
  EXPECT_EQ(resolve_model_hardware("tpu-v5e", "", "bfloat16")->link, "ici");  // default link
}

TEST(PresetReport, BadInputNamesTheSweepFlags) {
  for (const auto& [hw, link, type] : {std::tuple<std::string, std::string, std::string>{"h100", "ici", "float"},
                                       {"no-such-chip", "", "float"},
                                       {"tpu-v5e", "ici", "float"}}) {
    try {
      resolve_model_hardware(hw, link, type);
      ADD_FAILURE() << hw << " " << link << " " << type << ": no error";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("--model-hw " + hw), std::string::npos) << e.what();
    }
  }
}

// 2 ranks, float, B = F = 1024; this machine: C = 1e11, W = 5e9, a = 2e-5;
// hybrid with the H100's NVLink (W = 4.5e11, a = 3.4e-6):
//   D* = 1*4*1e11/4.5e11 + 2*1*3.4e-6*1e11/1048576
TEST(PresetReport, HybridKeepsTheMeasuredGemm) {
  model::Shape shape;
  shape.ranks = 2;
  shape.bytes_per_elem = 4;
  shape.B = 1024;
  shape.F = 1024;
  model::Ceilings measured;
  measured.flops_per_s = 1e11;
  measured.link_bytes_per_s = 5e9;
  measured.latency_s = 2e-5;
  const auto target = resolve_model_hardware("h100", "nvlink", "float");
  const auto cmp = compare_sweep_with_preset(shape, measured, *target, {64, 128, 256});
  EXPECT_NEAR(cmp.hybrid.d_star, 4e11 / 4.5e11 + 6.8e5 / 1048576.0, 1e-9);
  EXPECT_NEAR(cmp.preset.d_star_bandwidth, 4 * 6.7e13 / 4.5e11, 1e-9);
  EXPECT_EQ(cmp.measured.points.size(), 3u);
  const auto j = preset_comparison_json(*target, cmp);
  EXPECT_EQ(j["preset"], "h100");
  EXPECT_EQ(j["hybrid"]["points"].size(), 3u);
  EXPECT_DOUBLE_EQ(j["hybrid"]["D_star"].get<double>(), cmp.hybrid.d_star);
}

}  // namespace
}  // namespace shardroof

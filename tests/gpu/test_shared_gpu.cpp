// Several ranks on one GPU over NCCL: which ranks get which NCCL host id,
// and when the environment is touched (cuda/shared_gpu.h). No GPU needed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <string>

#include "cuda/shared_gpu.h"

namespace shardroof {
namespace {

DeviceChoice node(int local_rank, int local_size, int devices) {
  DeviceChoice d;
  d.local_rank = local_rank;
  d.local_size = local_size;
  d.device_count = devices;
  d.device = devices > 0 ? local_rank % devices : 0;
  d.host = "node7";
  return d;
}

TEST(SharedGpu, RanksOnOneGpuGetDistinctHostIdsRanksOnDistinctGpusShareOne) {
  // 6 ranks, 2 GPUs: GPU 0 holds ranks 0, 2, 4; GPU 1 holds 1, 3, 5.
  std::set<std::pair<int, std::string>> gpu_and_id;
  for (int r = 0; r < 6; ++r) {
    const auto d = node(r, 6, 2);
    EXPECT_TRUE(ranks_share_gpus(d));
    gpu_and_id.insert({d.device, shared_gpu_host_id(d.host, "boot", r, 2)});
  }
  EXPECT_EQ(gpu_and_id.size(), 6u) << "two ranks on one GPU with one host id: NCCL would refuse them";
  // Ranks 0 and 1 (one round, distinct GPUs) look like one host.
  EXPECT_EQ(shared_gpu_host_id("node7", "boot", 0, 2), shared_gpu_host_id("node7", "boot", 1, 2));
  EXPECT_NE(shared_gpu_host_id("node7", "boot", 1, 2), shared_gpu_host_id("node7", "boot", 2, 2));
  // Another node never shares an id with this one.
  EXPECT_NE(shared_gpu_host_id("node7", "boot", 0, 1), shared_gpu_host_id("node8", "boot", 0, 1));
  EXPECT_EQ(shared_gpu_host_id("node7", "b0", 3, 1), "node7:b0:shared-gpu-round-3");
}

TEST(SharedGpu, EnvironmentTouchedOnlyWhenRanksShareAndNoIdIsSet) {
  unsetenv("NCCL_HOSTID");
  EXPECT_FALSE(ranks_share_gpus(node(0, 2, 2)));
  EXPECT_EQ(set_shared_gpu_host_id(node(1, 2, 2)), "");
  EXPECT_EQ(std::getenv("NCCL_HOSTID"), nullptr);

  const std::string id = set_shared_gpu_host_id(node(1, 2, 1));
  EXPECT_NE(id.find("shared-gpu-round-1"), std::string::npos) << id;
  ASSERT_NE(std::getenv("NCCL_HOSTID"), nullptr);
  EXPECT_EQ(std::string(std::getenv("NCCL_HOSTID")), id);

  // A user's own NCCL_HOSTID is kept.
  setenv("NCCL_HOSTID", "mine", 1);
  EXPECT_EQ(set_shared_gpu_host_id(node(1, 2, 1)), "");
  EXPECT_EQ(std::string(std::getenv("NCCL_HOSTID")), "mine");
  unsetenv("NCCL_HOSTID");
}

}  // namespace
}  // namespace shardroof

// The NCCL communicator's configuration: blocking for timing runs, non-
// blocking (polled against a deadline) where asked. No GPU needed: the
// configuration is built without calling NCCL.
#include <gtest/gtest.h>

#include "collectives/cuda/nccl_comm.h"

namespace shardroof::coll {
namespace {

TEST(NcclConfig, BlockingByDefaultNonBlockingWhereAsked) {
  const ncclConfig_t initial = NCCL_CONFIG_INITIALIZER;
  const ncclConfig_t blocking = nccl_config({});
  EXPECT_EQ(NcclCommOptions{}.mode, NcclMode::Blocking);
  EXPECT_EQ(blocking.blocking, 1);
  EXPECT_EQ(nccl_config({NcclMode::NonBlocking}).blocking, 0);
  // Everything else is NCCL's default.
  EXPECT_EQ(blocking.size, initial.size);
  EXPECT_EQ(blocking.magic, initial.magic);
  EXPECT_EQ(blocking.version, initial.version);
  EXPECT_EQ(blocking.minCTAs, initial.minCTAs);
  EXPECT_EQ(blocking.netName, initial.netName);
}

}  // namespace
}  // namespace shardroof::coll

// BlockPartition: every collective and the D-sharding rely on these blocks
// being balanced, contiguous and covering the whole array.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>

#include "collectives/blocks.h"

namespace shardroof::coll {
namespace {

// Checks the invariants of a partition of `count` into `parts` blocks.
void expect_valid(std::size_t count, int parts) {
  SCOPED_TRACE(::testing::Message() << "count " << count << ", parts " << parts);
  const BlockPartition p(count, parts);
  ASSERT_EQ(p.count(), count);
  ASSERT_EQ(p.parts(), parts);
  const std::size_t base = count / static_cast<std::size_t>(parts);
  const std::size_t extra = count % static_cast<std::size_t>(parts);
  std::size_t next = 0;
  std::size_t biggest = 0;
  for (int i = 0; i < parts; ++i) {
    const auto k = static_cast<std::size_t>(i);
    // Contiguous: each block starts where the previous one ended.
    EXPECT_EQ(p.offset(i), next) << "block " << i;
    // Balanced: the first count % parts blocks hold one element more.
    EXPECT_EQ(p.size(i), base + (k < extra ? 1 : 0)) << "block " << i;
    next += p.size(i);
    biggest = std::max(biggest, p.size(i));
  }
  EXPECT_EQ(next, count);  // the blocks cover the array exactly
  EXPECT_EQ(p.max_size(), biggest);
  // No two blocks differ by more than one element.
  EXPECT_LE(p.size(0) - p.size(parts - 1), 1u);
}

TEST(BlockPartition, EdgeCountsForEveryPartCount) {
  for (int parts = 1; parts <= 9; ++parts) {
    const auto n = static_cast<std::size_t>(parts);
    for (std::size_t count : {std::size_t{0}, std::size_t{1}, n - 1, n, n + 1, 2 * n - 1, 2 * n + 1,
                              std::size_t{7919}, std::size_t{1048579}}) {
      expect_valid(count, parts);
    }
  }
}

TEST(BlockPartition, ZeroCountGivesEmptyBlocks) {
  const BlockPartition p(0, 4);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(p.size(i), 0u);
    EXPECT_EQ(p.offset(i), 0u);
  }
  EXPECT_EQ(p.max_size(), 0u);
}

TEST(BlockPartition, FewerElementsThanParts) {
  const BlockPartition p(2, 5);
  EXPECT_EQ(p.size(0), 1u);
  EXPECT_EQ(p.size(1), 1u);
  EXPECT_EQ(p.size(2), 0u);
  EXPECT_EQ(p.offset(2), 2u);
  EXPECT_EQ(p.offset(4), 2u);
  EXPECT_EQ(p.max_size(), 1u);
}

TEST(BlockPartition, KnownSplit) {
  // 10 over 4: 3 3 2 2 at 0 3 6 8.
  const BlockPartition p(10, 4);
  EXPECT_EQ(p.size(0), 3u);
  EXPECT_EQ(p.size(1), 3u);
  EXPECT_EQ(p.size(2), 2u);
  EXPECT_EQ(p.size(3), 2u);
  EXPECT_EQ(p.offset(1), 3u);
  EXPECT_EQ(p.offset(2), 6u);
  EXPECT_EQ(p.offset(3), 8u);
}

TEST(BlockPartition, LargeCountsStay64Bit) {
  // Past 2^32 elements: offsets must not wrap in 32-bit arithmetic.
  const std::size_t big = (std::size_t{1} << 33) + 12345;
  for (int parts : {1, 2, 3, 4, 7, 1024}) expect_valid(big, parts);
  const BlockPartition p(big, 3);
  EXPECT_EQ(p.offset(2), p.size(0) + p.size(1));
  EXPECT_GT(p.offset(2), std::size_t{1} << 32);
  expect_valid(std::size_t{1} << 40, 5);
}

TEST(BlockPartition, NonPositivePartsActAsOne) {
  const BlockPartition p(17, 0);
  EXPECT_EQ(p.parts(), 1);
  EXPECT_EQ(p.size(0), 17u);
  EXPECT_EQ(p.offset(0), 0u);
}

}  // namespace
}  // namespace shardroof::coll

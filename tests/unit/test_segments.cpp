// Segment sizes of the segmented algorithms (collectives/segments.h): a
// pinned size is used exactly; the automatic one cuts each block into the
// fewest equal segments under the cap, so time per byte has no step where a
// block grows past a multiple of a fixed segment.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>

#include "collectives/memory.h"
#include "collectives/segments.h"

namespace shardroof::coll {
namespace {

TEST(SegmentElements, PinnedSizeIsUsedExactlyInWholeElements) {
  EXPECT_EQ(segment_elements(1000000, 4, 1 << 20, 4096), std::size_t{1} << 18);
  EXPECT_EQ(segment_elements(10, 4, 1 << 20, 4096), std::size_t{1} << 18);  // larger than the block: one segment
  EXPECT_EQ(segment_elements(1000, 8, 1023, 4096), 127u);                  // rounded down to whole elements
  EXPECT_EQ(segment_elements(1000, 8, 3, 4096), 1u);                       // never less than one element
}

TEST(SegmentElements, AutomaticSizeCutsABlockIntoEqualSegmentsUnderTheCap) {
  // A block within the cap is one segment.
  EXPECT_EQ(segment_elements(100, 4, 0, 1024), 100u);
  EXPECT_EQ(segment_elements(256, 4, 0, 1024), 256u);
  // Just past the cap: two equal halves, not a full segment and a sliver.
  EXPECT_EQ(segment_elements(257, 4, 0, 1024), 129u);
  // 2.25 caps: three segments of 0.75 caps each.
  EXPECT_EQ(segment_elements(576, 4, 0, 1024), 192u);
  for (std::size_t block = 1; block < 5000; block += 37) {
    const std::size_t seg = segment_elements(block, 2, 0, 512);
    const std::size_t n = segment_count(block, seg);
    EXPECT_LE(seg * 2, 512u) << block;
    // Equal segments: the last one is short by less than one element per segment.
    EXPECT_GT(block - (n - 1) * seg + n, seg) << block;
    // The fewest that fit under the cap.
    EXPECT_EQ(n, segment_count(block, 256)) << block;
  }
  EXPECT_EQ(segment_elements(0, 4, 0, 1024), 1u);
  EXPECT_EQ(segment_count(0, 1), 0u);
}

TEST(SegmentElements, TheHostCapComesFromTheCache) {
  const std::size_t cap = host_segment_cap_bytes();
  EXPECT_GT(cap, 0u);
  EXPECT_EQ(HostMemoryOps().max_segment_bytes(), cap);
}

TEST(HostAllocation, LargeAllocationsSitOnHugePageBoundariesAndSmallOnesStayPlain) {
  const std::size_t huge = transparent_huge_page_bytes();
  HostAllocation tiny(16);
  EXPECT_EQ(tiny.bytes(), 16u);
  HostAllocation empty(0);
  EXPECT_NE(empty.data(), nullptr);
  HostAllocation big(3 << 20);
  EXPECT_EQ(big.bytes(), std::size_t{3} << 20);
  if (huge > 0) {
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(big.data()) % huge, 0u);
  }
  // The memory is usable to its last byte.
  static_cast<unsigned char*>(big.data())[big.bytes() - 1] = 1;
}

}  // namespace
}  // namespace shardroof::coll

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <limits>
#include <string>

#include "util/error.h"
#include "util/memory_budget.h"

namespace shardroof {
namespace {

std::string write_meminfo(const std::string& text) {
  const std::string path = ::testing::TempDir() + "/meminfo-" +
                           ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::ofstream(path) << text;
  return path;
}

TEST(MemoryBudget, ReadsMemAvailableInKibibytes) {
  const auto path = write_meminfo("MemTotal:       24000000 kB\nMemFree:  100 kB\nMemAvailable:   20000000 kB\n");
  const auto bytes = mem_available_bytes(path);
  ASSERT_TRUE(bytes.has_value());
  EXPECT_EQ(*bytes, 20000000ull * 1024);
}

TEST(MemoryBudget, UnknownWithoutTheField) {
  EXPECT_FALSE(mem_available_bytes(write_meminfo("MemTotal: 100 kB\n")).has_value());
  EXPECT_FALSE(mem_available_bytes("/no/such/meminfo").has_value());
}

TEST(MemoryBudget, ThisMachineHasAValue) { EXPECT_TRUE(mem_available_bytes().has_value()); }

TEST(MemoryBudget, AcceptsWhatFitsAndSaysHowMuchIsNeededOtherwise) {
  NodeMemory node;
  node.available_bytes = 10ull << 30;  // 10 GiB
  node.ranks_on_node = 4;
  EXPECT_NO_THROW(require_memory(node, 2ull << 30, "--maxbytes 2G"));  // 8 GiB of 9 usable
  try {
    require_memory(node, 3ull << 30, "--maxbytes 3G");  // 12 GiB
    FAIL() << "no error";
  } catch (const UsageError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("--maxbytes 3G needs about 3 GiB of memory per rank, 12 GiB for the 4 ranks on this node"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("only 9 GiB is available"), std::string::npos) << m;
  }
}

TEST(MemoryBudget, UnknownMemoryIsNotAnError) {
  NodeMemory node;
  node.ranks_on_node = 2;
  EXPECT_NO_THROW(require_memory(node, std::numeric_limits<std::uint64_t>::max(), "anything"));
}

TEST(MemoryBudget, AbsurdSizesSaturateInsteadOfWrapping) {
  constexpr auto kMax = std::numeric_limits<std::uint64_t>::max();
  EXPECT_EQ(saturating_mul(kMax / 2, 3), kMax);
  EXPECT_EQ(saturating_add(kMax - 1, 5), kMax);
  EXPECT_EQ(saturating_mul(6, 7), 42u);
  NodeMemory node;
  node.available_bytes = 1ull << 40;
  node.ranks_on_node = 1024;
  EXPECT_THROW(require_memory(node, kMax / 512, "huge"), UsageError);
}

}  // namespace
}  // namespace shardroof

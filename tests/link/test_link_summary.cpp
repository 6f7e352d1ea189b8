#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>

#include "link/link_summary.h"
#include "link/pairs.h"
#include "util/error.h"

using namespace shardroof;
using namespace shardroof::link;

TEST(Pairs, AllPairsInOrder) {
  const auto p = all_pairs(4);
  ASSERT_EQ(p.size(), 6u);
  EXPECT_EQ(p.front(), (RankPair{0, 1}));
  EXPECT_EQ(p.back(), (RankPair{2, 3}));
  EXPECT_TRUE(all_pairs(1).empty());
}

TEST(Pairs, SampleIsDistinctSortedAndSeeded) {
  const auto a = sample_pairs(100, 50, 7);
  ASSERT_EQ(a.size(), 50u);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_LT(a[i].src, a[i].dst);
    EXPECT_LT(a[i].dst, 100);
    if (i > 0) {
      EXPECT_TRUE(std::make_pair(a[i - 1].src, a[i - 1].dst) < std::make_pair(a[i].src, a[i].dst));
    }
  }
  EXPECT_EQ(a, sample_pairs(100, 50, 7));
  EXPECT_NE(a, sample_pairs(100, 50, 8));
  EXPECT_EQ(sample_pairs(4, 100, 1), all_pairs(4));
}

TEST(LinkSummary, ClassesAndModelLinkPreferCrossNode) {
  const std::vector<PairFit> fits{
      {0, 1, true, true, 1e-6, 10e9}, {0, 2, false, true, 5e-6, 1e9}, {1, 2, false, true, 7e-6, 3e9},
      {0, 3, false, true, 6e-6, 2e9}, {2, 3, true, false, 0, 0}};
  const auto s = summarize(fits);
  EXPECT_EQ(s.same_node.pairs, 2);
  EXPECT_EQ(s.same_node.fitted, 1);
  EXPECT_EQ(s.cross_node.pairs, 3);
  EXPECT_EQ(s.cross_node.fitted, 3);
  EXPECT_DOUBLE_EQ(s.cross_node.W_bytes_per_s.median, 2e9);
  EXPECT_DOUBLE_EQ(s.cross_node.W_bytes_per_s.min, 1e9);
  EXPECT_DOUBLE_EQ(s.cross_node.alpha_s.max, 7e-6);
  const auto m = model_link(fits);
  EXPECT_EQ(m.source, "cross_node");
  EXPECT_DOUBLE_EQ(m.W_bytes_per_s, 2e9);
  EXPECT_DOUBLE_EQ(m.alpha_s, 6e-6);
  EXPECT_EQ(m.pairs, 3);
}

TEST(LinkSummary, SameNodeOnlyAndNoFit) {
  const auto m = model_link({{0, 1, true, true, 2e-6, 4e9}, {0, 2, true, true, 4e-6, 8e9}});
  EXPECT_EQ(m.source, "same_node");
  EXPECT_DOUBLE_EQ(m.W_bytes_per_s, 6e9);
  EXPECT_DOUBLE_EQ(m.alpha_s, 3e-6);
  EXPECT_THROW(model_link({{0, 1, true, false, 0, 0}}), RuntimeError);
}

class LoadLinkFit : public ::testing::Test {
 protected:
  std::string path_ = ::testing::TempDir() + "link_fit_" + std::to_string(::getpid()) + ".json";
  void write(const std::string& text) { std::ofstream(path_) << text; }
  void TearDown() override { std::remove(path_.c_str()); }
};

TEST_F(LoadLinkFit, ReadsPairsAndChoosesCrossNode) {
  write(R"({"command":"link","pairs":[
    {"src":0,"dst":1,"same_node":true,"alpha_s":1e-6,"W_bytes_per_s":1e10},
    {"src":0,"dst":2,"same_node":false,"alpha_s":3e-5,"W_bytes_per_s":1.2e8},
    {"src":1,"dst":2,"same_node":false,"alpha_s":null,"W_bytes_per_s":null}]})");
  const auto m = load_link_fit(path_);
  EXPECT_EQ(m.source, "cross_node");
  EXPECT_EQ(m.pairs, 1);
  EXPECT_DOUBLE_EQ(m.W_bytes_per_s, 1.2e8);
  EXPECT_DOUBLE_EQ(m.alpha_s, 3e-5);
}

TEST_F(LoadLinkFit, RejectsBadFilesWithUsageErrors) {
  EXPECT_THROW(load_link_fit(path_ + ".missing"), UsageError);
  write("not json");
  EXPECT_THROW(load_link_fit(path_), UsageError);
  write(R"({"command":"coll","results":[]})");
  EXPECT_THROW(load_link_fit(path_), UsageError);
  write(R"({"pairs":[{"src":0,"dst":1,"alpha_s":1e-6,"W_bytes_per_s":1e9}]})");  // no same_node
  try {
    load_link_fit(path_);
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("same_node"), std::string::npos) << e.what();
  }
  write(R"({"pairs":[{"src":0,"dst":1,"same_node":true,"alpha_s":1e-6,"W_bytes_per_s":-5}]})");
  EXPECT_THROW(load_link_fit(path_), UsageError);
  write(R"({"pairs":[{"src":0,"dst":1,"same_node":true,"alpha_s":null,"W_bytes_per_s":null}]})");
  EXPECT_THROW(load_link_fit(path_), UsageError);
}

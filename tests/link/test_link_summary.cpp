#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>

#include "link/link_summary.h"
#include "link/pairs.h"
#include "link/patterns.h"
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
  EXPECT_EQ(m.pattern, "pingpong");  // a file that names no pattern
}

TEST_F(LoadLinkFit, KeepsTheFilesPattern) {
  write(R"({"command":"link","pattern":"shift","pairs":[
    {"src":1,"dst":0,"same_node":true,"alpha_s":2e-6,"W_bytes_per_s":4e9,"W_loaded_over_idle":0.5}]})");
  EXPECT_EQ(load_link_fit(path_).pattern, "shift");
  write(R"({"command":"link","pattern":"mesh","pairs":[
    {"src":1,"dst":0,"same_node":true,"alpha_s":2e-6,"W_bytes_per_s":4e9}]})");
  EXPECT_THROW(load_link_fit(path_), UsageError);
}

TEST(Patterns, NamesRoundTrip) {
  for (const auto p : {Pattern::PingPong, Pattern::Bidir, Pattern::Shift, Pattern::Ring}) {
    EXPECT_EQ(parse_pattern(to_string(p)), p);
    EXPECT_FALSE(describe(p).empty());
  }
  EXPECT_FALSE(parse_pattern("mesh"));
  EXPECT_FALSE(is_loaded(Pattern::PingPong));
  EXPECT_TRUE(is_loaded(Pattern::Bidir));
  EXPECT_FALSE(all_ranks_at_once(Pattern::Bidir));
  EXPECT_TRUE(all_ranks_at_once(Pattern::Ring));
}

TEST(Patterns, ShiftsAndIdleReferencePairs) {
  EXPECT_EQ(pattern_shifts(Pattern::Shift, 4), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(pattern_shifts(Pattern::Ring, 4), (std::vector<int>{1}));
  EXPECT_TRUE(pattern_shifts(Pattern::PingPong, 4).empty());
  // Shift joins every pair; ring the neighbours (on 2 ranks one pair, both ways).
  EXPECT_EQ(idle_reference_pairs(Pattern::Shift, 4, {}), all_pairs(4));
  EXPECT_EQ(idle_reference_pairs(Pattern::Ring, 2, {}), (std::vector<RankPair>{{0, 1}}));
  EXPECT_EQ(idle_reference_pairs(Pattern::Ring, 4, {}), (std::vector<RankPair>{{0, 1}, {0, 3}, {1, 2}, {2, 3}}));
  // Bidir: its own pairs (a sample stays a sample).
  EXPECT_EQ(idle_reference_pairs(Pattern::Bidir, 4, {{1, 3}}), (std::vector<RankPair>{{1, 3}}));
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

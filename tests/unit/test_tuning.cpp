// Tuning tables and `auto`: rule lookup, the choice among what can be
// built, table files (TOML) and their errors, the built-in table, and the
// tuner's decisions on measurements (ranking, pruning, rules).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "collectives/auto_collective.h"
#include "tuning/tuner.h"
#include "tuning/tuning_file.h"
#include "tuning/tuning_sources.h"
#include "util/error.h"

namespace shardroof {
namespace {

using coll::CollectiveKind;
using coll::kNoUpperBound;
using coll::TuningRule;
using coll::TuningTable;

TuningTable two_rank_table() {
  TuningTable t;
  t.rules = {{CollectiveKind::AllReduce, 2, kNoUpperBound, {"ring"}, 0},
             {CollectiveKind::AllReduce, 2, 64, {"native", "direct"}, 0},
             {CollectiveKind::AllReduce, 2, 4096, {"pairwise"}, 65536},
             {CollectiveKind::ReduceScatter, 2, kNoUpperBound, {"pairwise"}, 0}};
  t.sort();
  return t;
}

TEST(TuningTable, ARuleCoversTheSizesAboveThePreviousOneUpToItsMaximum) {
  const TuningTable t = two_rank_table();
  EXPECT_EQ(t.rule_for(CollectiveKind::AllReduce, 2, 0)->order.front(), "native");
  EXPECT_EQ(t.rule_for(CollectiveKind::AllReduce, 2, 64)->order.front(), "native");
  EXPECT_EQ(t.rule_for(CollectiveKind::AllReduce, 2, 65)->order.front(), "pairwise");
  EXPECT_EQ(t.rule_for(CollectiveKind::AllReduce, 2, 4097)->order.front(), "ring");
  EXPECT_EQ(t.rule_for(CollectiveKind::AllReduce, 2, kNoUpperBound)->order.front(), "ring");
  EXPECT_EQ(t.rule_for(CollectiveKind::AllReduce, 3, 8), nullptr);
  EXPECT_EQ(t.rule_for(CollectiveKind::AllGather, 2, 8), nullptr);
  const auto rules = t.rules_for(CollectiveKind::AllReduce, 2);
  ASSERT_EQ(rules.size(), 3u);
  EXPECT_EQ(rules[0].max_bytes, 64u);
  EXPECT_EQ(rules[2].max_bytes, kNoUpperBound);
}

TEST(TuningTable, MergeReplacesTheMeasuredRangeAndKeepsTheRest) {
  TuningTable t = two_rank_table();
  t.measured.push_back({2, {CollectiveKind::AllReduce, CollectiveKind::ReduceScatter}, 8, 8192, {{"host", "old"}}});
  // A new measurement of all_reduce on 2 ranks from 1 KiB to 1 MiB.
  TuningTable fresh;
  fresh.rules = {{CollectiveKind::AllReduce, 2, 2048, {"direct"}, 0},
                 {CollectiveKind::AllReduce, 2, kNoUpperBound, {"ring"}, 0},
                 {CollectiveKind::AllReduce, 4, kNoUpperBound, {"native"}, 0}};
  fresh.measured.push_back({2, {CollectiveKind::AllReduce}, 1024, 1 << 20, {{"host", "new"}}});
  t.merge(2, {CollectiveKind::AllReduce}, 1024, 1 << 20, fresh);
  const auto first = [&](std::uint64_t bytes) { return t.rule_for(CollectiveKind::AllReduce, 2, bytes)->order.front(); };
  EXPECT_EQ(first(8), "native");      // below the range: kept
  EXPECT_EQ(first(1023), "pairwise");  // cut at the range's start
  EXPECT_EQ(first(1024), "direct");
  EXPECT_EQ(first(2049), "ring");
  EXPECT_EQ(first(std::uint64_t{1} << 40), "ring");  // above what either measured: the new choice at 1 MiB
  EXPECT_EQ(t.rules_for(CollectiveKind::AllReduce, 2).size(), 4u);
  EXPECT_EQ(t.rules_for(CollectiveKind::ReduceScatter, 2).size(), 1u);  // another collective: kept
  EXPECT_TRUE(t.rules_for(CollectiveKind::AllReduce, 4).empty());       // another rank count: not merged
  // The old origin still describes what is left of its range.
  ASSERT_EQ(t.measured.size(), 2u);
  EXPECT_EQ(t.origin_for(CollectiveKind::AllReduce, 2)->get("host"), "old");
  EXPECT_EQ(t.origin_for(CollectiveKind::ReduceScatter, 2)->get("host"), "old");

  // An old measurement that reached further keeps its rules there.
  TuningTable wide = two_rank_table();
  wide.measured.push_back({2, {CollectiveKind::AllReduce}, 8, std::uint64_t{1} << 30, {{"host", "wide"}}});
  TuningTable mid;
  mid.rules = {{CollectiveKind::AllReduce, 2, kNoUpperBound, {"direct"}, 0}};
  mid.measured.push_back({2, {CollectiveKind::AllReduce}, 1024, 2048, {{"host", "mid"}}});
  wide.merge(2, {CollectiveKind::AllReduce}, 1024, 2048, mid);
  EXPECT_EQ(wide.rule_for(CollectiveKind::AllReduce, 2, 2048)->order.front(), "direct");
  EXPECT_EQ(wide.rule_for(CollectiveKind::AllReduce, 2, 2049)->order.front(), "pairwise");
  EXPECT_EQ(wide.rule_for(CollectiveKind::AllReduce, 2, 1 << 20)->order.front(), "ring");

  // Measuring the whole range anew replaces everything of that collective.
  TuningTable all;
  all.rules = {{CollectiveKind::AllReduce, 2, 100, {"native"}, 0}, {CollectiveKind::AllReduce, 2, 5000, {"ring"}, 0}};
  all.measured.push_back({2, {CollectiveKind::AllReduce}, 8, 1 << 30, {{"host", "all"}}});
  t.merge(2, {CollectiveKind::AllReduce}, 8, 1 << 30, all);
  EXPECT_EQ(first(8), "native");
  EXPECT_EQ(first(4096), "ring");
  EXPECT_EQ(first(std::uint64_t{1} << 40), "ring");  // the largest measured choice extends upwards
  EXPECT_EQ(t.rules_for(CollectiveKind::AllReduce, 2).size(), 2u);
  EXPECT_EQ(t.origin_for(CollectiveKind::AllReduce, 2)->get("host"), "all");
  EXPECT_EQ(t.origin_for(CollectiveKind::ReduceScatter, 2)->get("host"), "old");
}

// A collective that only records that it ran.
class Fake final : public coll::Collective {
 public:
  Fake(std::string name, std::vector<std::string>& log) : name_(std::move(name)), log_(log) {}
  CollectiveKind kind() const override { return CollectiveKind::AllReduce; }
  std::string algorithm() const override { return name_; }
  void run(const void*, void*, std::size_t, coll::DataType, coll::ReduceOp) override { log_.push_back(name_); }

 private:
  std::string name_;
  std::vector<std::string>& log_;
};

struct AutoFixture {
  explicit AutoFixture(std::vector<std::string> available, coll::CollectiveOptions options = {},
                       const TuningTable& table = two_rank_table())
      : collective(CollectiveKind::AllReduce, 2, table, std::move(available),
                   [this](std::string_view impl, const coll::CollectiveOptions& o) {
                     built.push_back(std::string(impl) + "@" + std::to_string(o.segment_bytes));
                     return std::make_unique<Fake>(std::string(impl), ran);
                   },
                   options) {}
  std::vector<std::string> built, ran;
  coll::AutoCollective collective;
  void call(std::size_t floats) { collective.run(nullptr, nullptr, floats, coll::DataType::Float, coll::ReduceOp::Sum); }
};

TEST(AutoCollective, RunsTheFirstImplementationOfTheRuleItCanBuild) {
  AutoFixture with_native({"ring", "pairwise", "direct", "native"});
  with_native.call(2);     // 8 bytes
  with_native.call(2);
  with_native.call(100);   // 400 bytes
  with_native.call(4096);  // 16 KiB
  EXPECT_EQ(with_native.ran, (std::vector<std::string>{"native", "native", "pairwise", "ring"}));
  EXPECT_EQ(with_native.collective.algorithm(), "auto:ring");
  // Built once each, on first use; the rule's segment size goes to pairwise.
  EXPECT_EQ(with_native.built, (std::vector<std::string>{"native@0", "pairwise@65536", "ring@0"}));

  AutoFixture without_native({"ring", "pairwise", "direct"});
  without_native.call(2);
  EXPECT_EQ(without_native.ran, (std::vector<std::string>{"direct"}));
  EXPECT_EQ(without_native.collective.choice(8), "direct");
}

TEST(AutoCollective, APinnedSegmentSizeWinsOverTheRules) {
  coll::CollectiveOptions pinned;
  pinned.segment_bytes = 4096;
  AutoFixture a({"ring", "pairwise"}, pinned);
  a.call(100);
  EXPECT_EQ(a.built, (std::vector<std::string>{"pairwise@4096"}));
}

TEST(AutoCollective, WithoutRulesItRunsTheLibrarysOwnElseTheRing) {
  const TuningTable empty;
  AutoFixture a({"ring", "pairwise", "direct", "native"}, {}, empty);
  a.call(1 << 20);
  AutoFixture b({"ring", "pairwise", "direct"}, {}, empty);
  b.call(1);
  EXPECT_EQ(a.ran, std::vector<std::string>{"native"});
  EXPECT_EQ(b.ran, std::vector<std::string>{"ring"});
}

TEST(TuningFile, WritesWhatItReads) {
  TuningTable t = two_rank_table();
  t.measured.push_back({2,
                        {CollectiveKind::AllReduce, CollectiveKind::ReduceScatter},
                        8,
                        kNoUpperBound,
                        {{"host", "node \"7\""}, {"transport", "mpi"}, {"hosts", "1"}}});
  const std::string text = tuning_toml(t, {"a header line"});
  EXPECT_NE(text.find("# a header line"), std::string::npos);
  const TuningTable back = parse_tuning_toml(text, "t.toml");
  ASSERT_EQ(back.rules.size(), t.rules.size());
  for (std::size_t i = 0; i < t.rules.size(); ++i) {
    EXPECT_EQ(back.rules[i].kind, t.rules[i].kind);
    EXPECT_EQ(back.rules[i].ranks, t.rules[i].ranks);
    EXPECT_EQ(back.rules[i].max_bytes, t.rules[i].max_bytes);
    EXPECT_EQ(back.rules[i].order, t.rules[i].order);
    EXPECT_EQ(back.rules[i].segment_bytes, t.rules[i].segment_bytes);
  }
  ASSERT_EQ(back.measured.size(), 1u);
  EXPECT_EQ(back.measured[0].kinds, t.measured[0].kinds);
  EXPECT_EQ(back.measured[0].get("host"), "node \"7\"");
  EXPECT_EQ(back.measured[0].min_bytes, 8u);
  EXPECT_EQ(back.measured[0].max_bytes, kNoUpperBound);
}

// The UsageError message of parsing `text`, or "" if it parsed.
std::string parse_error(const std::string& text) {
  try {
    parse_tuning_toml(text, "t.toml");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(TuningFile, BadTablesAreUsageErrorsThatSayWhere) {
  EXPECT_NE(parse_error("[auto\n").find("t.toml:1"), std::string::npos);
  EXPECT_NE(parse_error("[auto]\nrule = []\n").find("unknown key 'rule' in [auto] (did you mean 'rules'?)"),
            std::string::npos);
  EXPECT_NE(parse_error("[auto]\nrules = [ { collective = \"gather\", ranks = 2, order = [\"ring\"] } ]\n")
                .find("t.toml:2: unknown collective 'gather'"),
            std::string::npos);
  EXPECT_NE(parse_error("[auto]\nrules = [ { collective = \"all_reduce\", ranks = 2, order = [\"tree\"] } ]\n")
                .find("unknown implementation 'tree'"),
            std::string::npos);
  EXPECT_NE(parse_error("[auto]\nrules = [ { collective = \"all_gather\", ranks = 2, order = [\"direct\"] } ]\n")
                .find("there is no direct all_gather"),
            std::string::npos);
  EXPECT_NE(parse_error("[auto]\nrules = [ { collective = \"all_reduce\", ranks = 0, order = [\"ring\"] } ]\n")
                .find("'ranks' must be an integer of at least 1"),
            std::string::npos);
  EXPECT_NE(parse_error("[auto]\nrules = [ { collective = \"all_reduce\", ranks = 2, order = [] } ]\n")
                .find("non-empty"),
            std::string::npos);
  EXPECT_NE(parse_error("[auto]\nrules = [\n { collective = \"all_reduce\", ranks = 2, order = [\"ring\"] },\n"
                        " { collective = \"all_reduce\", ranks = 2, order = [\"native\"] } ]\n")
                .find("t.toml:4: a second all_reduce rule for 2 ranks"),
            std::string::npos);
  EXPECT_NE(parse_error("[[measured]]\nhost = \"x\"\n").find("needs 'ranks' and 'collectives'"), std::string::npos);
  EXPECT_NE(parse_error("[tuning]\n").find("unknown key 'tuning'"), std::string::npos);
}

TEST(TuningFile, TheBuiltInTableSaysWhereItWasMeasured) {
  const TuningTable& t = builtin_tuning_table();
  ASSERT_FALSE(t.rules.empty());
  for (const TuningRule& r : t.rules) {
    const coll::TuningOrigin* o = t.origin_for(r.kind, r.ranks);
    ASSERT_NE(o, nullptr) << coll::to_string(r.kind) << " on " << r.ranks << " ranks has no [[measured]]";
    for (const char* key : {"host", "cpu", "mpi_library", "transport", "backend", "hosts", "date", "command"})
      EXPECT_FALSE(o->get(key).empty()) << key;
  }
}

TEST(ApplicableTuning, RulesMeasuredOverAnotherTransportOrHostCountAreDropped) {
  TuningTable t = two_rank_table();
  t.measured.push_back({2, {CollectiveKind::AllReduce}, 0, kNoUpperBound, {{"transport", "mpi"}, {"backend", "cpu"}, {"hosts", "1"}}});
  std::vector<std::string> notes;
  EXPECT_EQ(applicable_tuning(t, {"mpi", "cpu", 1}, &notes).rules.size(), t.rules.size());
  EXPECT_TRUE(notes.empty());
  EXPECT_EQ(applicable_tuning(t, {"mpi", "cpu", 0}).rules.size(), t.rules.size());  // hosts unknown: not checked
  const TuningTable other = applicable_tuning(t, {"mpi", "cpu", 2}, &notes);
  EXPECT_TRUE(other.rules_for(CollectiveKind::AllReduce, 2).empty());
  EXPECT_EQ(other.rules_for(CollectiveKind::ReduceScatter, 2).size(), 1u);  // no origin: kept
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("hosts 1 (here 2)"), std::string::npos);
  EXPECT_TRUE(applicable_tuning(t, {"nccl", "cuda", 1}).rules_for(CollectiveKind::AllReduce, 2).empty());
}

CollRecord record(CollectiveKind kind, const std::string& impl, std::uint64_t bytes, bool in_place, double seconds) {
  CollRecord r{kind, impl, impl, coll::DataType::Float, coll::ReduceOp::Sum, in_place, bytes, bytes / 4, {}, 0, 0, 0};
  r.time.median = seconds;
  r.time.iqm = seconds;
  return r;
}

TEST(Tuner, RanksEachSizeByTheSumOfItsPlacements) {
  const std::vector<CollRecord> records = {
      record(CollectiveKind::AllReduce, "ring", 8, false, 3), record(CollectiveKind::AllReduce, "ring", 8, true, 3),
      record(CollectiveKind::AllReduce, "native", 8, false, 1), record(CollectiveKind::AllReduce, "native", 8, true, 4),
      record(CollectiveKind::ReduceScatter, "ring", 8, false, 1), record(CollectiveKind::ReduceScatter, "ring", 8, true, 1)};
  const auto r = rank_sizes(records);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].kind, CollectiveKind::AllReduce);
  EXPECT_EQ(r[0].times.front().first, "native");  // 5 against 6
  EXPECT_DOUBLE_EQ(r[0].times.front().second, 5);
  EXPECT_EQ(r[1].kind, CollectiveKind::ReduceScatter);
}

SizeRanking ranking(std::uint64_t bytes, std::vector<std::pair<std::string, double>> times) {
  return {CollectiveKind::AllReduce, bytes, std::move(times), {}};
}

// One size where `impl` took `ratio` times ring's time, both with 4 passes
// whose log ratio spreads by 0.05 (interquartile range).
SizeRanking behind(std::uint64_t bytes, const std::string& impl, double ratio) {
  SizeRanking s = ranking(bytes, {{"ring", 1}, {impl, ratio}});
  s.passes = {{"ring", {1, 1, 1, 1}},
              {impl, {ratio * std::exp(-0.1), ratio, ratio, ratio * std::exp(0.1)}}};
  return s;
}

TEST(Tuner, StopsMeasuringWhatFallsBehindBeyondTheNoiseTwiceInARow) {
  std::vector<SizeRanking> r = {behind(8, "direct", 1.5)};
  EXPECT_TRUE(worth_measuring("direct", r));
  r.push_back(behind(16, "direct", 2.0));
  EXPECT_TRUE(worth_measuring("direct", r));  // one rise may be one size's outlier
  r.push_back(behind(32, "direct", 2.02));
  EXPECT_TRUE(worth_measuring("direct", r));  // the second rise is within the noise
  r.push_back(behind(64, "direct", 2.6));
  EXPECT_TRUE(worth_measuring("direct", r));  // 2.0 -> 2.02 -> 2.6: not two rises in a row
  r.push_back(behind(128, "direct", 3.4));
  EXPECT_FALSE(worth_measuring("direct", r));  // 2.02 -> 2.6 -> 3.4: falling behind
  r.push_back(ranking(256, {{"ring", 1}}));
  EXPECT_FALSE(worth_measuring("direct", r));  // once dropped, dropped
  EXPECT_TRUE(worth_measuring("ring", r));
}

TEST(Tuner, KeepsMeasuringALossThatShrinksHoweverLarge) {
  // The ring at small sizes on many ranks: many messages against one.
  const std::vector<SizeRanking> r = {behind(8, "pairwise", 14), behind(16, "pairwise", 13),
                                      behind(32, "pairwise", 12)};
  EXPECT_TRUE(worth_measuring("pairwise", r));
  // Without passes the noise is not known: nothing is dropped.
  const std::vector<SizeRanking> bare = {ranking(8, {{"ring", 1}, {"direct", 5}}),
                                         ranking(16, {{"ring", 1}, {"direct", 50}}),
                                         ranking(32, {{"ring", 1}, {"direct", 500}})};
  EXPECT_TRUE(worth_measuring("direct", bare));
}

TEST(Tuner, NativeIsNeitherDroppedNorTheReference) {
  // Native switches algorithms with the size: a growing loss to it may turn.
  std::vector<SizeRanking> r = {behind(8, "pairwise", 1.2), behind(16, "pairwise", 1.6),
                                behind(32, "pairwise", 2.2)};
  for (auto& s : r) {
    s.times = {{"native", 1}, {"pairwise", s.times.back().second}};
    s.passes["native"] = s.passes.at("ring");
    s.passes.erase("ring");
  }
  EXPECT_TRUE(worth_measuring("pairwise", r));  // the only one of ours
  for (auto& s : r) {
    s.times = {{"ring", 1}, {"native", s.times.back().second}};
    s.passes["ring"] = s.passes.at("native");
    s.passes["native"] = s.passes.at("pairwise");
  }
  EXPECT_TRUE(worth_measuring("native", r));
  // The fastest of ours is the reference even where native is faster still.
  std::vector<SizeRanking> under = {behind(8, "direct", 1.5), behind(16, "direct", 2.0), behind(32, "direct", 2.6)};
  for (auto& s : under) {
    s.times.insert(s.times.begin(), {"native", 0.5});
    s.passes["native"] = {0.5, 0.5, 0.5, 0.5};
  }
  EXPECT_FALSE(worth_measuring("direct", under));
}

TEST(Tuner, RulesMeetHalfwayBetweenSizesAndMergeWhereTheChoiceIsTheSame) {
  const std::vector<SizeRanking> r = {
      ranking(8, {{"native", 1}, {"direct", 2}, {"ring", 3}}), ranking(32, {{"native", 1}, {"direct", 2}}),
      ranking(128, {{"direct", 1}, {"native", 2}}), ranking(512, {{"ring", 1}, {"pairwise", 2}}),
      ranking(2048, {{"ring", 1}, {"native", 2}})};
  const auto rules = tuning_rules(r, 3);
  ASSERT_EQ(rules.size(), 3u);
  EXPECT_EQ(rules[0].order, (std::vector<std::string>{"native", "direct"}));  // up to the first of ours
  EXPECT_EQ(rules[0].max_bytes, 64u);                                          // sqrt(32 * 128)
  EXPECT_EQ(rules[1].order, (std::vector<std::string>{"direct"}));
  EXPECT_EQ(rules[1].max_bytes, 256u);
  EXPECT_EQ(rules[2].order, (std::vector<std::string>{"ring"}));
  EXPECT_EQ(rules[2].max_bytes, kNoUpperBound);
  EXPECT_EQ(rules[2].ranks, 3);
}

// Synthetic passes: `base` seconds times a factor per pass, ring's and
// pairwise's factors out of step (their log ratio then spreads over the
// passes with an interquartile range of 0.09, as measured ones do).
std::vector<double> noisy_passes(double base, bool ring) {
  const std::vector<double> ring_noise = {0.94, 1.00, 1.06, 0.97, 1.03};
  const std::vector<double> pairwise_noise = {1.06, 0.97, 0.94, 1.03, 1.00};
  std::vector<double> out;
  for (const double f : ring ? ring_noise : pairwise_noise) out.push_back(base * f);
  return out;
}

// One size of ring and pairwise at the given times (seconds), with passes.
SizeRanking two_impls(std::uint64_t bytes, double ring, double pairwise) {
  SizeRanking s = ranking(bytes, {{"ring", ring}, {"pairwise", pairwise}});
  std::stable_sort(s.times.begin(), s.times.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  s.passes = {{"ring", noisy_passes(ring, true)}, {"pairwise", noisy_passes(pairwise, false)}};
  return s;
}

TEST(Tuner, PassesAreSqrtOfTheIterationsAndCoverThemAll) {
  EXPECT_TRUE(pass_bounds(0).empty());
  EXPECT_EQ(pass_bounds(3), (std::vector<std::pair<std::size_t, std::size_t>>{{0, 3}}));
  EXPECT_EQ(pass_bounds(15), (std::vector<std::pair<std::size_t, std::size_t>>{{0, 5}, {5, 10}, {10, 15}}));
  const auto many = pass_bounds(500);
  ASSERT_EQ(many.size(), 22u);
  EXPECT_EQ(many.front().first, 0u);
  EXPECT_EQ(many.back().second, 500u);
  for (std::size_t p = 1; p < many.size(); ++p) EXPECT_EQ(many[p].first, many[p - 1].second);
}

TEST(Tuner, APassIsTheSumOfItsPlacementsInterquartileMeans) {
  std::vector<CollRecord> records = {record(CollectiveKind::AllReduce, "ring", 8, false, 0),
                                     record(CollectiveKind::AllReduce, "ring", 8, true, 0)};
  // 9 iterations: 3 passes of 3; an interquartile mean of 3 is their mean.
  records[0].time.samples = {1, 2, 3, 10, 10, 10, 4, 5, 6};
  records[1].time.samples = {1, 1, 1, 2, 2, 2, 3, 3, 3};
  const auto r = rank_sizes(records);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].passes.at("ring"), (std::vector<double>{3, 12, 8}));
}

TEST(Tuner, ALossCountsAsNoiseWhileWithinItsSpreadOverPasses) {
  // ring's passes 1, 1.1, 0.9 against pairwise's 1, 1, 1: log losses spread
  // over an interquartile range of about 0.1.
  SizeRanking s = ranking(8, {{"pairwise", 1.0}, {"ring", 1.05}, {"direct", 1.5}});
  s.passes = {{"pairwise", {1, 1, 1}}, {"ring", {1, 1.1, 0.9}}, {"direct", {1.5, 1.6, 1.4}}};
  EXPECT_NEAR(loss_to_best(s, "ring").loss, std::log(1.05), 1e-12);
  EXPECT_NEAR(loss_to_best(s, "ring").spread, (std::log(1.1) - std::log(0.9)) / 2, 1e-12);
  EXPECT_TRUE(within_noise(s, "pairwise"));
  EXPECT_TRUE(within_noise(s, "ring"));
  EXPECT_FALSE(within_noise(s, "direct"));  // a log loss of 0.41 against a spread of 0.07
  EXPECT_FALSE(within_noise(s, "native"));  // not measured
  s.passes.clear();                         // no passes known: only the best is
  EXPECT_FALSE(within_noise(s, "ring"));
}

TEST(Tuner, NoisyAlternationBetweenNearEqualImplementationsGivesOneRange) {
  // The winner swaps at every size by 3%, within the passes' spread of 9%.
  std::vector<SizeRanking> r;
  for (std::uint64_t i = 0; i < 10; ++i) {
    const double t = static_cast<double>(1u << i);
    r.push_back(i % 2 ? two_impls(8u << i, 1.03 * t, t) : two_impls(8u << i, t, 1.03 * t));
  }
  const auto rules = tuning_rules(r, 2);
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules[0].order, (std::vector<std::string>{"ring"}));
  EXPECT_EQ(rules[0].max_bytes, kNoUpperBound);
  // Without the passes each size's winner is taken: a rule per size.
  for (auto& s : r) s.passes.clear();
  EXPECT_EQ(tuning_rules(r, 2).size(), 10u);
}

TEST(Tuner, ACrossoverBeyondTheNoiseGivesASwitch) {
  // ring 1.5x faster up to 512 B, pairwise 1.5x faster from 1 KiB, each
  // with the same 3% alternation as above on top.
  std::vector<SizeRanking> r;
  for (std::uint64_t i = 0; i < 10; ++i) {
    const double t = static_cast<double>(1u << i);
    const double jitter = i % 2 ? 1.03 : 1.0;
    r.push_back(i < 7 ? two_impls(8u << i, t * jitter, 1.5 * t) : two_impls(8u << i, 1.5 * t, t * jitter));
  }
  const auto rules = tuning_rules(r, 2);
  ASSERT_EQ(rules.size(), 2u);
  EXPECT_EQ(rules[0].order, (std::vector<std::string>{"ring"}));
  EXPECT_EQ(rules[0].max_bytes, 724u);  // sqrt(512 * 1024)
  EXPECT_EQ(rules[1].order, (std::vector<std::string>{"pairwise"}));
  EXPECT_EQ(rules[1].max_bytes, kNoUpperBound);
}

TEST(Tuner, ARangeRunByNativeFallsBackToTheOneOfOursThatLostLeast) {
  std::vector<SizeRanking> r;
  for (std::uint64_t i = 0; i < 4; ++i) {
    SizeRanking s = ranking(8u << i, {{"native", 1}, {"direct", i == 0 ? 1.3 : 1.1}, {"ring", i == 0 ? 1.2 : 1.4}});
    s.passes = {{"native", {1, 1, 1}}, {"direct", {1.2, 1.2, 1.2}}, {"ring", {1.3, 1.3, 1.3}}};
    r.push_back(s);
  }
  const auto rules = tuning_rules(r, 4);
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules[0].order, (std::vector<std::string>{"native", "direct"}));  // summed log losses 0.55 against 1.19
}

TEST(Tuner, UnsteadinessIsTheSpreadOfAnImplementationsOwnPassTimes) {
  SizeRanking s = ranking(8, {{"ring", 1.0}, {"direct", 1.0}});
  s.passes = {{"ring", {2, 2, 2, 2}}, {"direct", {1, 2, 4, 8}}};
  EXPECT_EQ(unsteadiness(s, "ring"), 0);
  // log 2, 2 log 2, 3 log 2, 4 log 2 (before the log of 1): quartiles 0.75 and 2.25 log 2.
  EXPECT_NEAR(unsteadiness(s, "direct"), 1.5 * std::log(2.0), 1e-12);
  EXPECT_EQ(unsteadiness(s, "native"), 0);  // not measured
}

TEST(Tuner, BetweenImplementationsTiedWithinTheNoiseTheSteadiestIsChosen) {
  // direct nominally 2% faster than the ring at every size, but its passes
  // move by +-10% while the ring's stay within 1%: a tie, which the steady
  // ring takes.
  std::vector<SizeRanking> r;
  for (std::uint64_t i = 0; i < 4; ++i) {
    const double t = static_cast<double>(1u << i);
    SizeRanking s = ranking(1u << (20 + i), {{"direct", 0.98 * t}, {"ring", t}});
    s.passes = {{"direct", {0.98 * t * 0.9, 0.98 * t, 0.98 * t * 1.1, 0.98 * t}},
                {"ring", {t * 0.995, t, t * 1.005, t}}};
    r.push_back(s);
  }
  ASSERT_TRUE(within_noise(r[0], "ring"));
  auto rules = tuning_rules(r, 2);
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules[0].order, (std::vector<std::string>{"ring"}));
  // Equally steady: the smaller summed loss decides, as before.
  for (auto& s : r) s.passes["ring"] = {s.passes["ring"][1] * 0.9, s.passes["ring"][1], s.passes["ring"][1] * 1.1,
                                        s.passes["ring"][1]};
  rules = tuning_rules(r, 2);
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules[0].order, (std::vector<std::string>{"direct"}));
  // Steadiness never beats reach: a ring that falls out of the noise at the
  // last size covers fewer sizes than direct.
  for (auto& s : r) s.passes["ring"] = {s.times[1].second * 0.995, s.times[1].second, s.times[1].second * 1.005,
                                        s.times[1].second};
  r.back().times[1].second *= 1.5;
  for (double& p : r.back().passes["ring"]) p *= 1.5;
  rules = tuning_rules(r, 2);
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules[0].order, (std::vector<std::string>{"direct"}));
}


// Launches: each a list of one collective's sizes, times per implementation.
using Launch = std::vector<SizeRanking>;

TEST(TunerOverLaunches, EachSizeTakesTheImplementationWhoseWorstLossOverTheLaunchesIsLeast) {
  // direct wins the first (slow) launch, the ring 1.1x behind; the ring
  // wins the second, direct 1.2x behind. Summed times would take direct
  // (11.2 against 12); losses take the ring (worst 1.1 against 1.2, and
  // pairwise's 1.15).
  const std::vector<Launch> launches = {
      {ranking(1 << 20, {{"direct", 10}, {"ring", 11}, {"pairwise", 11.5}})},
      {ranking(1 << 20, {{"direct", 1.2}, {"ring", 1.0}, {"pairwise", 1.04}})}};
  const auto rules = tuning_rules_over_launches(launches, 3);
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules[0].order, (std::vector<std::string>{"ring"}));
  EXPECT_EQ(rules[0].ranks, 3);
  EXPECT_EQ(rules[0].max_bytes, kNoUpperBound);
}

TEST(TunerOverLaunches, EqualWorstLossesAreDecidedByTheSummedLoss) {
  const std::vector<Launch> launches = {{ranking(8, {{"direct", 1.0}, {"ring", 1.1}})},
                                        {ranking(8, {{"direct", 1.1}, {"ring", 1.0}})},
                                        {ranking(8, {{"direct", 1.0}, {"ring", 1.1}})}};
  const auto rules = tuning_rules_over_launches(launches, 2);
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules[0].order, (std::vector<std::string>{"direct"}));  // lost once, the ring twice
}

TEST(TunerOverLaunches, OneMissingFromALaunchIsNotChosenAtThatSize) {
  // Pruned in the second launch (or not measured there): not chosen however
  // fast in the first.
  const std::vector<Launch> launches = {{ranking(8, {{"direct", 0.5}, {"ring", 1.0}})},
                                        {ranking(8, {{"ring", 1.0}, {"native", 1.2}})}};
  const auto rules = tuning_rules_over_launches(launches, 2);
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules[0].order, (std::vector<std::string>{"ring"}));
}

TEST(TunerOverLaunches, SizesWithTheSameChoiceMakeOneRuleThatEndsHalfwayToTheNext) {
  Launch a, b;
  for (std::uint64_t bytes : {256u, 512u, 1024u, 2048u}) {
    const bool small = bytes <= 512;
    a.push_back(ranking(bytes, {{"direct", small ? 1.0 : 2.0}, {"ring", 1.5}}));
    b.push_back(ranking(bytes, {{"direct", small ? 1.0 : 2.1}, {"ring", 1.4}}));
  }
  SizeRanking scatter = ranking(8, {{"pairwise", 1.0}, {"ring", 1.2}});
  scatter.kind = CollectiveKind::ReduceScatter;
  a.push_back(scatter);
  b.push_back(scatter);
  const auto rules = tuning_rules_over_launches({a, b}, 2);
  ASSERT_EQ(rules.size(), 3u);
  EXPECT_EQ(rules[0].order, (std::vector<std::string>{"direct"}));
  EXPECT_EQ(rules[0].max_bytes, 724u);  // sqrt(512 * 1024)
  EXPECT_EQ(rules[1].order, (std::vector<std::string>{"ring"}));
  EXPECT_EQ(rules[1].max_bytes, kNoUpperBound);
  EXPECT_EQ(rules[2].kind, CollectiveKind::ReduceScatter);
  EXPECT_EQ(rules[2].order, (std::vector<std::string>{"pairwise"}));
  EXPECT_EQ(rules[2].max_bytes, kNoUpperBound);
}

TEST(TunerOverLaunches, NativeIsFollowedByTheOneOfOursWithTheLeastWorstLoss) {
  const std::vector<Launch> launches = {{ranking(8, {{"native", 1.0}, {"direct", 1.1}, {"ring", 1.3}})},
                                        {ranking(8, {{"native", 1.0}, {"direct", 1.5}, {"ring", 1.2}})}};
  const auto rules = tuning_rules_over_launches(launches, 4);
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules[0].order, (std::vector<std::string>{"native", "ring"}));  // worst 1.3 against 1.5
}

// A `coll --json` document of `ranks` ranks with the given results.
std::string coll_document(int ranks, const std::string& results, const std::string& transport = "mpi") {
  std::string hosts;
  for (int r = 0; r < ranks; ++r) hosts += std::string(r ? "," : "") + "\"n1\"";
  return R"({"command": "coll", "ranks": )" + std::to_string(ranks) + R"(, "settings": {"transport": ")" + transport +
         R"(", "backend": "cpu", "datatype": "float", "op": "sum", "timing": "per-iteration", "iters": 15,
         "warmup_iters": 3}, "environment": {"hosts": [)" + hosts +
         R"(], "mpi_library": "Open MPI v4.1.4", "date": "2026-12-02T07:00:00Z", "load_average": "0.50 1.00 1.50"},
         "results": [)" + results + "]}";
}

// One result: out of place or in place, time_us.iqm.
std::string coll_result(const std::string& impl, std::uint64_t bytes, bool in_place, double iqm_us,
                        long long wrong = 0) {
  return R"({"collective": "all_reduce", "impl": ")" + impl + R"(", "bytes": )" + std::to_string(bytes) +
         R"(, "in_place": )" + (in_place ? "true" : "false") + R"(, "time_us": {"iqm": )" + std::to_string(iqm_us) +
         R"(}, "wrong": )" + std::to_string(wrong) + "}";
}

class TuningSourcesTest : public ::testing::Test {
 protected:
  std::string write(const std::string& name, const std::string& text) {
    const auto path = dir_ / name;
    std::ofstream(path) << text;
    return path.string();
  }
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("shardroof-tuning-sources-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(TuningSourcesTest, ALaunchsTimeIsTheSumOfItsPlacementsAndAutoIsLeftOut) {
  const std::string both = coll_result("ring", 1024, false, 10) + "," + coll_result("ring", 1024, true, 12) + "," +
                           coll_result("direct", 1024, false, 9) + "," + coll_result("direct", 1024, true, 14) + "," +
                           coll_result("auto", 1024, false, 1) + "," + coll_result("auto", 1024, true, 1);
  const auto a = write("a.json", coll_document(3, both));
  const auto b = write("b.json", coll_document(3, both));
  const TuningSources s = read_tuning_sources({a, b}, "the command");
  EXPECT_EQ(s.ranks, 3);
  ASSERT_EQ(s.launches.size(), 2u);
  ASSERT_EQ(s.launches[0].size(), 1u);
  const SizeRanking& r = s.launches[0][0];
  ASSERT_EQ(r.times.size(), 2u);  // no auto
  EXPECT_EQ(r.times[0].first, "ring");  // 22 us against 23
  EXPECT_NEAR(r.times[0].second, 22e-6, 1e-12);
  EXPECT_EQ(s.origin.ranks, 3);
  EXPECT_EQ(s.origin.min_bytes, 1024u);
  EXPECT_EQ(s.origin.max_bytes, 1024u);
  EXPECT_EQ(s.origin.get("transport"), "mpi");
  EXPECT_EQ(s.origin.get("hosts"), "1");
  EXPECT_EQ(s.origin.get("launches"), "worst loss over 2 launches per size");
  EXPECT_EQ(s.origin.get("load_average"), "0.50 to 0.50 (1 minute, at each launch's start)");
  EXPECT_EQ(s.origin.get("command"), "the command");
}

TEST_F(TuningSourcesTest, WhatCannotMakeATableIsAUsageErrorThatNamesTheFile) {
  const std::string two = coll_result("ring", 8, false, 1) + "," + coll_result("direct", 8, false, 2);
  const auto good = write("good.json", coll_document(2, two));
  const auto expect_error = [&](const std::vector<std::string>& paths, const std::string& words) {
    try {
      read_tuning_sources(paths, "");
      ADD_FAILURE() << "no error for " << words;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  expect_error({good}, "two launches or more");
  expect_error({good, (dir_ / "missing.json").string()}, "cannot read");
  expect_error({good, write("text.json", "not json")}, "is not a JSON document");
  expect_error({good, write("other.json", R"({"command": "sweep", "results": []})")}, "not a `shardroof coll --json`");
  expect_error({good, write("ranks.json", coll_document(3, two))}, "has ranks 3");
  expect_error({good, write("nccl.json", coll_document(2, two, "nccl"))}, "has transport nccl");
  expect_error({good, write("wrong.json", coll_document(2, coll_result("ring", 8, false, 1, 5) + "," +
                                                              coll_result("direct", 8, false, 2)))},
               "5 wrong elements");
  expect_error({good, write("one.json", coll_document(2, coll_result("ring", 8, false, 1)))},
               "measured only ring");
  const std::string other_size = coll_result("ring", 16, false, 1) + "," + coll_result("direct", 16, false, 2);
  expect_error({good, write("size.json", coll_document(2, two + "," + other_size))},
               "all_reduce at 16 B was measured in only one");
}

}  // namespace
}  // namespace shardroof

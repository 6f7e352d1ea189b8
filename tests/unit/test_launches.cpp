// launches/: Student's t, draws from a launch's distribution, the
// combination of launches (median, its hierarchical interval, between and
// within shares, the next launch's interval, disagreeing launches), and the
// records combine reads and refuses.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "launches/combination.h"
#include "launches/combined_records.h"
#include "launches/records.h"
#include "stability/statistics.h"
#include "sweep/fit.h"
#include "util/error.h"

namespace shardroof::launches {
namespace {

using nlohmann::json;
using stability::student_t_quantile;

// A launch whose bootstrap is log-normal around `value` with sd `sd` (log).
LaunchEstimate launch(double value, double sd) {
  LaunchEstimate e;
  e.value = value;
  e.low = value * std::exp(-1.96 * sd);
  e.high = value * std::exp(1.96 * sd);
  // Percentiles of a normal on the log scale, from the inverse of erf by bisection.
  for (int p = 0; p <= 100; ++p) {
    const double q = std::clamp(p / 100.0, 0.001, 0.999);
    double lo = -10, hi = 10;
    for (int i = 0; i < 100; ++i) {
      const double mid = (lo + hi) / 2;
      (0.5 * std::erfc(-mid / std::sqrt(2.0)) < q ? lo : hi) = mid;
    }
    e.percentiles.push_back(value * std::exp(sd * (lo + hi) / 2));
  }
  return e;
}

TEST(StudentT, QuantilesAsTabulated) {
  EXPECT_NEAR(student_t_quantile(0.975, 1), 12.706, 1e-3);
  EXPECT_NEAR(student_t_quantile(0.975, 2), 4.303, 1e-3);
  EXPECT_NEAR(student_t_quantile(0.975, 10), 2.228, 1e-3);
  EXPECT_NEAR(student_t_quantile(0.95, 4), 2.132, 1e-3);
  EXPECT_NEAR(student_t_quantile(0.975, 1000), 1.962, 1e-3);
  EXPECT_NEAR(student_t_quantile(0.025, 2), -4.303, 1e-3);
  EXPECT_EQ(student_t_quantile(0.5, 3), 0);
}

TEST(LaunchDraws, FromPercentilesLinearInLog) {
  const std::vector<double> p = launch(100, 0.1).percentiles;
  EXPECT_NEAR(draw_from_percentiles(p, 0.5), 100, 1e-9);
  EXPECT_LT(draw_from_percentiles(p, 0.1), draw_from_percentiles(p, 0.9));
  EXPECT_DOUBLE_EQ(draw_from_percentiles(p, 0.0), p.front());
  std::vector<double> with_inf(101, 5.0);
  with_inf.back() = INFINITY;
  EXPECT_TRUE(std::isinf(draw_from_percentiles(with_inf, 0.9999)));
  EXPECT_DOUBLE_EQ(draw_from_percentiles(with_inf, 0.3), 5.0);
}

TEST(LaunchDraws, WithinSdFromPercentilesOrTheInterval) {
  EXPECT_NEAR(within_sd(launch(100, 0.05)), 0.05, 0.002);
  LaunchEstimate bare{100, 100 * std::exp(-1.96 * 0.2), 100 * std::exp(1.96 * 0.2), {}};
  EXPECT_NEAR(within_sd(bare), 0.2, 1e-9);
  LaunchEstimate open{100, 0, INFINITY, {}};
  EXPECT_EQ(within_sd(open), 0);
}

TEST(Combine, LaunchesThatAgreeLeaveOnlyTheirOwnNoise) {
  const std::vector<LaunchEstimate> l = {launch(100, 0.05), launch(100, 0.05), launch(100, 0.05)};
  const Combined c = combine(l);
  EXPECT_EQ(c.launches, 3);
  EXPECT_DOUBLE_EQ(c.median, 100);
  EXPECT_EQ(c.between_sd, 0);
  EXPECT_NEAR(c.within_sd, 0.05, 0.002);
  EXPECT_DOUBLE_EQ(c.within_share, 1);
  EXPECT_LT(c.low, 100);
  EXPECT_GT(c.high, 100);
  EXPECT_GT(c.high / c.low, 1.02);  // each launch's own noise still shows
  EXPECT_LT(c.high / c.low, 1.25);
  // The next launch: t(2) x the within-launch sd x sqrt(4/3) either side.
  EXPECT_NEAR(std::log(c.predict_high / 100), 4.303 * 0.05 * std::sqrt(4.0 / 3), 0.01);
  EXPECT_TRUE(c.disagreeing.empty());
}

TEST(Combine, LaunchesThatDifferShowTheLaunchEffect) {
  const std::vector<LaunchEstimate> l = {launch(80, 0.02), launch(100, 0.02), launch(125, 0.02), launch(100, 0.02)};
  const Combined c = combine(l);
  EXPECT_DOUBLE_EQ(c.median, 100);
  EXPECT_GT(c.between_share, 0.9);
  EXPECT_GT(c.between_sd, 0.1);
  EXPECT_LT(c.predict_low, 80);
  EXPECT_GT(c.predict_high, 125);
  // Each launch lies where the other three place the next one.
  EXPECT_TRUE(c.disagreeing.empty());
  // Among many that agree, one far off disagrees.
  std::vector<LaunchEstimate> many;
  for (const double v : {100.0, 102.0, 98.0, 101.0, 99.0, 100.0, 60.0, 103.0}) many.push_back(launch(v, 0.02));
  const Combined m = combine(many);
  ASSERT_EQ(m.disagreeing.size(), 1u);
  EXPECT_EQ(m.disagreeing[0], 6u);
  // Deterministic for the seed.
  const Combined again = combine(l);
  EXPECT_EQ(again.low, c.low);
  EXPECT_EQ(again.high, c.high);
}

// Twelve ordinary launches: D* log-normal with a launch effect of 10% and
// each launch's own noise of 3%, at evenly spaced quantiles of the launch
// effect. The median's interval shrinks like 1/sqrt(12) and misses the
// outer launches; the next launch's interval holds every one of them.
TEST(Combine, NoOrdinaryLaunchDisagreesAtTwelve) {
  const std::vector<double> z = {-1.732, -1.150, -0.812, -0.549, -0.319, -0.105,
                                 0.105,  0.319,  0.549,  0.812,  1.150,  1.732};
  std::vector<LaunchEstimate> l;
  for (const double zi : z) l.push_back(launch(100 * std::exp(0.1 * zi), 0.03));
  const Combined c = combine(l);
  EXPECT_TRUE(c.disagreeing.empty());
  int miss_median = 0;
  for (const auto& e : l) miss_median += e.high < c.low || e.low > c.high;
  EXPECT_GE(miss_median, 2);  // what the median's interval would have flagged
  // A thirteenth launch twice as slow is flagged, and only it.
  l.push_back(launch(200, 0.03));
  const Combined with_outlier = combine(l);
  ASSERT_EQ(with_outlier.disagreeing.size(), 1u);
  EXPECT_EQ(with_outlier.disagreeing[0], 12u);
}

TEST(Combine, ALaunchWithoutADistributionGivesItsEstimate) {
  const std::vector<LaunchEstimate> l = {{100, 90, 110, {}}, {102, 95, 109, {}}};
  const Combined c = combine(l);
  EXPECT_GE(c.low, 100);
  EXPECT_LE(c.high, 102);
  EXPECT_GT(c.predict_high, c.predict_low);
}

TEST(CrossingBootstrap, KeepsItsDistribution) {
  sweep::BracketSamples s;
  s.D_low = 64;
  s.D_high = 128;
  s.t_math_low = {1.0, 1.02, 0.98, 1.01, 0.99};
  s.t_comm_low = {1.5, 1.52, 1.48, 1.5, 1.49};
  s.t_math_high = {2.0, 2.02, 1.98, 2.01, 1.99};
  s.t_comm_high = {1.5, 1.51, 1.49, 1.5, 1.52};
  const auto b = sweep::crossing_bootstrap(s, 0.95, 2000, 7);
  ASSERT_TRUE(b);
  ASSERT_EQ(b->percentiles.size(), 101u);
  EXPECT_TRUE(std::is_sorted(b->percentiles.begin(), b->percentiles.end()));
  EXPECT_LE(b->percentiles[2], b->interval.low);
  EXPECT_GE(b->percentiles[98], b->interval.high);
  EXPECT_NEAR(b->percentiles[50], 64 * 1.5, 3);  // T_math grows with D: 1 -> 2, T_comm 1.5
  const auto i = sweep::crossing_interval(s, 0.95, 2000, 7);
  EXPECT_EQ(i->low, b->interval.low);
}

json sweep_record(double D, const std::string& impl = "ring") {
  json cr = {{"D_empirical", D},
             {"D_empirical_ci", {D * 0.9, D * 1.1}},
             {"D_book", D * 0.8},
             {"D_book_ci", {D * 0.7, D * 0.95}},
             {"kind", "bracketed"}};
  return {{"command", "sweep"},
          {"ranks", 2},
          {"complete", true},
          {"environment", {{"date", "2026-12-05T00:00:00Z"}, {"load_average", "0.1 0.1 0.1"}}},
          {"settings", {{"B", 1024}, {"F", 1024}, {"D", "auto"}, {"impl", impl}, {"datatype", "float"}}},
          {"crossover", cr},
          {"stability", {{"verdict", "stable"}}}};
}

std::string usage(const std::vector<json>& docs) {
  std::vector<std::string> paths;
  for (std::size_t i = 0; i < docs.size(); ++i) paths.push_back("l" + std::to_string(i + 1) + ".json");
  try {
    read_launches(paths, docs);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(CombineRecords, SweepLaunchesAndTheBooksInterval) {
  const std::vector<json> docs = {sweep_record(100), sweep_record(110), sweep_record(90)};
  const LaunchSet set = read_launches({"a", "b", "c"}, docs);
  ASSERT_EQ(set.sweeps.size(), 3u);
  EXPECT_EQ(set.command, "sweep");
  EXPECT_DOUBLE_EQ(set.sweeps[1].d_star.value, 110);
  ASSERT_TRUE(set.sweeps[0].book);
  const SweepCombination c = combine_sweeps(set);
  EXPECT_DOUBLE_EQ(c.d_star.median, 100);
  ASSERT_TRUE(c.book);
  EXPECT_DOUBLE_EQ(c.book->median, 80);
  EXPECT_FALSE(c.book_holds_measured);  // every book interval lies below D*
}

TEST(CombineRecords, RefusesWhatCannotBeCombined) {
  EXPECT_NE(usage({sweep_record(100)}).find("at least two launches"), std::string::npos);
  EXPECT_NE(usage({sweep_record(100), json::array()}).find("l2.json: not a shardroof --json record"), std::string::npos);
  json coll = sweep_record(100);
  coll["command"] = "coll";
  EXPECT_NE(usage({sweep_record(100), coll}).find("a record of `shardroof coll`"), std::string::npos);
  const std::string other = usage({sweep_record(100), sweep_record(100, "native")});
  EXPECT_NE(other.find("l2.json: measured with other settings than l1.json: settings.impl \"native\" (the first "
                       "record: \"ring\")"),
            std::string::npos)
      << other;
  json stopped = sweep_record(100);
  stopped["interrupted"] = "SIGINT";
  EXPECT_NE(usage({sweep_record(100), stopped}).find("interrupted"), std::string::npos);
  json unfinished = sweep_record(100);
  unfinished["complete"] = false;
  EXPECT_NE(usage({unfinished, sweep_record(100)}).find("did not finish"), std::string::npos);
  json none = sweep_record(100);
  none["crossover"]["D_empirical"] = nullptr;
  EXPECT_NE(usage({sweep_record(100), none}).find("no crossover D*"), std::string::npos);
  json peak = sweep_record(100);
  peak["command"] = "peak";
  EXPECT_NE(usage({peak, peak}).find("combine takes sweep or coll records"), std::string::npos);
  json ranks = sweep_record(100);
  ranks["ranks"] = 4;
  EXPECT_NE(usage({sweep_record(100), ranks}).find("ranks 4"), std::string::npos);
}

TEST(CombineRecords, CollRowsEveryLaunchMeasured) {
  const auto coll = [](double t_us, bool extra) {
    json results = json::array();
    results.push_back({{"collective", "all_reduce"}, {"impl", "ring"}, {"in_place", false}, {"bytes", 1048576},
                       {"time_us", {{"median", t_us}}}, {"time_us_ci95", {t_us * 0.95, t_us * 1.05}},
                       {"busbw_GBps", 1048576 / (t_us * 1e-6) / 1e9}});
    if (extra)
      results.push_back({{"collective", "all_reduce"}, {"impl", "ring"}, {"in_place", false}, {"bytes", 4096},
                         {"time_us", {{"median", 3.0}}}, {"busbw_GBps", 1.0}});
    return json{{"command", "coll"}, {"ranks", 2}, {"settings", {{"impl", "ring"}}}, {"results", results}};
  };
  const LaunchSet set = read_launches({"a", "b"}, {coll(100, true), coll(120, false)});
  const CollCombination c = combine_colls(set);
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_NEAR(c.rows[0].time_s.median, 110e-6, 1e-12);
  EXPECT_NEAR(c.rows[0].busbw_factor, 1.0, 1e-9);  // busbw = algbw on this record
  ASSERT_EQ(c.partial.size(), 1u);
  EXPECT_EQ(c.partial[0].bytes, 4096u);
}

TEST(CombineRecords, PercentilesTravelWithInfinityAsNull) {
  const std::vector<double> p = {0, 1, INFINITY};
  const json j = percentiles_json(p);
  EXPECT_TRUE(j[2].is_null());
  const auto back = percentiles_from_json(j);
  EXPECT_TRUE(std::isinf(back[2]));
  EXPECT_EQ(back[1], 1);
}

}  // namespace
}  // namespace shardroof::launches

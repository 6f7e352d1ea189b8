// launches/: Student's t, draws from a launch's distribution, the
// combination of launches (median, its hierarchical interval, between and
// within shares, the next launch's interval, disagreeing launches), and the
// records combine reads and refuses.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <stdexcept>
#include <nlohmann/json.hpp>

#include "launches/combination.h"
#include "launches/combined_records.h"
#include "launches/records.h"
#include "launches/states.h"
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

// A launch that located no crossover is not an error: it is kept apart
// with what it located, and D* is combined from the others where two or
// more have one.
TEST(CombineRecords, LaunchesWithoutACrossoverAreKeptApart) {
  const auto uncrossed = [](double t_comm, double floor) {
    json d = sweep_record(100);
    d["crossover"] = {{"kind", "below_range"},
                      {"D_empirical", nullptr},
                      {"no_crossover", {{"cause", "overhead"}, {"t_comm_s", t_comm}, {"floor_s", floor}}}};
    return d;
  };
  const LaunchSet one = read_launches({"a", "b", "c"}, {uncrossed(5e-4, 7e-4), sweep_record(100), uncrossed(6e-4, 8e-4)});
  ASSERT_EQ(one.sweeps.size(), 1u);
  ASSERT_EQ(one.uncrossed.size(), 2u);
  EXPECT_EQ(one.uncrossed[1].info.path, "c");
  EXPECT_EQ(one.uncrossed[0].kind, "below_range");
  EXPECT_EQ(one.uncrossed[0].cause, "overhead");
  const UncrossedSummary u = summarize_uncrossed(one);
  EXPECT_EQ(u.launches, 2);
  EXPECT_EQ(u.of, 3);
  ASSERT_EQ(u.kinds.size(), 1u);
  EXPECT_EQ(u.kinds[0], (std::pair<std::string, int>{"below_range, overhead", 2}));
  ASSERT_TRUE(u.t_comm_s && u.floor_s);
  EXPECT_DOUBLE_EQ(u.t_comm_s->median, 5.5e-4);
  EXPECT_DOUBLE_EQ(u.t_comm_s->min, 5e-4);
  EXPECT_DOUBLE_EQ(u.floor_s->max, 8e-4);
  EXPECT_THROW(combine_sweeps(one), std::logic_error);  // one D* cannot be combined

  const LaunchSet most =
      read_launches({"a", "b", "c", "d"}, {sweep_record(100), uncrossed(5e-4, 7e-4), sweep_record(110), sweep_record(90)});
  ASSERT_EQ(most.sweeps.size(), 3u);
  EXPECT_DOUBLE_EQ(combine_sweeps(most).d_star.median, 100);
  EXPECT_EQ(summarize_uncrossed(most).of, 4);

  // above_range has no floor: the kind alone.
  json above = sweep_record(100);
  above["crossover"] = {{"kind", "above_range"}, {"D_empirical", nullptr}};
  const UncrossedSummary a = summarize_uncrossed(read_launches({"a", "b"}, {above, above}));
  EXPECT_EQ(a.kinds[0], (std::pair<std::string, int>{"above_range", 2}));
  EXPECT_FALSE(a.t_comm_s);
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

// A sweep record whose ceilings sit at the given levels: T_comm at S
// (seconds) with its own noise, the ring probe's W and C_peak, D* with a
// +-5% interval, the book's D* at 0.8x.
json sweep_at(double D, double t_comm_s, double noise = 0.02, double W = 7e9, double C = 9.6e10) {
  json doc = sweep_record(D);
  doc["ceilings"] = {{"C_flops_per_s", C},
                     {"t_comm_measured_s", t_comm_s},
                     {"ring_probe", {{"W_bytes_per_s", W}}}};
  doc["crossover"]["D_empirical_ci"] = {D * 0.95, D * 1.05};
  doc["stability"] = {{"verdict", "stable"},
                      {"t_comm", {{"verdict", "stable"}, {"median", t_comm_s}, {"noise_sd_log", noise},
                                  {"material_ratio", 1.1 / 0.9}, {"max_ratio", 1.0}}},
                      {"gemm", {{"verdict", "stable"}, {"noise_sd_log", 0.01}}},
                      {"ceilings", {{"ring probe at 2 MiB", {{"verdict", "stable"}, {"noise_sd_log", 0.02}}}}}};
  return doc;
}

// Launch i of a state: its levels and D* moved by a small launch effect
// (evenly spread within +-3%, deterministic).
double jitter(std::size_t i, std::size_t n) { return std::exp(0.03 * (2.0 * static_cast<double>(i) / std::max<std::size_t>(n - 1, 1) - 1)); }

SweepCombination combined(const std::vector<json>& docs) {
  std::vector<std::string> paths;
  for (std::size_t i = 0; i < docs.size(); ++i) paths.push_back("l" + std::to_string(i + 1) + ".json");
  return combine_sweeps(read_launches(paths, docs));
}

const LaunchState* state_with(const StateSplit& s, std::size_t launches) {
  for (const auto& x : s.states)
    if (x.launches.size() == launches) return &x;
  return nullptr;
}

// Two planted states: T_comm 100 us with D* about 25 in 3 launches, 330 us
// with D* about 110 in 9, interleaved in time. Each state is found with
// its launches, and each state's prediction, made without one of its
// launches, holds that launch.
TEST(LaunchStates, TwoPlantedStatesFoundAndEachPredictsItsOwnHeldOutLaunch) {
  std::vector<json> fast, slow;
  for (std::size_t i = 0; i < 3; ++i) fast.push_back(sweep_at(25 * jitter(i, 3), 100e-6 * jitter(2 - i, 3)));
  for (std::size_t i = 0; i < 9; ++i) slow.push_back(sweep_at(110 * jitter(i, 9), 330e-6 * jitter(8 - i, 9)));
  std::vector<json> all;
  for (std::size_t i = 0; i < 9; ++i) {
    all.push_back(slow[i]);
    if (i % 3 == 1) all.push_back(fast[i / 3]);
  }
  const SweepCombination c = combined(all);
  ASSERT_EQ(c.states.states.size(), 2u);
  EXPECT_TRUE(c.states.mixed.empty());
  const LaunchState& a = c.states.states[0];
  const LaunchState& b = c.states.states[1];
  EXPECT_EQ(a.name, "A");
  EXPECT_EQ(a.launches.size(), 9u);
  EXPECT_EQ(b.launches.size(), 3u);
  EXPECT_NEAR(a.share, 0.75, 1e-12);
  EXPECT_FALSE(a.tentative);
  EXPECT_FALSE(b.tentative);
  EXPECT_NEAR(a.value.median, 110, 5);
  EXPECT_NEAR(b.value.median, 25, 2);
  ASSERT_TRUE(b.book);
  EXPECT_NEAR(b.book->median, 20, 2);  // the book's D* from that state's own launches
  // One wide interval would hold both; each state's holds only its own.
  EXPECT_GT(a.predict_low, b.predict_high);

  // Held out: the last launch of each state, predicted by the others.
  std::vector<json> train(slow.begin(), slow.end() - 1);
  train.insert(train.end(), fast.begin(), fast.end() - 1);
  const SweepCombination t = combined(train);
  ASSERT_EQ(t.states.states.size(), 2u);
  const LaunchState* ts = state_with(t.states, 8);
  const LaunchState* tf = state_with(t.states, 2);
  ASSERT_TRUE(ts && tf);
  const double slow_out = slow.back()["crossover"]["D_empirical"], fast_out = fast.back()["crossover"]["D_empirical"];
  EXPECT_TRUE(ts->predict_low <= slow_out && slow_out <= ts->predict_high)
      << slow_out << " outside [" << ts->predict_low << ", " << ts->predict_high << "]";
  EXPECT_TRUE(tf->predict_low <= fast_out && fast_out <= tf->predict_high)
      << fast_out << " outside [" << tf->predict_low << ", " << tf->predict_high << "]";
  // And each held-out launch's own levels place it in its state.
  const auto known = [&](const LaunchState& s) {
    return KnownState{s.name, static_cast<int>(s.launches.size()), t.states.launches, s.tentative, s.levels,
                      s.predict_low, s.predict_high, {}};
  };
  const std::vector<KnownState> k = {known(t.states.states[0]), known(t.states.states[1])};
  const auto levels_of = [](const json& doc) { return sweep_readings(doc).parts.front().levels; };
  const Placement ps = place(levels_of(slow.back()), k, t.states.material_ratio, t.states.significance);
  const Placement pf = place(levels_of(fast.back()), k, t.states.material_ratio, t.states.significance);
  ASSERT_TRUE(ps.state && pf.state);
  EXPECT_EQ(k[*ps.state].name, ts->name);
  EXPECT_EQ(k[*pf.state].name, tf->name);
  // A launch whose GEMM ran at half the rate is in a state not seen before,
  // and the level that differs is named.
  const Placement other = place(levels_of(sweep_at(110, 330e-6, 0.02, 7e9, 4.8e10)), k, t.states.material_ratio,
                                t.states.significance);
  EXPECT_FALSE(other.state);
  ASSERT_TRUE(other.differing);
  EXPECT_EQ(*other.differing, LevelQuantity::GemmRate);
  EXPECT_DOUBLE_EQ(other.value, 4.8e10);
}

TEST(LaunchStates, OnePlantedStateIsOneState) {
  std::vector<json> docs;
  for (std::size_t i = 0; i < 12; ++i) docs.push_back(sweep_at(110 * jitter(i, 12), 330e-6 * jitter(11 - i, 12)));
  const SweepCombination c = combined(docs);
  ASSERT_EQ(c.states.states.size(), 1u);
  EXPECT_EQ(c.states.states[0].launches.size(), 12u);
  EXPECT_DOUBLE_EQ(c.states.states[0].share, 1);
  EXPECT_EQ(c.states.states[0].predict_low, c.d_star.predict_low);
}

// Launches in one state whose own measurements are noisy (sd 20% per
// block): levels 1.3x apart are within that noise and stay one state; the
// same levels from quiet launches (1%) are three.
TEST(LaunchStates, NoisyLaunchesInOneStateAreNotSplit) {
  const auto docs = [](double noise) {
    std::vector<json> d;
    for (const double t : {100e-6, 130e-6, 170e-6, 100e-6, 130e-6, 170e-6}) d.push_back(sweep_at(t * 3e5, t, noise));
    return d;
  };
  EXPECT_EQ(combined(docs(0.2)).states.states.size(), 1u);
  EXPECT_EQ(combined(docs(0.01)).states.states.size(), 3u);
  // Nor does a launch effect smaller than the material ratio split quiet ones.
  std::vector<json> close;
  for (const double t : {100e-6, 110e-6, 118e-6, 105e-6}) close.push_back(sweep_at(t * 3e5, t, 0.001));
  EXPECT_EQ(combined(close).states.states.size(), 1u);
}

// A launch that changed state inside itself is split into its states where
// its record has the crossing per state, and named mixed where not; a
// state seen in one launch is tentative.
TEST(LaunchStates, ALaunchThatChangedStateIsSplitOrNamedMixed) {
  std::vector<json> docs;
  for (std::size_t i = 0; i < 4; ++i) docs.push_back(sweep_at(110 * jitter(i, 4), 330e-6 * jitter(i, 4)));
  json both = sweep_at(90, 250e-6);
  both["stability"]["t_comm"]["verdict"] = "unstable";
  both["stability"]["t_comm"]["max_ratio"] = 3.3;
  both["stability"]["crossover_per_state"] = {
      {{"quantity", "t_comm"}, {"level_s", 100e-6}, {"share", 0.25}, {"D", 25.0}, {"book_D", 20.0}},
      {{"quantity", "t_comm"}, {"level_s", 330e-6}, {"share", 0.75}, {"D", 108.0}, {"book_D", 88.0}}};
  docs.push_back(both);
  const SweepCombination c = combined(docs);
  ASSERT_EQ(c.states.states.size(), 2u);
  EXPECT_EQ(c.states.states[0].launches.size(), 5u);  // the four and launch 5's slow part
  EXPECT_NEAR(c.states.states[0].share, 4.75 / 5, 1e-12);
  EXPECT_EQ(c.states.states[1].launches, std::vector<std::size_t>{4});
  EXPECT_TRUE(c.states.states[1].tentative);
  EXPECT_NEAR(c.states.states[1].value.median, 25, 1e-9);
  EXPECT_EQ(c.states.states[1].prediction_from, "the other states' launches (pooled)");
  EXPECT_LT(c.states.states[1].predict_high, c.states.states[0].predict_low);
  // Without a crossing in one of its states: mixed, left out.
  docs.back()["stability"]["crossover_per_state"][0]["D"] = nullptr;
  const SweepCombination m = combined(docs);
  ASSERT_EQ(m.states.mixed.size(), 1u);
  EXPECT_EQ(m.states.mixed[0].first, 4u);
  EXPECT_NE(m.states.mixed[0].second.find("no crossing"), std::string::npos);
  ASSERT_EQ(m.states.states.size(), 1u);
  EXPECT_EQ(m.states.states[0].launches.size(), 4u);
  // Its state below the GEMM's floor: a part without a crossover, in the
  // state its level says (tentative, predicting none).
  docs.back()["stability"]["crossover_per_state"][0]["below_floor"] = true;
  const SweepCombination b = combined(docs);
  EXPECT_TRUE(b.states.mixed.empty());
  ASSERT_EQ(b.states.states.size(), 2u);
  EXPECT_EQ(b.states.states[0].launches.size(), 5u);
  EXPECT_FALSE(b.states.states[0].predicts_no_crossover());
  EXPECT_EQ(b.states.states[1].launches, std::vector<std::size_t>{4});
  EXPECT_TRUE(b.states.states[1].predicts_no_crossover());
  EXPECT_EQ(b.states.states[1].no_crossover_text(), "below_range: 1");
}

// coll: each row's launches grouped by the row's time.
TEST(LaunchStates, CollRowsByTheirTime) {
  const auto coll = [](double t_us) {
    json results = json::array();
    results.push_back({{"collective", "all_reduce"}, {"impl", "ring"}, {"in_place", false}, {"bytes", 1048576},
                       {"time_us", {{"median", t_us}}}, {"time_us_ci95", {t_us * 0.95, t_us * 1.05}},
                       {"stability", {{"verdict", "stable"}, {"noise_sd_log", 0.03}, {"material_ratio", 1.1 / 0.9}}}});
    return json{{"command", "coll"}, {"ranks", 2}, {"settings", {{"impl", "ring"}}}, {"results", results}};
  };
  std::vector<json> docs;
  std::vector<std::string> paths;
  for (const double t : {330.0, 95.0, 340.0, 325.0, 100.0, 335.0}) {
    docs.push_back(coll(t));
    paths.push_back("c" + std::to_string(docs.size()));
  }
  const CollCombination c = combine_colls(read_launches(paths, docs));
  ASSERT_EQ(c.rows.size(), 1u);
  const StateSplit& s = c.rows[0].states;
  ASSERT_EQ(s.states.size(), 2u);
  EXPECT_EQ(s.states[0].launches.size(), 4u);
  EXPECT_EQ(s.states[1].launches, (std::vector<std::size_t>{1, 4}));
  EXPECT_NEAR(s.states[1].value.median * 1e6, 97.5, 1e-6);
}

// `sweep --history` reads a combine record's states (levels and spreads)
// and places a launch among them; a record made before states still
// works (no states), and a state it cannot read is refused by name.
TEST(LaunchStates, HistoryCarriesTheStatesAndOlderRecordsStillWork) {
  std::vector<json> docs;
  for (std::size_t i = 0; i < 4; ++i) docs.push_back(sweep_at(110 * jitter(i, 4), 330e-6 * jitter(i, 4)));
  for (std::size_t i = 0; i < 3; ++i) docs.push_back(sweep_at(25 * jitter(i, 3), 100e-6 * jitter(i, 3)));
  std::vector<std::string> paths;
  for (std::size_t i = 0; i < docs.size(); ++i) paths.push_back("l" + std::to_string(i + 1) + ".json");
  const LaunchSet set = read_launches(paths, docs);
  const SweepCombination c = combine_sweeps(set);
  ASSERT_EQ(c.states.states.size(), 2u);
  // The record as combine writes it, reduced to what --history reads.
  json states = json::array();
  for (const auto& st : c.states.states) {
    json levels = json::array();
    for (const auto& l : st.levels)
      levels.push_back({{"quantity", to_string(l.quantity)}, {"median", l.median}, {"spread_sd_log", l.spread_sd_log}});
    states.push_back({{"name", st.name}, {"launches_seen", st.launches.size()}, {"tentative", st.tentative},
                      {"levels", levels}, {"prediction_interval", {st.predict_low, st.predict_high}}});
  }
  json record = {{"command", "combine"}, {"of", "sweep"}, {"ranks", 2}, {"settings", set.settings},
                 {"D", {{"launches", 7}, {"median", 100.0}, {"between_sd_log", 0.5}, {"within_sd_log", 0.05}}},
                 {"states", {{"list", states}, {"material_ratio", 1.1 / 0.9}, {"significance", 0.01}}}};
  const std::string path = ::testing::TempDir() + "history-states.json";
  const auto write = [&](const json& j) { std::ofstream(path) << j.dump(); };
  write(record);
  const LaunchHistory h = read_history(path, set.settings, 2);
  ASSERT_TRUE(h.has_states);
  ASSERT_EQ(h.states.size(), 2u);
  EXPECT_EQ(h.states[0].launches, 7);
  const auto placed = place_launch(sweep_readings(sweep_at(24, 101e-6)), h);
  ASSERT_EQ(placed.size(), 1u);
  ASSERT_TRUE(placed[0].placement.state);
  EXPECT_EQ(h.states[*placed[0].placement.state].name, "B");
  const auto unseen = place_launch(sweep_readings(sweep_at(60, 200e-6)), h);
  ASSERT_EQ(unseen.size(), 1u);
  EXPECT_FALSE(unseen[0].placement.state);
  EXPECT_EQ(*unseen[0].placement.differing, LevelQuantity::CollectiveAtS);
  // An older record: no states, the spread alone.
  json old = record;
  old.erase("states");
  write(old);
  const LaunchHistory o = read_history(path, set.settings, 2);
  EXPECT_FALSE(o.has_states);
  EXPECT_TRUE(place_launch(sweep_readings(sweep_at(24, 101e-6)), o).empty());
  EXPECT_DOUBLE_EQ(o.between_sd_log, 0.5);
  // A level it cannot read.
  record["states"]["list"][0]["levels"][0]["quantity"] = "bogus";
  write(record);
  try {
    read_history(path, set.settings, 2);
    FAIL() << "accepted an unknown level";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown level 'bogus'"), std::string::npos) << e.what();
  }
}

// A machine whose answer is "no crossover" still has states. Planted: 3
// launches with T_comm 100 us at S below the GEMM's floor (no crossover)
// and 4 at 330 us with D* about 110. Two states; the first predicts no
// crossover, the second its D*; a new launch's levels say which, and
// whether it landed where its state said (none, or D* inside). With only
// launches without a crossover there is one state, and a history record
// with no D* still places a launch.
json sweep_uncrossed_at(double t_comm_s) {
  json doc = sweep_at(100, t_comm_s);
  doc["crossover"] = {{"kind", "below_range"},
                      {"D_empirical", nullptr},
                      {"no_crossover", {{"cause", "overhead"}, {"t_comm_s", t_comm_s}, {"floor_s", 7e-4}}}};
  return doc;
}

TEST(LaunchStates, LaunchesWithoutACrossoverHaveStatesThatPredictNone) {
  std::vector<json> docs;
  for (std::size_t i = 0; i < 4; ++i) docs.push_back(sweep_at(110 * jitter(i, 4), 330e-6 * jitter(i, 4)));
  for (std::size_t i = 0; i < 3; ++i) docs.push_back(sweep_uncrossed_at(100e-6 * jitter(i, 3)));
  std::vector<std::string> paths;
  for (std::size_t i = 0; i < docs.size(); ++i) paths.push_back("l" + std::to_string(i + 1) + ".json");
  const LaunchSet set = read_launches(paths, docs);
  ASSERT_EQ(set.sweeps.size(), 4u);
  ASSERT_EQ(set.uncrossed.size(), 3u);
  const SweepCombination c = combine_sweeps(set);
  EXPECT_EQ(c.d_star.launches, 4);  // D* from the launches with one only
  ASSERT_EQ(c.states.states.size(), 2u);
  EXPECT_EQ(c.states.launches, 7);
  const LaunchState& a = c.states.states[0];
  const LaunchState& b = c.states.states[1];
  EXPECT_EQ(a.launches, (std::vector<std::size_t>{0, 1, 2, 3}));
  EXPECT_EQ(a.crossed, 4);
  EXPECT_FALSE(a.predicts_no_crossover());
  EXPECT_NEAR(a.value.median, 110, 5);
  EXPECT_TRUE(a.predict_low < 110 && 110 < a.predict_high);
  EXPECT_EQ(b.launches, (std::vector<std::size_t>{4, 5, 6}));
  EXPECT_EQ(b.crossed, 0);
  EXPECT_EQ(b.uncrossed, 3);
  EXPECT_TRUE(b.predicts_no_crossover());
  EXPECT_EQ(b.no_crossover_text(), "below_range, overhead: 3");
  EXPECT_EQ(b.value.launches, 0);
  EXPECT_EQ(b.predict_low, 0);
  EXPECT_EQ(b.predict_high, 0);
  EXPECT_EQ(b.prediction_from, "no crossover in its launches");
  EXPECT_FALSE(b.book);  // the book's D* of launches without a measured one is not combined

  // As a history: a new launch in state B that also located none lands
  // where its state said; one in B that located a crossover does not; one
  // in A is judged by A's interval.
  std::vector<KnownState> known;
  for (const auto& st : c.states.states) {
    KnownState k{st.name, static_cast<int>(st.launches.size()), 7, st.tentative, st.levels, st.predict_low,
                 st.predict_high, {}};
    if (st.predicts_no_crossover()) k.no_crossover = st.no_crossover_text();
    known.push_back(k);
  }
  LaunchHistory h;
  h.has_states = true;
  h.states = known;
  h.material_ratio = c.states.material_ratio;
  h.significance = c.states.significance;
  const auto one = [&](const json& doc) {
    const auto p = place_launch(sweep_readings(doc), h);
    EXPECT_EQ(p.size(), 1u);
    return p.front();
  };
  const PlacedPart none_in_b = one(sweep_uncrossed_at(101e-6));
  ASSERT_TRUE(none_in_b.placement.state);
  EXPECT_EQ(h.states[*none_in_b.placement.state].name, "B");
  EXPECT_EQ(none_in_b.inside, std::optional<bool>(true));
  const PlacedPart crossed_in_b = one(sweep_at(30, 101e-6));
  ASSERT_TRUE(crossed_in_b.placement.state);
  EXPECT_EQ(h.states[*crossed_in_b.placement.state].name, "B");
  EXPECT_EQ(crossed_in_b.inside, std::optional<bool>(false));
  const PlacedPart in_a = one(sweep_at(112, 331e-6));
  ASSERT_TRUE(in_a.placement.state);
  EXPECT_EQ(h.states[*in_a.placement.state].name, "A");
  EXPECT_EQ(in_a.inside, std::optional<bool>(true));
  const PlacedPart none_in_a = one(sweep_uncrossed_at(331e-6));
  EXPECT_EQ(none_in_a.inside, std::optional<bool>(false));
  const PlacedPart unseen = one(sweep_uncrossed_at(200e-6));
  EXPECT_FALSE(unseen.placement.state);
  EXPECT_FALSE(unseen.inside);

  // Only launches without a crossover: one state, predicting none.
  const LaunchSet only = read_launches({"a", "b", "c"}, {sweep_uncrossed_at(100e-6), sweep_uncrossed_at(102e-6),
                                                         sweep_uncrossed_at(98e-6)});
  const StateSplit s = sweep_states(only);
  ASSERT_EQ(s.states.size(), 1u);
  EXPECT_EQ(s.states[0].launches.size(), 3u);
  EXPECT_TRUE(s.states[0].predicts_no_crossover());

  // Most of a state's launches without a crossover: it predicts none, and
  // the few that crossed (at the range's low end) are counted; most with
  // one: it predicts D* from those, and counts the others.
  const StateSplit most_none = sweep_states(read_launches(
      {"a", "b", "c", "d"},
      {sweep_uncrossed_at(100e-6), sweep_uncrossed_at(102e-6), sweep_at(3, 101e-6), sweep_uncrossed_at(98e-6)}));
  ASSERT_EQ(most_none.states.size(), 1u);
  EXPECT_TRUE(most_none.states[0].predicts_no_crossover());
  EXPECT_EQ(most_none.states[0].crossed, 1);
  EXPECT_EQ(most_none.states[0].uncrossed, 3);
  EXPECT_EQ(most_none.states[0].prediction_from, "no crossover in most of its launches");
  EXPECT_DOUBLE_EQ(most_none.states[0].value.median, 3);
  const StateSplit most_crossed = sweep_states(read_launches(
      {"a", "b", "c", "d"},
      {sweep_at(110, 330e-6), sweep_uncrossed_at(331e-6), sweep_at(112, 331e-6), sweep_at(108, 329e-6)}));
  ASSERT_EQ(most_crossed.states.size(), 1u);
  const LaunchState& mc = most_crossed.states[0];
  EXPECT_FALSE(mc.predicts_no_crossover());
  EXPECT_EQ(mc.uncrossed, 1);
  EXPECT_EQ(mc.value.launches, 3);
  EXPECT_TRUE(mc.predict_low < 110 && 110 < mc.predict_high);

  // Its record (as combine writes one with "D": null) is a history: the
  // state and that it predicts none travel; D*'s spread is absent.
  json list = json::array();
  for (const auto& st : s.states) {
    json levels = json::array();
    for (const auto& l : st.levels)
      levels.push_back({{"quantity", to_string(l.quantity)}, {"median", l.median}, {"spread_sd_log", l.spread_sd_log}});
    list.push_back({{"name", st.name}, {"launches_seen", st.launches.size()}, {"tentative", st.tentative},
                    {"levels", levels}, {"prediction_interval", nullptr}, {"predicts_no_crossover", true},
                    {"no_crossover", st.no_crossover_text()}});
  }
  json record = {{"command", "combine"}, {"of", "sweep"}, {"ranks", 2}, {"settings", only.settings},
                 {"D", nullptr}, {"without_crossover", {{"launches", 3}, {"of", 3}}},
                 {"states", {{"list", list}, {"of_launches", 3}, {"material_ratio", 1.1 / 0.9}, {"significance", 0.01}}}};
  const std::string path = ::testing::TempDir() + "history-no-crossover.json";
  std::ofstream(path) << record.dump();
  const LaunchHistory r = read_history(path, only.settings, 2);
  EXPECT_EQ(r.launches, 0);
  ASSERT_EQ(r.states.size(), 1u);
  EXPECT_EQ(r.states[0].launches, 3);
  EXPECT_EQ(r.states[0].no_crossover, "below_range, overhead: 3");
  const auto p = place_launch(sweep_readings(sweep_uncrossed_at(101e-6)), r);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].inside, std::optional<bool>(true));
  // Without states such a record has nothing to give.
  record.erase("states");
  std::ofstream(path) << record.dump();
  try {
    read_history(path, only.settings, 2);
    FAIL() << "accepted a record with neither D* nor states";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("nothing to expect"), std::string::npos) << e.what();
  }
}

TEST(LaunchStates, NormalQuantile) {
  EXPECT_NEAR(stability::normal_quantile(0.995), 2.5758, 1e-4);
  EXPECT_NEAR(stability::normal_quantile(0.5), 0, 1e-9);
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

// gate/gate.h: the metrics read from a record, the settings a baseline must
// share, and the verdicts of expectations and baselines.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "gate/gate.h"
#include "util/error.h"

namespace shardroof::gate {
namespace {

using nlohmann::json;

// A coll record of two ranks, one size in each placement; rank 1 is the
// slow one.
json coll_record(double busbw_GBps) {
  json per_rank = json::array({json::array({10.0, 11.0, 12.0}), json::array({20.0, 21.0, 22.0})});
  json results = json::array();
  for (const bool in_place : {false, true})
    results.push_back({{"collective", "all_reduce"}, {"impl", "ring"}, {"in_place", in_place},
                       {"bytes", 1048576}, {"busbw_GBps", busbw_GBps},
                       {"time_us", {{"median", 22.0}, {"per_rank", per_rank}}}});
  results.push_back({{"collective", "all_reduce"}, {"impl", "ring"}, {"in_place", false},
                     {"bytes", 1024}, {"busbw_GBps", busbw_GBps / 100}, {"time_us", json::object()}});
  return {{"command", "coll"},
          {"ranks", 2},
          {"environment", {{"hosts", {"a", "b"}}}},
          {"settings", {{"collective", "all_reduce"}, {"impl", "ring"}, {"sizes", {1024, 1048576}}, {"iters", 20}}},
          {"results", results}};
}

TEST(GateMetrics, CollBusbwPerSizeAndPlacementWithTheSlowestRank) {
  const auto metrics = metrics_of(coll_record(2.0));
  ASSERT_EQ(metrics.size(), 3u);
  EXPECT_EQ(metrics[0].name, "busbw");
  EXPECT_DOUBLE_EQ(metrics[0].value, 2e9);
  EXPECT_EQ(metrics[0].bytes, 1048576u);
  EXPECT_NE(metrics[0].key, metrics[1].key);  // out of place, in place
  EXPECT_NE(metrics[0].where.find("slowest rank 1 (b)"), std::string::npos) << metrics[0].where;
  EXPECT_EQ(metrics[2].where, "");  // no per-rank times
}

// Inside a collective the rank that waits for a late one has the longest
// own time: the gate names the rank whose finish time (skew + own time) is
// the latest, as the straggler line does, when the record has it.
TEST(GateMetrics, CollNamesTheRankThatFinishedLastNotTheOneThatWaitedLongest) {
  json doc = coll_record(2.0);
  const json ranks = json::array(
      {{{"rank", 0}, {"host", "a"}, {"finish_us", {{"p50", 30.0}, {"p95", 31.0}, {"p99", 32.0}}}},
       {{"rank", 1}, {"host", "b"}, {"finish_us", {{"p50", 1500.0}, {"p95", 1600.0}, {"p99", 1700.0}}}}});
  for (json& r : doc["results"]) r["ranks"] = ranks;  // own times (per_rank) say rank 1 too; make them disagree
  doc["results"][0]["time_us"]["per_rank"] = json::array({json::array({90.0, 91.0}), json::array({5.0, 6.0})});
  const auto metrics = metrics_of(doc);
  ASSERT_EQ(metrics.size(), 3u);
  EXPECT_EQ(metrics[0].where, "slowest rank 1 (b): median finish 1.5 ms per iteration, the median rank 0.765 ms");
}

TEST(GateMetrics, LinkPairWithoutAFitHasNoW) {
  const json doc = {{"command", "link"},
                    {"pairs", {{{"src", 0}, {"dst", 1}, {"W_bytes_per_s", 5e9}},
                               {{"src", 0}, {"dst", 2}, {"W_bytes_per_s", nullptr}}}}};
  const auto metrics = metrics_of(doc);
  ASSERT_EQ(metrics.size(), 2u);
  EXPECT_EQ(metrics[0].key, "pair 0-1");
  EXPECT_DOUBLE_EQ(metrics[1].value, 0);
  Verdict v;
  check_expectation(v, metrics, "W", 1e9, 0, "W >= 1 GB/s");
  ASSERT_EQ(v.checks.size(), 2u);
  EXPECT_TRUE(v.checks[0].passed);
  EXPECT_FALSE(v.checks[1].passed);
  EXPECT_DOUBLE_EQ(v.checks[1].worse_by, 1.0);
}

TEST(GateExpectation, OnlySizesFromTheThreshold) {
  const auto metrics = metrics_of(coll_record(2.0));
  Verdict v;
  check_expectation(v, metrics, "busbw", 1.5e9, default_expect_from({1024, 1048576}), "busbw >= 1.5 GB/s");
  EXPECT_EQ(v.checks.size(), 2u);  // the 1 KiB size is below a tenth of 1 MiB
  EXPECT_TRUE(v.passed());
  Verdict short_of;
  check_expectation(short_of, metrics, "busbw", 4e9, 1048576, "busbw >= 4 GB/s");
  EXPECT_EQ(short_of.failed(), 2u);
  EXPECT_DOUBLE_EQ(short_of.checks[0].worse_by, 0.5);
  Verdict none;
  check_expectation(none, metrics, "busbw", 1, 1u << 30, "busbw >= 1 B/s");
  EXPECT_FALSE(none.passed());  // nothing to check is no pass
}

// model:F: each row against F times its own "expected" busbw; a row
// without one is a note, none at all a problem.
TEST(GateExpectation, ModelFractionOfEachRowsExpectedBusbw) {
  json doc = coll_record(2.0);
  doc["results"][0]["expected"] = {{"busbw_GBps", 2.5}};  // 1 MiB: 2.0 of 2.5 GB/s expected
  doc["results"][1]["expected"] = nullptr;               // 1 MiB in place, and 1 KiB: no model
  const auto metrics = metrics_of(doc);
  Verdict pass;
  check_model_expectation(pass, metrics, "busbw", 0.8, 0, "model:0.8");
  ASSERT_EQ(pass.checks.size(), 1u);
  EXPECT_DOUBLE_EQ(pass.checks[0].limit, 2e9);
  EXPECT_TRUE(pass.passed());
  EXPECT_EQ(pass.notes.size(), 1u);
  Verdict short_of;
  check_model_expectation(short_of, metrics, "busbw", 0.9, 0, "model:0.9");
  EXPECT_FALSE(short_of.passed());
  EXPECT_NEAR(short_of.checks[0].worse_by, 1 - 2.0 / 2.25, 1e-12);
  Verdict none;
  check_model_expectation(none, metrics_of(coll_record(2.0)), "busbw", 0.8, 0, "model:0.8");
  EXPECT_FALSE(none.passed());
  EXPECT_EQ(none.problems.size(), 1u);
}

TEST(GateBaseline, WorseByMoreThanTheToleranceFails) {
  const auto run = metrics_of(coll_record(2.0));
  Verdict same;
  check_baseline(same, run, metrics_of(coll_record(2.1)), 0.10, "base.json");
  EXPECT_TRUE(same.passed());
  Verdict worse;
  check_baseline(worse, run, metrics_of(coll_record(4.0)), 0.10, "base.json");
  EXPECT_EQ(worse.failed(), 3u);
  EXPECT_DOUBLE_EQ(worse.checks[0].worse_by, 0.5);
  Verdict better;  // a run faster than its baseline passes
  check_baseline(better, run, metrics_of(coll_record(1.0)), 0.0, "base.json");
  EXPECT_TRUE(better.passed());
}

TEST(GateBaseline, TimesAndCrossoverDirections) {
  const auto sweep = [](double t, double D) {
    return json{{"command", "sweep"},
                {"ranks", 2},
                {"points", {{{"D", 64}, {"t_math_s", {{"median", t}}}, {"t_step_s", {{"median", t}}}}}},
                {"crossover", {{"D_empirical", D}}}};
  };
  Verdict v;
  check_baseline(v, metrics_of(sweep(1.0, 100)), metrics_of(sweep(0.5, 200)), 0.10, "b");
  ASSERT_EQ(v.checks.size(), 3u);  // T_math, T_step, D*
  for (const auto& c : v.checks) EXPECT_FALSE(c.passed) << c.metric.name;
  Verdict moved_up;
  check_baseline(moved_up, metrics_of(sweep(1.0, 300)), metrics_of(sweep(1.0, 200)), 0.10, "b");
  EXPECT_EQ(moved_up.failed(), 1u);  // D* moved by 50%, times equal
}

// A sweep record of two ranks at one D, with the per-rank records sweep
// writes: rank 1 finishes T_math last; T_comm has no finish times.
TEST(GateMetrics, SweepTimesNameTheSlowestRankFromThePerRankRecords) {
  const auto rank = [](int r, const char* host, double math_finish) {
    return json{{"rank", r},
                {"host", host},
                {"t_math_s", {{"finish_s", {{"p50", math_finish}, {"p95", math_finish}, {"p99", math_finish}}}}},
                {"t_step_s", {{"finish_s", {{"p50", 0.010}}}}},
                {"t_comm_s", {{"time_s", {{"p50", 0.001}}}}}};
  };
  const json doc = {{"command", "sweep"},
                    {"ranks", 2},
                    {"points",
                     {{{"D", 4096},
                       {"t_math_s", {{"median", 0.080}}},
                       {"t_comm_s", {{"median", 0.001}}},
                       {"t_step_s", {{"median", 0.081}}},
                       {"ranks", {rank(0, "a", 0.020), rank(1, "b", 0.080)}}}}}};
  const auto metrics = metrics_of(doc);
  ASSERT_EQ(metrics.size(), 3u);  // T_math, T_comm, T_step
  EXPECT_EQ(metrics[0].name, "T_math");
  EXPECT_EQ(metrics[0].where, "slowest rank 1 (b): median finish 80 ms per iteration, the median rank 50 ms");
  EXPECT_EQ(metrics[1].where, "time per iteration = max over the 2 ranks");  // no finish times to compare
  EXPECT_EQ(metrics[2].where.rfind("slowest rank 0 (a)", 0), 0u) << metrics[2].where;  // a tie: the first
}

TEST(GateBaseline, KeysOnOneSideAreNotesNoneInCommonFails) {
  json base = coll_record(2.0);
  base["results"].erase(0);
  Verdict v;
  check_baseline(v, metrics_of(coll_record(2.0)), metrics_of(base), 0.1, "b");
  EXPECT_TRUE(v.passed());
  EXPECT_EQ(v.notes.size(), 1u);
  Verdict none;
  check_baseline(none, metrics_of(coll_record(2.0)), {}, 0.1, "b");
  EXPECT_FALSE(none.passed());
}

TEST(GateSettings, OtherSettingsAreRefusedNamingEachField) {
  const json run = coll_record(2.0);
  EXPECT_NO_THROW(require_comparable(run, coll_record(9.0), "b"));
  json iters = coll_record(2.0);
  iters["settings"]["iters"] = 5;  // noise, not what is measured
  EXPECT_NO_THROW(require_comparable(run, iters, "b"));
  json other = coll_record(2.0);
  other["ranks"] = 4;
  other["settings"]["impl"] = "native";
  other["environment"]["hosts"] = {"a", "a", "c", "c"};
  try {
    require_comparable(run, other, "b.json");
    FAIL() << "no error";
  } catch (const UsageError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("ranks 4 (this run: 2)"), std::string::npos) << m;
    EXPECT_NE(m.find("settings.impl \"native\" (this run: \"ring\")"), std::string::npos) << m;
    EXPECT_EQ(m.find("hosts"), std::string::npos) << m;  // two hosts each
  }
  json link = coll_record(2.0);
  link["command"] = "link";
  EXPECT_THROW(require_comparable(run, link, "b"), UsageError);
  EXPECT_THROW(require_comparable(run, json::array(), "b"), UsageError);
  EXPECT_THROW(require_comparable(run, json{{"command", "coll"}}, "b"), UsageError);
}


// A peak record of one node: float's large GEMM beside the hardware's
// peak, its thin GEMM, and a double GEMM whose peak is not known.
json peak_record() {
  json gemm = json::array();
  gemm.push_back({{"datatype", "float"}, {"m", 1024}, {"n", 1024}, {"k", 1024}, {"flops_per_s", 80e9},
                  {"thin", json::array({{{"k", 16}, {"flops_per_s", 20e9}}})},
                  {"hardware", {{"flops_per_s_per_rank", 100e9}, {"share", 0.8}}}});
  gemm.push_back({{"datatype", "double"}, {"m", 1024}, {"n", 1024}, {"k", 1024}, {"flops_per_s", 40e9},
                  {"thin", json::array()}, {"hardware", nullptr}});
  return {{"command", "peak"}, {"nodes", json::array({{{"host", "a"}, {"ranks", 1}, {"gemm", gemm}}})}};
}

TEST(GateHardware, PeaksLargeGemmIsCBesideTheHardwaresPeak) {
  const auto metrics = metrics_of(peak_record());
  std::size_t c = 0, thin = 0;
  for (const auto& m : metrics) {
    if (m.name == "C") ++c;
    if (m.name == "GEMM") ++thin;
  }
  EXPECT_EQ(c, 2u);
  EXPECT_EQ(thin, 1u);
  Verdict pass;
  check_hardware_expectation(pass, metrics, "C", 0.7, "hw:0.7");
  ASSERT_EQ(pass.checks.size(), 1u);  // double has no hardware peak: not judged
  EXPECT_TRUE(pass.passed());
  EXPECT_DOUBLE_EQ(pass.checks[0].limit, 70e9);
  Verdict fail;
  check_hardware_expectation(fail, metrics, "C", 0.9, "hw:0.9");
  EXPECT_FALSE(fail.passed());
  EXPECT_NEAR(fail.checks[0].worse_by, 1 - 80.0 / 90.0, 1e-12);
  // A rate gate judges C only, not the thin GEMMs.
  Verdict rate;
  check_expectation(rate, metrics, "C", 30e9, 0, "30G");
  EXPECT_EQ(rate.checks.size(), 2u);
  EXPECT_TRUE(rate.passed());
}

TEST(GateHardware, NothingWithALimitIsAProblem) {
  json doc = peak_record();
  doc["nodes"][0]["gemm"][0]["hardware"] = nullptr;
  Verdict v;
  check_hardware_expectation(v, metrics_of(doc), "C", 0.5, "hw:0.5");
  EXPECT_TRUE(v.checks.empty());
  EXPECT_EQ(v.problems.size(), 1u);
  EXPECT_FALSE(v.passed());
}

TEST(GateHardware, LinkPairsAndTheSweepsCCarryTheirLimits) {
  json link = {{"command", "link"},
               {"pairs", json::array({{{"src", 0}, {"dst", 1}, {"W_bytes_per_s", 0.1e9},
                                       {"line_rate", {{"bytes_per_s", 0.125e9}}}},
                                      {{"src", 0}, {"dst", 2}, {"W_bytes_per_s", 5e9}, {"line_rate", nullptr}}})}};
  Verdict v;
  check_hardware_expectation(v, metrics_of(link), "W", 0.9, "hw:0.9");
  ASSERT_EQ(v.checks.size(), 1u);  // the pair in memory has no line rate
  EXPECT_FALSE(v.passed());        // 0.8 of the line rate
  json sweep = {{"command", "sweep"},
                {"ceilings", {{"C_flops_per_s", 60e9}, {"hardware_peak", {{"flops_per_s_per_rank", 120e9}}}}}};
  Verdict s;
  check_hardware_expectation(s, metrics_of(sweep), "C", 0.4, "hw:0.4");
  ASSERT_EQ(s.checks.size(), 1u);
  EXPECT_TRUE(s.passed());
}

}  // namespace
}  // namespace shardroof::gate

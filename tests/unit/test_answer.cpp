// The answer block's lines, pinned for the cases a user meets: a sweep
// whose D* sits on the GEMM's floor, one on the compute roof, one with no
// crossover at all, coll and combine. Each record holds only what the
// answer reads (a record with less still answers; the page names the rest).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "report/answer.h"
#include "report/bringup.h"

namespace shardroof {
namespace {

using nlohmann::json;

std::vector<std::string> lines_of(const json& doc) {
  std::ostringstream out;
  print_answer(out, answer_of(bringup::read_record(doc, "r.json")));
  std::vector<std::string> lines;
  std::istringstream in(out.str());
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

json sweep_doc() {
  return {{"command", "sweep"},
          {"ranks", 2},
          {"complete", true},
          {"settings",
           {{"swept", "D"}, {"datatype", "float"}, {"collective", "all_reduce"}, {"impl", "ring"}, {"B", 1024}, {"F", 1024}}},
          {"points",
           {{{"D", 64}, {"t_math_s", {{"median", 1e-4}, {"min", 1e-4}, {"max", 2e-4}}},
             {"t_comm_s", {{"median", 3e-4}, {"min", 3e-4}, {"max", 4e-4}}}},
            {{"D", 256}, {"t_math_s", {{"median", 5e-4}, {"min", 5e-4}, {"max", 6e-4}}},
             {"t_comm_s", {{"median", 3e-4}, {"min", 3e-4}, {"max", 4e-4}}}}}},
          {"stability", {{"verdict", "stable"}}},
          {"ceilings",
           {{"C_flops_per_s", 4e10},
            {"W_bytes_per_s", 5e9},
            {"link_source", "ring probe"},
            {"hardware_peak", {{"flops_per_s_per_rank", 1e11}, {"name", "this core's FMA peak"}}}}}};
}

TEST(Answer, SweepOnTheComputeRoof) {
  json doc = sweep_doc();
  doc["crossover"] = {{"kind", "bracketed"},     {"D_empirical", 150.4},       {"D_empirical_ci", {140, 163}},
                      {"D_book", 139.0},         {"D_book_ci", {120, 160}},    {"book_holds_measured", true},
                      {"roof", "compute"},       {"on_floor", false},
                      {"conditioning", {{"measured", {{"slope", 0.93}, {"ill_conditioned", false}}}}}};
  EXPECT_EQ(lines_of(doc),
            (std::vector<std::string>{
                "# answer: sweep: all_reduce ring, float, B=1024 F=1024, 2 ranks",
                "D* = 150 [140, 163] (95%, within this launch), compute roof",
                "trust: stable over the run; well-conditioned (slope 0.93)",
                "book: D*_book = 139 [120, 160]: holds the measured D* (-8%) (link from ring probe)",
                "ceiling: C_peak 40 GFLOP/s per rank = 0.40x this core's FMA peak; link W 5 GB/s",
                "next: C_peak is 0.40x the hardware's own peak: -v sets the BLAS kernel and the core's loops beside "
                "it"}));
}

TEST(Answer, SweepOnTheFloor) {
  json doc = sweep_doc();
  doc["ceilings"]["hardware_peak"]["flops_per_s_per_rank"] = 5e10;
  doc["crossover"] = {{"kind", "bracketed"},     {"D_empirical", 96.0},       {"D_empirical_ci", {40, nullptr}},
                      {"D_book", 72.8},          {"D_book_ci", {50, 90}},     {"book_holds_measured", false},
                      {"roof", "memory"},        {"on_floor", true},
                      {"conditioning", {{"measured", {{"slope", 0.12}, {"ill_conditioned", true}}}}}};
  EXPECT_EQ(lines_of(doc),
            (std::vector<std::string>{
                "# answer: sweep: all_reduce ring, float, B=1024 F=1024, 2 ranks",
                "D* = 96 [40, inf) (95%, within this launch), memory roof (the GEMM's floor)",
                "trust: stable over the run; ill-conditioned (slope 0.12: a change x of T_comm moves D* by about "
                "x/0.12)",
                "book: D*_book = 72.8 [50, 90]: does not hold the measured D* (-24%) (link from ring probe)",
                "ceiling: C_peak 40 GFLOP/s per rank = 0.80x this core's FMA peak; link W 5 GB/s",
                "next: D* sits where T_math hardly grows; read it as its interval, and combine launches before "
                "relying on it"}));
}

TEST(Answer, SweepWithoutCrossover) {
  json doc = sweep_doc();
  doc["ceilings"]["hardware_peak"]["flops_per_s_per_rank"] = 5e10;
  doc["crossover"] = {{"kind", "below_range"},
                      {"D_empirical", nullptr},
                      {"no_crossover", {{"t_comm_s", 2e-5}, {"floor_s", 9e-5}, {"cause", "memory"}}}};
  doc["ceilings"]["floor"] = {{"time_s", 9e-5}, {"cause", "memory"}};
  EXPECT_EQ(lines_of(doc),
            (std::vector<std::string>{
                "# answer: sweep: all_reduce ring, float, B=1024 F=1024, 2 ranks",
                "no crossover: T_comm 20 us is below the GEMM's floor 90 us (memory): compute-side at every D",
                "trust: stable over the run",
                "book: no prediction in the record",
                "ceiling: C_peak 40 GFLOP/s per rank = 0.80x this core's FMA peak; link W 5 GB/s",
                "next: these ranks' link is faster than the GEMM's floor: no sharding along D is "
                "communication-bound here"}));
}

TEST(Answer, Coll) {
  const auto row = [](const char* impl, int bytes, double us, double busbw, double model_busbw) {
    return json{{"impl", impl},
                {"in_place", false},
                {"bytes", bytes},
                {"time_us", {{"median", us}}},
                {"busbw_GBps", busbw},
                {"wrong", 0},
                {"expected", {{"time_s", us * 1e-6 * busbw / model_busbw}, {"busbw_GBps", model_busbw}}}};
  };
  const json doc = {{"command", "coll"},
                    {"ranks", 2},
                    {"settings", {{"collective", "all_reduce"}, {"datatype", "float"}}},
                    {"stability", {{"rounds", 12}, {"run", {{"verdict", "stable"}}}}},
                    {"results",
                     {row("ring", 1024, 20, 0.05, 0.1), row("ring", 1 << 20, 400, 2.6, 3.2),
                      row("native", 1024, 15, 0.07, 0.1), row("native", 1 << 20, 500, 2.1, 3.2)}}};
  EXPECT_EQ(lines_of(doc), (std::vector<std::string>{
                               "# answer: coll: all_reduce, float, 2 ranks",
                               "ring: busbw 2.6 GB/s at 1 MiB (400 us); model 3.2 GB/s (0.81x of it)",
                               "native: busbw 2.1 GB/s at 1 MiB (500 us); model 3.2 GB/s (0.66x of it)",
                               "trust: stable over 12 rounds; results checked",
                               "next: ring is the fastest at 1 MiB; `--impl auto` picks per size from a tuning "
                               "table (--tune-to)"}));
}

TEST(Answer, Combine) {
  const auto launch = [](double D, double lo, double hi, const char* stability) {
    return json{{"path", "s.json"}, {"stability", stability}, {"D", {{"value", D}, {"ci", {lo, hi}}}}};
  };
  const json doc = {{"command", "combine"},
                    {"of", "sweep"},
                    {"settings", {{"swept", "D"}}},
                    {"launches", {launch(100, 90, 110, "stable"), launch(120, 100, 130, "stable"),
                                  launch(104, 95, 115, "unstable")}},
                    {"D", {{"median", 104.0}, {"ci", {92, 121}}, {"prediction_interval", {80, 140}}, {"between_share", 0.62}}},
                    {"book", {{"median", 72.8}, {"ci", {60, 90}}}},
                    {"book_holds_measured", false}};
  EXPECT_EQ(lines_of(doc),
            (std::vector<std::string>{
                "# answer: combine: 3 launches of sweep",
                "D* = 104 [92, 121] (95%, across 3 launches)",
                "next launch: D* within [80, 140] (95% prediction interval)",
                "trust: variance of log D* 62% between launches; each launch: stable, stable, unstable",
                "book: D*_book = 72.8 [60, 90]: does not hold the measured D* (-30%)",
                "next: launches differ more than rounds within one: more launches narrow it, longer ones do not"}));
}

// Launches that located no crossover: combine's record has no D* where
// fewer than two located one, and its answer is what they located.
TEST(Answer, CombineWithoutACrossover) {
  const json none = {{"launches", 2},
                     {"of", 2},
                     {"kinds", {{{"kind", "below_range, overhead"}, {"launches", 2}}}},
                     {"t_comm_s", {{"median", 533e-6}, {"min", 520e-6}, {"max", 546e-6}, {"launches", 2}}},
                     {"floor_s", {{"median", 700e-6}, {"min", 699e-6}, {"max", 701e-6}, {"launches", 2}}},
                     {"each", {{{"path", "a.json"}, {"stability", "stable"}, {"kind", "below_range"}, {"cause", "overhead"},
                                {"t_comm_s", 520e-6}, {"floor_s", 699e-6}},
                               {{"path", "b.json"}, {"stability", "unstable"}, {"kind", "below_range"}, {"cause", "overhead"},
                                {"t_comm_s", 546e-6}, {"floor_s", 701e-6}}}}};
  const json doc = {{"command", "combine"}, {"of", "sweep"},           {"settings", {{"swept", "D"}}},
                    {"launches", json::array()}, {"D", nullptr},          {"without_crossover", none}};
  EXPECT_EQ(lines_of(doc),
            (std::vector<std::string>{
                "# answer: combine: 2 launches of sweep",
                "no crossover in 2 of 2 launches (below_range, overhead: 2): T_comm at S 533 us against the GEMM's "
                "floor 700 us (medians over them)",
                "trust: each launch: stable, unstable",
                "next: these ranks' link is faster than the GEMM's floor in every such launch: no sharding along D is "
                "communication-bound here"}));
  // One of them above the range (no floor): "every such launch" would not hold.
  json above = doc;
  above["without_crossover"]["each"][1]["kind"] = "above_range";
  EXPECT_EQ(lines_of(above).back(),
            "next: each launch's own answer says why it located none (its -v table); sweep a wider range");
  // Beside a combined D*, the same line says they were left out; the states count the launches with D*.
  json mixed = doc;
  mixed["D"] = {{"median", 104.0}, {"ci", {92, 121}}, {"prediction_interval", {80, 140}}, {"between_share", 0.1}};
  mixed["launches"] = {{{"path", "c.json"}, {"stability", "stable"}, {"D", {{"value", 100}, {"ci", {90, 110}}}}},
                       {{"path", "d.json"}, {"stability", "stable"}, {"D", {{"value", 108}, {"ci", {95, 115}}}}}};
  mixed["without_crossover"]["of"] = 4;
  const auto lines = lines_of(mixed);
  ASSERT_GE(lines.size(), 3u);
  EXPECT_EQ(lines[0], "# answer: combine: 4 launches of sweep");
  EXPECT_EQ(lines[1], "D* = 104 [92, 121] (95%, across 2 launches)");
  EXPECT_EQ(lines[2], "no crossover in 2 of 4 launches (below_range, overhead: 2): T_comm at S 533 us against the "
                      "GEMM's floor 700 us (medians over them): left out of D*");
}

// A record from another version: fields missing and unknown ones added.
// It still answers, and what it lacks is named.
TEST(Answer, RecordWithMissingAndUnknownFields) {
  json doc = sweep_doc();
  doc.erase("ceilings");
  doc["points"][1].erase("t_comm_s");
  doc["a_field_from_the_future"] = {{"x", 1}};
  doc["crossover"] = {{"kind", "above_range"}};
  const bringup::BringUp b = bringup::read_record(doc, "r.json");
  const AnswerBlock a = answer_of(b);
  ASSERT_FALSE(a.lines.empty());
  EXPECT_EQ(a.lines.front(), "D* above the range measured (> 64): communication-bound at every D measured");
  bool named = false;
  for (const auto& s : b.skipped) named = named || s.find("points[*]") != std::string::npos;
  EXPECT_TRUE(named) << "skipped: " << b.skipped.size();
  for (const auto& l : a.lines) EXPECT_LE(l.size(), 200u);
  EXPECT_LE(a.lines.size() + 1, kAnswerMaxLines);
}

}  // namespace
}  // namespace shardroof

// The pipeline model of the chunked step (model/pipeline.h) on constructed
// chunk timings: the recurrence against the book's formula, the parts of
// the gap adding up, K chosen by the margin, and the step's efficiency at
// D* against the book (50% without overlap, 90% at about 9 x D*).
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "model/pipeline.h"

namespace shardroof::model {
namespace {

Shape shape2(double B = 1000, double F = 1000) {
  Shape s;
  s.B = B;
  s.F = F;
  s.ranks = 2;
  s.bytes_per_elem = 4;
  s.collective = Collective::AllReduce;
  return s;
}

Ceilings link(double C, double W, double a = 0) {
  Ceilings c;
  c.flops_per_s = C;
  c.link_bytes_per_s = W;
  c.latency_s = a;
  return c;
}

TEST(Pipeline, EqualChunksFollowTheBookFormula) {
  // g + (K-1) max(g, c) + c, both ways round.
  EXPECT_DOUBLE_EQ(pipeline_time({1, 1, 1, 1}, {3, 3, 3, 3}), 1 + 3 * 3 + 3);
  EXPECT_DOUBLE_EQ(pipeline_time({3, 3, 3, 3}, {1, 1, 1, 1}), 3 + 3 * 3 + 1);
  EXPECT_DOUBLE_EQ(pipeline_time({2}, {5}), 7);  // one chunk: the plain step
  EXPECT_DOUBLE_EQ(pipeline_time({}, {}), 0);
}

TEST(Pipeline, UnequalChunksWaitForWhicheverIsLater) {
  // gemm ends 1, 5, 6; comm: [1,3), [5,6), [6,10).
  EXPECT_DOUBLE_EQ(pipeline_time({1, 4, 1}, {2, 1, 4}), 10);
  EXPECT_THROW(pipeline_time({1, 2}, {1}), std::invalid_argument);
}

TEST(Pipeline, IdealIsMaxPlusMinOverK) {
  PipelineInputs in;
  in.t_math = 8;
  in.t_comm = 4;
  in.gemm = {2, 2, 2, 2};
  in.comm = {1, 1, 1, 1};
  in.elements = {10, 10, 10, 10};
  const PipelinePrediction p = predict_pipeline(in);
  EXPECT_DOUBLE_EQ(p.t_ideal, 8 + 4.0 / 4);
  EXPECT_DOUBLE_EQ(p.t_no_overlap, 12);
  EXPECT_DOUBLE_EQ(p.t_perfect, 8);
  // Chunks as the even split: the model is the ideal, every part zero.
  EXPECT_DOUBLE_EQ(p.t_model, p.t_ideal);
  EXPECT_DOUBLE_EQ(p.thinner_gemms, 0);
  EXPECT_DOUBLE_EQ(p.chunk_latency, 0);
  EXPECT_DOUBLE_EQ(p.link_model, 0);
}

TEST(Pipeline, PartsOfTheModelAddUp) {
  // Communication-bound: T_math 4, T_comm 8, K 4, latency 0.4 per collective.
  PipelineInputs in;
  in.t_math = 4;
  in.t_comm = 8;
  in.gemm = {1.5, 1.5, 1.5, 1.5};                  // thinner: 1.5 instead of 1
  in.elements = {25, 25, 25, 25};
  in.latency_s = 0.4;
  in.comm = {2.5, 2.5, 2.5, 2.5};                  // link model: 2.2 + 0.3 paid again
  const PipelinePrediction p = predict_pipeline(in);
  EXPECT_DOUBLE_EQ(p.t_ideal, 1 + 4 * 2);          // g + K c
  EXPECT_DOUBLE_EQ(p.thinner_gemms, 0.5);          // the first GEMM, exposed, 0.5 longer
  EXPECT_NEAR(p.chunk_latency, 4 * 0.3, 1e-12);    // each of 4 chunks pays 0.4 - 0.1 more
  EXPECT_NEAR(p.link_model, 4 * (2.5 - 2.3), 1e-12);
  EXPECT_NEAR(p.t_ideal + p.thinner_gemms + p.chunk_latency + p.link_model, p.t_model, 1e-12);
  EXPECT_DOUBLE_EQ(p.t_model, 1.5 + 4 * 2.5);
}

TEST(Pipeline, GapSplitsIntoNamedParts) {
  PipelineInputs in;
  in.t_math = 8;
  in.t_comm = 4;
  in.gemm = {2, 2, 2, 2};
  in.comm = {1, 1, 1, 1};
  in.elements = {1, 1, 1, 1};
  const PipelinePrediction p = predict_pipeline(in);  // 9
  PipelineMeasured m;
  m.gemm_alone = {2, 2, 2, 2};
  m.comm_alone = {1.25, 1.25, 1.25, 1.25};          // the collective alone: 0.25 above the link model
  // Beside a collective, GEMMs 2..4 take 2.5 (25% slower); collectives 1..3 take 1.5.
  m.in_step.gemm = {2, 2.5, 2.5, 2.5};
  m.in_step.comm = {1.5, 1.5, 1.5, 1.25};
  m.in_step.step = 10.0;  // stamped: shorter than the chained durations (10.75), so hand-over < 0
  m.t_overlap = 11.5;
  const GapParts g = split_gap(in, p, m);
  // alone: 2+2+2+2+1.25 = 9.25; GEMMs beside: 2+7.5+1.25 = 10.75; both: the
  // same (collectives still hidden): 10.75.
  EXPECT_DOUBLE_EQ(g.collectives_alone, 0.25);
  EXPECT_DOUBLE_EQ(g.gemm_interference, 1.5);
  EXPECT_DOUBLE_EQ(g.comm_interference, 0);
  EXPECT_DOUBLE_EQ(g.hand_over, 10.0 - 10.75);
  EXPECT_DOUBLE_EQ(g.other, 1.5);
  EXPECT_NEAR(p.t_model + g.collectives_alone + g.gemm_interference + g.comm_interference + g.hand_over + g.other,
              m.t_overlap, 1e-12);
  EXPECT_DOUBLE_EQ(g.gemm_slowdown, 1.25);
  EXPECT_DOUBLE_EQ(g.comm_slowdown, 1.5 / 1.25);
}

TEST(Pipeline, InterferenceSlowsOnlyWhatOverlaps) {
  // Compute-bound 4 chunks: g 2, c 1. GEMMs 2..4 each overlap a whole
  // collective (1 of their 2), collectives 1..3 run wholly beside a GEMM.
  const Interference s{1.5, 2.0};
  // g: 2, 2.5, 2.5, 2.5 (ends 2, 4.5, 7, 9.5); c: 2, 2, 2, 1 -> last ends 10.5.
  EXPECT_DOUBLE_EQ(pipeline_time({2, 2, 2, 2}, {1, 1, 1, 1}, s), 10.5);
  EXPECT_DOUBLE_EQ(pipeline_time({2, 2, 2, 2}, {1, 1, 1, 1}, Interference{}), 9);
  PipelineInputs in;
  in.t_math = 8;
  in.t_comm = 4;
  in.gemm = {2, 2, 2, 2};
  in.comm = {1, 1, 1, 1};
  in.elements = {1, 1, 1, 1};
  in.interference = s;
  const PipelinePrediction p = predict_pipeline(in);
  EXPECT_DOUBLE_EQ(p.t_predicted, 10.5);
  EXPECT_DOUBLE_EQ(p.interference, 1.5);
}

TEST(Pipeline, ThePredictionTakesTheMeasuredTComm) {
  // The link model says 1 per chunk, the collective measured beside the
  // steps took 8 (2 per chunk) and the latency 0.4 is paid again by 3 of
  // the 4 chunks (0.3 each): chunk collectives of 2.3. GEMMs of 1: the
  // pipeline is 1 + 4 * 2.3 = 10.2, whatever the link model says.
  PipelineInputs in;
  in.t_math = 4;
  in.t_comm = 8;
  in.gemm = {1, 1, 1, 1};
  in.comm = {1, 1, 1, 1};
  in.elements = {1, 1, 1, 1};
  in.latency_s = 0.4;
  const PipelinePrediction p = predict_pipeline(in);
  EXPECT_NEAR(p.t_predicted, 10.2, 1e-12);
  EXPECT_NEAR(p.t_ideal + p.thinner_gemms + p.chunk_latency + p.interference, p.t_predicted, 1e-12);
  EXPECT_DOUBLE_EQ(p.t_model, 5);  // the link model's pipeline, 1 + 4 * 1
}

TEST(Pipeline, InterferenceFromTheUnchunkedStepRunTogether) {
  // T_math 4 alone, 5 beside the collective (the shorter: 1.25); T_comm 10
  // alone, 12 beside: its 2 extra over the GEMM's 5 -> 1.4.
  const Interference s = interference_from(4, 10, 5, 12);
  EXPECT_DOUBLE_EQ(s.gemm, 1.25);
  EXPECT_DOUBLE_EQ(s.comm, 1.4);
  const Interference none = interference_from(4, 10, 3.9, 9.5);  // faster together: noise, not a speed-up
  EXPECT_DOUBLE_EQ(none.gemm, 1);
  EXPECT_DOUBLE_EQ(none.comm, 1);
  EXPECT_DOUBLE_EQ(interference_from(0, 10, 1, 1).gemm, 1);
  // The collective 3 longer beside a GEMM of 1: it lost at most the GEMM's window (x2).
  EXPECT_DOUBLE_EQ(interference_from(1, 10, 1, 13).comm, 2);
}

TEST(Pipeline, InterferenceFromTheTransportsCpu) {
  // One core per rank, one GEMM thread: the transport's 0.35 cores come
  // from the GEMM's core, which keeps 0.65: both x1/0.65.
  Interference s = cpu_interference({1, 1, 0.35});
  EXPECT_DOUBLE_EQ(s.gemm, 1 / 0.65);
  EXPECT_DOUBLE_EQ(s.comm, s.gemm);
  // Two cores per rank, one GEMM thread: the spare core takes the first
  // core of transport work, the other 0.5 come from the GEMM's: x2 (at most).
  EXPECT_DOUBLE_EQ(cpu_interference({2, 1, 1.5}).gemm, 2);
  EXPECT_DOUBLE_EQ(cpu_interference({2, 1, 0.9}).gemm, 1);
  // Four threads on four cores, a transport of one core: 4 / 3.
  EXPECT_DOUBLE_EQ(cpu_interference({4, 4, 1}).gemm, 4.0 / 3);
  // More threads than cores: the cores are what the GEMM uses (2 of 2, 0.5 lost).
  EXPECT_DOUBLE_EQ(cpu_interference({2, 8, 0.5}).gemm, 2 / 1.5);
  // Nothing taken, or nothing known: none.
  s = cpu_interference({1, 1, 0});
  EXPECT_DOUBLE_EQ(s.gemm, 1);
  EXPECT_DOUBLE_EQ(s.comm, 1);
  EXPECT_DOUBLE_EQ(cpu_interference({0, 1, 0.5}).gemm, 1);
}

TEST(Pipeline, PredictionFromTheChunksTimedAlone) {
  // Two chunks, GEMMs 2 and 2, T_comm 6 (shares 3 and 3, no latency); the
  // collectives alone took 4 and 4: the pipeline 2 + max(2, 4) + 4 = 10
  // against the shares' 2 + 3 + 3 = 8: chunk_collectives = 2. Slowed x1.5
  // where they overlap (chunk 2's GEMM beside chunk 1's collective, and
  // chunk 1's collective beside chunk 2's GEMM, for 2 each: 1 more each):
  // chunk 1's collective ends at 2 + 5, chunk 2's GEMM at 2 + 3, so
  // 7 + 4 = 11, interference 1.
  PipelineInputs in;
  in.t_math = 4;
  in.t_comm = 6;
  in.gemm = {2, 2};
  in.comm = {3, 3};
  in.elements = {1, 1};
  in.comm_alone = {4, 4};
  in.interference = {1.5, 1.5};
  const PipelinePrediction p = predict_pipeline(in);
  EXPECT_DOUBLE_EQ(p.chunk_collectives, 2);
  EXPECT_DOUBLE_EQ(p.t_predicted, 11);
  EXPECT_DOUBLE_EQ(p.interference, 1);
  EXPECT_NEAR(p.t_ideal + p.thinner_gemms + p.chunk_latency + p.chunk_collectives + p.interference, p.t_predicted,
              1e-12);
  // Without them the shares stand in.
  in.comm_alone.clear();
  EXPECT_DOUBLE_EQ(predict_pipeline(in).chunk_collectives, 0);
}

TEST(Pipeline, CollectivesBesideBusyCoresWhileGemmsRun) {
  // GEMMs 2 and 2 end at 4. Chunk 1's collective starts at 2 with 2 of
  // GEMMs left beside it: beside busy cores it needs 3, so two thirds of
  // it run there and the last third at its pace alone (1/3 of 1):
  // 2 + 2 + 1/3. Chunk 2's starts after every GEMM: alone, 1.
  EXPECT_NEAR(pipeline_time_beside({2, 2}, {1, 1}, {3, 3}, {1, 1}), 4 + 1.0 / 3 + 1, 1e-12);
  // Within its window it takes its busy time whole: 2 + 1.5, then 1.
  EXPECT_NEAR(pipeline_time_beside({2, 2}, {1, 1}, {1.5, 1.5}, {1, 1}), 5, 1e-12);
  // Never faster than alone; with busy = alone it is the pipeline with the
  // GEMMs' slowdown alone.
  EXPECT_NEAR(pipeline_time_beside({2, 2}, {1, 1}, {0.5, 0.5}, {1, 1}), pipeline_time({2, 2}, {1, 1}), 1e-12);
  EXPECT_NEAR(pipeline_time_beside({1, 3, 2}, {4, 2, 1}, {4, 2, 1}, {1.5, 1.5, 1.5}),
              pipeline_time({1, 3, 2}, {4, 2, 1}, Interference{1.5, 1}), 1e-12);
  EXPECT_THROW(pipeline_time_beside({1, 2}, {1, 2}, {1}, {1, 1}), std::invalid_argument);
  // Chunk 2's GEMM (2) beside collective 1 (3 beside busy cores) slowed
  // x2 for all of it: GEMMs end at 6; collective 1 starts at 2, 3 < 4: 5;
  // collective 2 at 6, alone: 7.
  EXPECT_NEAR(pipeline_time_beside({2, 2}, {1, 1}, {3, 3}, {2, 1}), 7, 1e-12);
  EXPECT_DOUBLE_EQ(busy_slowdown({1, 1}, {3, 0.5}), 2);
  EXPECT_DOUBLE_EQ(busy_slowdown({}, {}), 1);

  // In the prediction they replace the interference's collective slowdown;
  // the parts still add up, and the interference part stays >= 0.
  PipelineInputs in;
  in.t_math = 4;
  in.t_comm = 2;
  in.gemm = {2, 2};
  in.comm = {1, 1};
  in.elements = {1, 1};
  in.comm_alone = {1, 1};
  in.comm_busy = {3, 3};
  in.interference = {1.5, 7};  // the collective's 7 is not applied
  const PipelinePrediction p = predict_pipeline(in);
  EXPECT_NEAR(p.t_predicted, pipeline_time_beside({2, 2}, {1, 1}, {3, 3}, {1.5, 1.5}), 1e-12);
  in.gemm_beside = {1.2, 1.1};  // per collective, where given
  EXPECT_NEAR(predict_pipeline(in).t_predicted, pipeline_time_beside({2, 2}, {1, 1}, {3, 3}, {1.2, 1.1}), 1e-12);
  EXPECT_GT(p.interference, 0);
  EXPECT_NEAR(p.t_ideal + p.thinner_gemms + p.chunk_latency + p.chunk_collectives + p.interference, p.t_predicted,
              1e-12);
}

TEST(Pipeline, TheGemmLosesTheTransportsCpuSpreadOverItsTimeBesideBusyCores) {
  // Half a core per rank (4 ranks on 2 CPUs), one GEMM thread, the
  // transport 0.2 cores alone: 0.5 / 0.3 beside a collective as fast as
  // alone; beside one twice as long it takes 0.1: 0.5 / 0.4.
  CpuShare cpu;
  cpu.cores_per_rank = 0.5;
  cpu.gemm_threads = 1;
  cpu.transport_cores = 0.2;
  EXPECT_DOUBLE_EQ(cpu_interference_beside(cpu, 1, 1).gemm, 0.5 / 0.3);
  EXPECT_DOUBLE_EQ(cpu_interference_beside(cpu, 1, 0.5).gemm, 0.5 / 0.3);  // never faster than alone
  EXPECT_DOUBLE_EQ(cpu_interference_beside(cpu, 1, 2).gemm, 0.5 / 0.4);
  EXPECT_DOUBLE_EQ(cpu_interference_beside(cpu, 1, 2).comm, 0.5 / 0.4);
}

TEST(Pipeline, DurationsFromSpans) {
  const StepDurations d = durations_of({{10, 12, 12.5, 13}, {12, 14.5, 14.6, 16}});
  ASSERT_EQ(d.gemm.size(), 2u);
  EXPECT_DOUBLE_EQ(d.gemm[1], 2.5);
  EXPECT_DOUBLE_EQ(d.comm[0], 0.5);
  EXPECT_DOUBLE_EQ(d.step, 6);
}

TEST(Pipeline, EfficiencyAgainstThePipelinesOwnIdeal) {
  PipelinePrediction p;
  p.t_no_overlap = 12;
  p.t_ideal = 9;
  EXPECT_DOUBLE_EQ(*pipeline_efficiency(p, 9), 1);
  EXPECT_DOUBLE_EQ(*pipeline_efficiency(p, 10.5), 0.5);
  EXPECT_DOUBLE_EQ(*pipeline_efficiency(p, 13), -1.0 / 3);
  p.t_ideal = 11.99;
  EXPECT_FALSE(pipeline_efficiency(p, 11));
}

TEST(Pipeline, AutoTakesTheFewestChunksWithinTheMargin) {
  EXPECT_EQ(choose_chunks({{1, 12}, {2, 10}, {4, 9.2}, {8, 9.0}, {16, 9.1}}, 0.03), 4);
  EXPECT_EQ(choose_chunks({{1, 12}, {2, 10}, {4, 9.5}, {8, 9.0}}, 0.03), 8);
  EXPECT_EQ(choose_chunks({{1, 5}, {2, 6}, {4, 7}}, 0.03), 1);  // chunking never pays
  EXPECT_EQ(choose_chunks({}, 0.03), 1);
}

TEST(Pipeline, AutoCandidatesStayInsideThePlansBound) {
  EXPECT_EQ(auto_candidates(1), std::vector<int>({1}));
  EXPECT_EQ(auto_candidates(5), std::vector<int>({1, 2, 4}));
  const auto many = auto_candidates(1u << 20);
  EXPECT_EQ(many.back(), kAutoMaxChunks);
}

TEST(Pipeline, ChunkCollectivePaysTheLatencyAgain) {
  const Shape s = shape2();
  const Ceilings c = link(1e12, 1e9, 1e-5);
  EXPECT_DOUBLE_EQ(collective_latency(s, c), 2e-5);
  // Four chunks: the bandwidth term splits, the latency does not.
  EXPECT_NEAR(4 * chunk_comm_time(s, c, 250e3), t_comm(s, c) + 3 * 2e-5, 1e-15);
}

TEST(Pipeline, BookEfficienciesAtDStar) {
  // Compute roof only, no latency: 50% at D* without overlap, 90% at 9 D*.
  const Shape s = shape2();
  const Ceilings c = link(1e12, 1e10);
  const OverlapOutlook o = overlap_outlook(s, c, ChunkChoice{false, 4, 64});
  EXPECT_NEAR(o.d_star, 400, 1e-9);  // (N-1) s C / W
  EXPECT_NEAR(o.efficiency_no_overlap, 0.5, 1e-9);
  ASSERT_TRUE(o.D_target_no_overlap);
  EXPECT_NEAR(*o.D_target_no_overlap / o.d_star, 9, 0.02);
  // Four equal chunks at D*: g = c = T/4, T_overlap = 5/4 T: 80%.
  EXPECT_NEAR(o.efficiency_overlap, 0.8, 1e-9);
  ASSERT_TRUE(o.D_target_overlap);
  // Compute-bound: T_math / (T_math + T_comm/4) = 0.9 at T_math = 2.25 T_comm.
  EXPECT_NEAR(*o.D_target_overlap / o.d_star, 2.25, 0.02);
}

TEST(Pipeline, AutoPrefersFewChunksWhenLatencyDominates) {
  const Shape s = shape2(64, 64);
  // Latency 1 ms against a 16 KiB partial sum: more chunks only add latency.
  const Ceilings c = link(1e12, 1e10, 1e-3);
  EXPECT_EQ(chunks_at(s, c, 1e5, ChunkChoice{true, 1, 64}), 1);
  // No latency: chunks help, and the most within the margin is not taken.
  const Ceilings fast = link(1e12, 1e10, 0);
  const int k = chunks_at(s, fast, 400, ChunkChoice{true, 1, 64});
  EXPECT_GT(k, 1);
  EXPECT_LT(k, 64);
}

}  // namespace
}  // namespace shardroof::model

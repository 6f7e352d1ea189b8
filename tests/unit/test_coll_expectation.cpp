// coll's model column without MPI (measure/coll_expectation.h): the W a row
// takes from the ring probe, and each row's expected time from its
// implementation's formula, against values worked out by hand.
#include <gtest/gtest.h>

#include "measure/coll_expectation.h"

namespace shardroof {
namespace {

// A probe on 2 ranks: 10 us of latency; 64 KiB and 256 KiB enjoy a head
// start (a shaped link's burst: 256 KiB in 1.01 ms), then 1 MiB and 2 MiB
// cost 1 ms per 100 KB more (W = 1e8 B/s from 256 KiB on).
CollModelInputs two_ranks() {
  CollModelInputs in;
  in.source = "ring probe on these ranks, W at each row's message size";
  in.nranks = 2;
  in.link.alpha_s = 1e-5;
  in.link.W_bytes_per_s = 9e7;  // the fit's
  in.link.g_s_per_byte = 0;
  in.probe_bytes = {4, 65536, 262144, 1048576, 2097152};
  in.probe_step_s = {1e-5, 3e-4, 1.01e-3, 1.01e-3 + 786432 / 1e8, 1.01e-3 + 1835008 / 1e8};
  return in;
}

CollRecord row(const std::string& impl, std::uint64_t bytes, coll::CollectiveKind kind = coll::CollectiveKind::AllReduce) {
  CollRecord r{};
  r.kind = kind;
  r.impl = impl;
  r.algorithm = impl + "/mpi";
  r.type = coll::DataType::Float;
  r.op = coll::ReduceOp::Sum;
  r.bytes = bytes;
  r.count = bytes / 4;
  return r;
}

TEST(CollExpectation, WIsTheSlopeFromTheRowsSizeUp) {
  const CollModelInputs in = two_ranks();
  // From 256 KiB up: (1048576 - 262144) B over 7.86432 ms = 1e8 B/s; the
  // burst before it does not flatter the row.
  EXPECT_NEAR(probe_W_at(in, 262144), 1e8, 1);
  EXPECT_NEAR(probe_W_at(in, 524288), 1e8, 1);
  // Beyond the largest probed size: the last pair's slope.
  EXPECT_NEAR(probe_W_at(in, 8u << 20), 1e8, 1);
  // Below the first pair: the first pair's slope (65536 .. 262144 B in 0.71 ms).
  EXPECT_NEAR(probe_W_at(in, 1024), 196608 / 7.1e-4, 1);
  // No probe: the fit's W.
  CollModelInputs none = in;
  none.probe_bytes.clear();
  none.probe_step_s.clear();
  EXPECT_DOUBLE_EQ(probe_W_at(none, 262144), 9e7);
}

TEST(CollExpectation, RingRowTakesItsBlocksW) {
  // Ring AllReduce of 1 MiB on 2 ranks: blocks of 512 KiB, W = 1e8:
  // 2a + 2 * 1/2 * 1048576 / 1e8 = 20 us + 10.48576 ms.
  const auto e = expected_for(row("ring", 1048576), two_ranks());
  ASSERT_TRUE(e.has_value());
  EXPECT_NEAR(e->time_s, 2e-5 + 1.048576e-2, 1e-12);
  EXPECT_NEAR(e->W_bytes_per_s, 1e8, 1);
  EXPECT_EQ(e->formula, "2(N-1)a + 2(N-1)/N S/W + (N-1)/N S g");
  EXPECT_NE(e->source.find("512 KiB"), std::string::npos) << e->source;
  // busbw = S / T * 2(N-1)/N, in GB/s.
  EXPECT_NEAR(e->busbw_GBps, 1048576 / e->time_s / 1e9, 1e-12);
}

TEST(CollExpectation, AutoTakesWhatItChoseAndNativeIsNamedOrBoundOnly) {
  CollRecord a = row("auto", 1048576);
  a.algorithm = "auto:direct/mpi";
  const auto direct = expected_for(a, two_ranks());
  ASSERT_TRUE(direct.has_value());
  EXPECT_EQ(direct->formula, "a + (N-1) S/W + (N-1) S g");
  // A library whose choice is not known: the bound, said so.
  const auto bound = expected_for(row("native", 1048576), two_ranks());
  ASSERT_TRUE(bound.has_value());
  EXPECT_TRUE(bound->bound_only);
  EXPECT_EQ(bound->formula.rfind("bound only (", 0), 0u) << bound->formula;
  EXPECT_NE(bound->formula.find("assumed ring: "), std::string::npos) << bound->formula;
  EXPECT_TRUE(bound->native_algorithm.empty());
  // Open MPI 4.1.x at 1 MiB on 2 ranks: rabenseifner, its own formula (on
  // 2 ranks the ring's cost).
  CollModelInputs ompi = two_ranks();
  ompi.native.kind = model::NativeLibrary::Kind::OpenMpiTuned;
  ompi.native.name = "Open MPI v4.1.4";
  const auto named = expected_for(row("native", 1048576), ompi);
  ASSERT_TRUE(named.has_value());
  EXPECT_FALSE(named->bound_only);
  EXPECT_EQ(named->native_algorithm, "rabenseifner");
  EXPECT_NEAR(named->time_s, expected_for(row("ring", 1048576), ompi)->time_s, 1e-12);
  // Without a link there is no model.
  CollModelInputs off;
  off.nranks = 2;
  EXPECT_FALSE(expected_for(row("ring", 1048576), off).has_value());
}

TEST(CollExpectation, PublishedFigureOfTheSameCollectiveAndRankCount) {
  CollModelInputs in = two_ranks();
  in.preset = "h200";
  in.published = {{"all_reduce", "NCCL ring", 8, "nvlink", 3.7e11, "a source"},
                  {"all_reduce", "NCCL ring", 2, "nvlink", 1e11, "another"}};
  const auto e = expected_for(row("ring", 1048576), in);
  ASSERT_TRUE(e.has_value());
  EXPECT_DOUBLE_EQ(e->published_busbw_GBps, 100);
  EXPECT_NE(e->published_source.find("another"), std::string::npos);
}

}  // namespace
}  // namespace shardroof

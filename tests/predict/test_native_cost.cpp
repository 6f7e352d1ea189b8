// Native collectives under their own names: Open MPI 4.1.x's coll/tuned
// fixed rules (model/open_mpi_tuned.h) against the thresholds of
// coll_tuned_decision_fixed.c (v4.1.4) kept in data/, every band of every
// operation at its four corners, band edges read off by hand, forced
// choices, the trees' memory at many ranks and segments, and each
// algorithm's cost (model/native_cost.h) against values worked out by hand.
// Link: a = 10 us, W = 1e9 B/s, g = 1e-10 s/B, c = 2e-10 s/B; S = 8e6 bytes
// of floats unless said.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "model/native_cost.h"
#include "model/open_mpi_tuned.h"

namespace shardroof::model {
namespace {

using coll::CollectiveKind;
using tuned::Operation;

constexpr std::uint64_t kS = 8000000;

CollLink link() {
  CollLink l;
  l.alpha_s = 1e-5;
  l.W_bytes_per_s = 1e9;
  l.g_s_per_byte = 1e-10;
  l.copy_s_per_byte = 2e-10;
  return l;
}

NativeLibrary open_mpi() {
  NativeLibrary lib;
  lib.kind = NativeLibrary::Kind::OpenMpiTuned;
  lib.name = "Open MPI v4.1.4";
  return lib;
}

std::string name_of(Operation op, int p, std::uint64_t bytes, const tuned::Settings& s = {}) {
  const auto c = tuned::choose(op, p, bytes, s);
  return c ? c->name : "(none)";
}

NativeModel model_of(CollectiveKind kind, int p, std::uint64_t bytes = kS, bool in_place = false,
                     const NativeLibrary& lib = open_mpi()) {
  return native_model({kind, p, bytes, 4, in_place}, lib, link());
}

constexpr Operation kOperations[] = {Operation::Allreduce,  Operation::ReduceScatter, Operation::ReduceScatterBlock,
                                     Operation::Allgather,  Operation::Allgatherv,    Operation::Bcast,
                                     Operation::Alltoall,   Operation::Alltoallv,     Operation::Reduce,
                                     Operation::Scatter};

// The source's bands by operation (its MCA name), from the data file.
std::map<std::string, std::vector<tuned::Rule>> source_rules() {
  std::ifstream in(SHARDROOF_TEST_DATA "/open_mpi_v4.1.4_fixed_rules.txt");
  std::map<std::string, std::vector<tuned::Rule>> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string op, comm, bytes;
    int algorithm = 0;
    fields >> op >> comm >> bytes >> algorithm;
    out[op].push_back({comm == "any" ? tuned::kAnyComm : std::stoi(comm),
                       bytes == "any" ? tuned::kAnySize : std::stoull(bytes), algorithm});
  }
  return out;
}

TEST(OpenMpiTuned, FixedRulesAreTheSourcesThresholds) {
  const auto source = source_rules();
  ASSERT_EQ(source.size(), std::size(kOperations));
  for (const Operation op : kOperations) {
    const auto it = source.find(tuned::mca_name(op));
    ASSERT_NE(it, source.end()) << tuned::mca_name(op);
    const auto ours = tuned::fixed_rules(op);
    ASSERT_EQ(ours.size(), it->second.size()) << tuned::mca_name(op);
    for (std::size_t i = 0; i < ours.size(); ++i) {
      const tuned::Rule& a = ours[i];
      const tuned::Rule& b = it->second[i];
      EXPECT_TRUE(a == b) << tuned::mca_name(op) << " band " << i << ": ours {" << a.comm_below << ", "
                          << a.bytes_below << ", " << a.algorithm << "}, the source's {" << b.comm_below << ", "
                          << b.bytes_below << ", " << b.algorithm << "}";
    }
  }
}

// Every band of every operation (Allgatherv and Alltoallv included) at its
// four corners: its first and last communicator size, its first and last
// byte count, as the source's if/else chain reaches them.
TEST(OpenMpiTuned, EveryBandAtItsCorners) {
  constexpr int kManyRanks = 100000;
  constexpr std::uint64_t kManyBytes = std::uint64_t{1} << 40;
  for (const Operation op : kOperations) {
    int comm_first = 2, block = -1;
    std::uint64_t bytes_first = 0;
    for (const tuned::Rule& r : tuned::fixed_rules(op)) {
      if (r.comm_below != block) {
        if (block != -1) comm_first = block;
        block = r.comm_below;
        bytes_first = 0;
      }
      const int comm_last = r.comm_below == tuned::kAnyComm ? kManyRanks : r.comm_below - 1;
      const std::uint64_t bytes_last = r.bytes_below == tuned::kAnySize ? kManyBytes : r.bytes_below - 1;
      const std::string want = tuned::algorithm_of(op, r.algorithm)->second;
      for (const int comm : {comm_first, comm_last})
        for (const std::uint64_t bytes : {bytes_first, bytes_last})
          EXPECT_EQ(name_of(op, comm, bytes), want) << tuned::mca_name(op) << " on " << comm << " ranks, " << bytes
                                                    << " bytes";
      bytes_first = r.bytes_below;
    }
  }
}

TEST(OpenMpiTuned, FixedRulesAtBandEdges) {
  // allreduce, fewer than 4 ranks: < 8 ring, < 4096 recursive doubling,
  // ..., < 262144 segmented ring, else rabenseifner.
  EXPECT_EQ(name_of(Operation::Allreduce, 2, 7), "ring");
  EXPECT_EQ(name_of(Operation::Allreduce, 2, 4095), "recursive_doubling");
  EXPECT_EQ(name_of(Operation::Allreduce, 3, 262143), "segmented_ring");
  EXPECT_EQ(name_of(Operation::Allreduce, 2, 262144), "rabenseifner");
  // 4 to 7 ranks: < 8192 recursive doubling, else rabenseifner.
  EXPECT_EQ(name_of(Operation::Allreduce, 4, 8191), "recursive_doubling");
  EXPECT_EQ(name_of(Operation::Allreduce, 7, 1 << 20), "rabenseifner");
  // reduce_scatter_block on a rank's block: 2-3 ranks from 128 KiB basic
  // linear; 4-7 ranks recursive halving up to 1 MiB, then basic linear.
  EXPECT_EQ(name_of(Operation::ReduceScatterBlock, 2, 131071), "butterfly");
  EXPECT_EQ(name_of(Operation::ReduceScatterBlock, 2, 131072), "basic_linear");
  EXPECT_EQ(name_of(Operation::ReduceScatterBlock, 4, 262144), "recursive_halving");
  EXPECT_EQ(name_of(Operation::ReduceScatterBlock, 4, 1048576), "basic_linear");
  EXPECT_EQ(name_of(Operation::ReduceScatter, 2, 1 << 20), "ring");
  EXPECT_EQ(name_of(Operation::ReduceScatter, 4, 262143), "recursive_halving");
  // bcast: 2-3 ranks from 1 MiB binary tree (binomial just below); 4-7
  // ranks basic linear up to 1 MiB, then chain.
  EXPECT_EQ(name_of(Operation::Bcast, 2, 1048575), "binomial");
  EXPECT_EQ(name_of(Operation::Bcast, 2, 1048576), "binary_tree");
  EXPECT_EQ(name_of(Operation::Bcast, 4, 1048575), "basic_linear");
  EXPECT_EQ(name_of(Operation::Bcast, 4, 1048576), "chain");
  // alltoall on a block: 2 ranks two_proc from 256 KiB, pairwise from 1 MiB;
  // 4-7 ranks linear from 64 KiB, pairwise 512 KiB .. 1 MiB, linear after.
  EXPECT_EQ(name_of(Operation::Alltoall, 2, 524288), "two_proc");
  EXPECT_EQ(name_of(Operation::Alltoall, 2, 1048576), "pairwise");
  EXPECT_EQ(name_of(Operation::Alltoall, 4, 262144), "linear");
  EXPECT_EQ(name_of(Operation::Alltoall, 4, 524288), "pairwise");
  EXPECT_EQ(name_of(Operation::Alltoall, 4, 1048576), "linear");
  EXPECT_EQ(name_of(Operation::Allgather, 2, 1 << 20), "two_proc");
  EXPECT_EQ(name_of(Operation::Allgather, 31, 1 << 20), "recursive_doubling");
  EXPECT_EQ(name_of(Operation::Allgather, 32, 1 << 20), "ring");
  // the calls those make: reduce (2-3 ranks pipeline from 1 MiB; 4-7 linear)
  // and scatter (2-3 ranks basic linear from 256 KiB).
  EXPECT_EQ(name_of(Operation::Reduce, 2, 1 << 20), "pipeline");
  EXPECT_EQ(name_of(Operation::Reduce, 4, 1 << 20), "linear");
  EXPECT_EQ(name_of(Operation::Scatter, 2, 262144), "basic_linear");
  // allgatherv (the per-rank size): 2 ranks < 2048 ring, < 4096 two_proc,
  // < 8192 ring, else two_proc; below 8 ranks < 256 default.
  EXPECT_EQ(name_of(Operation::Allgatherv, 2, 2047), "ring");
  EXPECT_EQ(name_of(Operation::Allgatherv, 2, 2048), "two_proc");
  EXPECT_EQ(name_of(Operation::Allgatherv, 2, 8192), "two_proc");
  EXPECT_EQ(name_of(Operation::Allgatherv, 7, 255), "default");
  EXPECT_EQ(name_of(Operation::Allgatherv, 7, 256), "neighbor");
  // alltoallv by the communicator's size alone: < 4 pairwise, < 64 basic
  // linear, < 128 pairwise, < 256 basic linear, < 1024 pairwise, else
  // basic linear.
  EXPECT_EQ(name_of(Operation::Alltoallv, 3, 0), "pairwise");
  EXPECT_EQ(name_of(Operation::Alltoallv, 4, 0), "basic_linear");
  EXPECT_EQ(name_of(Operation::Alltoallv, 64, 0), "pairwise");
  EXPECT_EQ(name_of(Operation::Alltoallv, 255, 0), "basic_linear");
  EXPECT_EQ(name_of(Operation::Alltoallv, 1023, 0), "pairwise");
  EXPECT_EQ(name_of(Operation::Alltoallv, 1024, 0), "basic_linear");
  // Many ranks: the last band.
  EXPECT_EQ(name_of(Operation::Allreduce, 100000, 20000), "recursive_doubling");
  EXPECT_EQ(name_of(Operation::Allreduce, 1, 1 << 20), "(none)");
}

TEST(OpenMpiTuned, ForcedOnlyWithDynamicRules) {
  tuned::Settings s;
  s.forced[Operation::Allreduce].algorithm = 4;  // ring
  EXPECT_EQ(name_of(Operation::Allreduce, 4, 1 << 22, s), "rabenseifner");
  s.dynamic_rules = true;
  const auto c = tuned::choose(Operation::Allreduce, 4, 1 << 22, s);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->name, "ring");
  EXPECT_TRUE(c->forced);
  // A number the library does not have, and a rules file: not known.
  s.forced[Operation::Allreduce].algorithm = 9;
  EXPECT_EQ(name_of(Operation::Allreduce, 4, 1 << 22, s), "(none)");
  s.forced[Operation::Allreduce].algorithm = 0;
  EXPECT_EQ(name_of(Operation::Allreduce, 4, 1 << 22, s), "rabenseifner");
  s.rules_file = "rules.conf";
  EXPECT_EQ(name_of(Operation::Allreduce, 4, 1 << 22, s), "(none)");
}

TEST(NativeCost, RabenseifnerMovesWhatTheRingMoves) {
  // 2 ranks: 2a + S/W + S/2 g = 20 us + 8 ms + 0.4 ms.
  const NativeModel two = model_of(CollectiveKind::AllReduce, 2);
  EXPECT_EQ(two.algorithm, "rabenseifner");
  ASSERT_TRUE(two.cost);
  EXPECT_NEAR(two.cost->time_s, 2e-5 + 8e-3 + 4e-4, 1e-12);
  // 4 ranks: 4a + 2*3/4 S/W + 3/4 S g = 40 us + 12 ms + 0.6 ms.
  EXPECT_NEAR(model_of(CollectiveKind::AllReduce, 4).cost->time_s, 4e-5 + 1.2e-2 + 6e-4, 1e-12);
  // 3 ranks (p' = 2, one rank folded): 2a + S/W + S/2 g + 3a + 2 S/W + S/2 g.
  const NativeModel three = model_of(CollectiveKind::AllReduce, 3);
  EXPECT_NEAR(three.cost->time_s, 5e-5 + 2.4e-2 + 8e-4, 1e-12);
  // The formula printed is the terms computed, in one notation.
  EXPECT_EQ(three.cost->formula, "2L a + 2(N'-1)/N' S/W + (N'-1)/N' S g + 3 a + 2 S/W + 1/2 S g");
  EXPECT_EQ(two.cost->formula, "2L a + 2(N'-1)/N' S/W + (N'-1)/N' S g");
}

TEST(NativeCost, ReduceScatterBlockBasicLinearIsAReduceAndAScatter) {
  // 2 ranks, blocks of 4e6 bytes: basic_linear = reduce (pipeline of 2
  // ranks, one segment: a + S/W + S g) + scatter (basic linear: a + b/W).
  const NativeModel two = model_of(CollectiveKind::ReduceScatter, 2);
  EXPECT_EQ(two.algorithm, "basic_linear (reduce: pipeline, scatter: basic_linear)");
  ASSERT_TRUE(two.cost);
  EXPECT_NEAR(two.cost->time_s, (1e-5 + 8e-3 + 8e-4) + (1e-5 + 4e-3), 1e-12);
  // 4 ranks, blocks of 2e6: reduce linear a + 3(S/W + S g) = 10 us + 24 ms
  // + 2.4 ms; scatter basic linear 3(a + 2 ms).
  const NativeModel four = model_of(CollectiveKind::ReduceScatter, 4);
  EXPECT_EQ(four.algorithm, "basic_linear (reduce: linear, scatter: basic_linear)");
  EXPECT_NEAR(four.cost->time_s, (1e-5 + 2.4e-2 + 2.4e-3) + 3 * (1e-5 + 2e-3), 1e-12);
  // 4 ranks, S = 2e6 (blocks of 500 kB): recursive halving, the ring's bytes
  // in log2 N steps: 2a + 3/4 S/W + 3/4 S g.
  const NativeModel halving = model_of(CollectiveKind::ReduceScatter, 4, 2000000);
  EXPECT_EQ(halving.algorithm, "recursive_halving");
  EXPECT_NEAR(halving.cost->time_s, 2e-5 + 1.5e-3 + 1.5e-4, 1e-12);
  // A count that does not divide by N takes MPI_Reduce_scatter: the ring.
  const NativeModel uneven = model_of(CollectiveKind::ReduceScatter, 3, 8000008);
  EXPECT_EQ(uneven.algorithm, "ring");
}

TEST(NativeCost, BroadcastTrees) {
  // 4 ranks from 1 MiB: a chain of fan-out 1, one segment: 3 (a + S/W).
  const NativeModel chain = model_of(CollectiveKind::Broadcast, 4);
  EXPECT_EQ(chain.algorithm, "chain");
  EXPECT_NEAR(chain.cost->time_s, 3 * (1e-5 + 8e-3), 1e-12);
  // Below 1 MiB, basic linear: a + 3 S/W.
  EXPECT_NEAR(model_of(CollectiveKind::Broadcast, 4, 1000000).cost->time_s, 1e-5 + 3e-3, 1e-12);
  // 2 ranks from 1 MiB: the binary tree of 2, a + S/W.
  EXPECT_NEAR(model_of(CollectiveKind::Broadcast, 2).cost->time_s, 1e-5 + 8e-3, 1e-12);
  // Forced: a pipeline in 1 MB segments (k = 8) on 4 ranks is the chain
  // pipelined, (N-2+k)(a + S/k/W); the binary tree of 4 (0 -> 1, 2; 1 -> 3)
  // in one segment, 2a + 3 S/W.
  NativeLibrary lib = open_mpi();
  lib.tuned.dynamic_rules = true;
  lib.tuned.forced[Operation::Bcast] = {3, 1000000, 4, 4};
  const NativeModel pipe = model_of(CollectiveKind::Broadcast, 4, kS, false, lib);
  EXPECT_EQ(pipe.algorithm, "pipeline (forced)");
  EXPECT_NEAR(pipe.cost->time_s, 10 * (1e-5 + 1e-3), 1e-12);
  lib.tuned.forced[Operation::Bcast] = {5, 0, 4, 4};
  EXPECT_NEAR(model_of(CollectiveKind::Broadcast, 4, kS, false, lib).cost->time_s, 2e-5 + 2.4e-2, 1e-12);
  // Binomial of 4 (0 -> 1, 2; 1 -> 3) is the same shape.
  lib.tuned.forced[Operation::Bcast] = {6, 0, 4, 4};
  EXPECT_NEAR(model_of(CollectiveKind::Broadcast, 4, kS, false, lib).cost->time_s, 2e-5 + 2.4e-2, 1e-12);
  // k-nomial of radix 4 on 4 ranks: the root sends to all three, a + 3 S/W.
  lib.tuned.forced[Operation::Bcast] = {7, 0, 4, 4};
  EXPECT_NEAR(model_of(CollectiveKind::Broadcast, 4, kS, false, lib).cost->time_s, 1e-5 + 2.4e-2, 1e-12);
  // split_binary_tree has no formula here: bound only, named.
  lib.tuned.forced[Operation::Bcast] = {4, 0, 4, 4};
  const NativeModel split = model_of(CollectiveKind::Broadcast, 4, kS, false, lib);
  EXPECT_FALSE(split.cost);
  EXPECT_EQ(split.algorithm, "split_binary_tree (forced)");
}

TEST(NativeCost, AllToAll) {
  // 4 ranks, blocks of 2e6: linear, 3a + 3/4 S/W; in place the basic
  // in-place exchange, 3 (a + b/W + b c).
  const NativeModel linear = model_of(CollectiveKind::AllToAll, 4);
  EXPECT_EQ(linear.algorithm, "linear");
  EXPECT_NEAR(linear.cost->time_s, 3e-5 + 6e-3, 1e-12);
  const NativeModel inplace = model_of(CollectiveKind::AllToAll, 4, kS, true);
  EXPECT_EQ(inplace.algorithm, "basic_inplace");
  EXPECT_NEAR(inplace.cost->time_s, 3 * (1e-5 + 2e-3 + 4e-4), 1e-12);
  EXPECT_EQ(inplace.cost->formula, "(N-1) a + (N-1) b/W + (N-1) b c");
  // 2 ranks, blocks of 4e6: pairwise, a + S/2/W.
  EXPECT_NEAR(model_of(CollectiveKind::AllToAll, 2).cost->time_s, 1e-5 + 4e-3, 1e-12);
}

TEST(NativeCost, UnknownChoicesKeepTheBound) {
  NativeLibrary other;
  other.name = "MPICH 4.1";
  other.unknown = "MPICH 4.1: its algorithm choice is not read by this build";
  const NativeModel m = model_of(CollectiveKind::AllReduce, 4, kS, false, other);
  EXPECT_FALSE(m.cost);
  EXPECT_EQ(m.bound_reason, other.unknown);
  EXPECT_TRUE(m.algorithm.empty());
  NativeLibrary nccl;
  nccl.kind = NativeLibrary::Kind::Nccl;
  EXPECT_FALSE(model_of(CollectiveKind::AllReduce, 4, kS, false, nccl).cost);
  nccl.nccl_algo = "Tree";
  EXPECT_FALSE(model_of(CollectiveKind::AllReduce, 4, kS, false, nccl).cost);
}

TEST(NativeCost, NcclRing) {
  NativeLibrary nccl;
  nccl.kind = NativeLibrary::Kind::Nccl;
  nccl.nccl_algo = "Ring";
  // The ring's formula: 6a + 12 ms + 0.6 ms.
  const NativeModel ring = model_of(CollectiveKind::AllReduce, 4, kS, false, nccl);
  EXPECT_EQ(ring.algorithm, "ring/Simple");
  ASSERT_TRUE(ring.cost);
  EXPECT_NEAR(ring.cost->time_s, 6e-5 + 1.2e-2 + 6e-4, 1e-12);
  // LL carries 4 bytes of data in 8: the bandwidth term doubles.
  nccl.nccl_proto = "LL";
  EXPECT_NEAR(model_of(CollectiveKind::AllReduce, 4, kS, false, nccl).cost->time_s, 6e-5 + 2.4e-2 + 6e-4, 1e-12);
  nccl.nccl_proto = "LL,Simple";
  EXPECT_FALSE(model_of(CollectiveKind::AllReduce, 4, kS, false, nccl).cost);
}

// Many ranks and segments: 1,024 ranks, 16 MiB in 1 KiB segments (16,384
// of them). The trees keep one time per rank, not one per rank and segment
// (128 MiB here), and the pipeline still reads as its closed form
// (N-2+k)(a + S/k/W); the reduction up the same chain takes longer.
TEST(NativeCost, TreesAtManyRanksAndSegments) {
  NativeLibrary lib = open_mpi();
  lib.tuned.dynamic_rules = true;
  lib.tuned.forced[Operation::Bcast] = {3, 1024, 4, 4};
  constexpr std::uint64_t kBytes = std::uint64_t{16} << 20;
  const double k = kBytes / 1024.0;
  const NativeModel bcast = native_model({CollectiveKind::Broadcast, 1024, kBytes, 4, false}, lib, link());
  ASSERT_TRUE(bcast.cost);
  const double closed = (1024 - 2 + k) * (1e-5 + 1024 / 1e9);
  EXPECT_NEAR(bcast.cost->time_s, closed, 1e-9 * closed);
  lib.tuned.forced[Operation::Allreduce] = {2, 0, 4, 4};  // nonoverlapping: reduce, then bcast
  lib.tuned.forced[Operation::Reduce] = {3, 1024, 4, 4};
  const NativeModel allreduce = native_model({CollectiveKind::AllReduce, 1024, kBytes, 4, false}, lib, link());
  ASSERT_TRUE(allreduce.cost);
  EXPECT_EQ(allreduce.algorithm, "nonoverlapping (reduce: pipeline, bcast: pipeline) (forced)");
  EXPECT_GT(allreduce.cost->time_s, 2 * closed);
  EXPECT_LT(allreduce.cost->time_s, 3 * closed);
}

}  // namespace
}  // namespace shardroof::model

// The table of collective traits: names, nccl-tests' bus factors, buffer
// shapes that add up across ranks, the native MPI int limits, and the
// expected values of broadcast and all-to-all.
#include <gtest/gtest.h>

#include <climits>
#include <vector>

#include "collectives/algorithms.h"
#include "collectives/blocks.h"
#include "collectives/check_pattern.h"
#include "collectives/traits.h"

namespace shardroof::coll {
namespace {

TEST(Traits, NamesParseBackAndRowsFollowTheKinds) {
  for (const CollectiveTraits& t : all_collectives()) {
    EXPECT_EQ(parse_collective(t.name), t.kind);
    EXPECT_EQ(parse_collective(t.alias), t.kind);
    EXPECT_EQ(&traits(t.kind), &t);
    EXPECT_FALSE(t.algorithms.empty()) << t.name;
    EXPECT_NE(collective_names().find(t.name), std::string_view::npos);
  }
  EXPECT_EQ(parse_collective("bcast"), CollectiveKind::Broadcast);
  EXPECT_EQ(parse_collective("alltoall"), CollectiveKind::AllToAll);
  EXPECT_FALSE(parse_collective("gather"));
}

TEST(Traits, BusFactorsAreNcclTests) {
  for (const int n : {1, 2, 3, 8}) {
    const double d = n;
    EXPECT_DOUBLE_EQ(traits(CollectiveKind::AllReduce).bus_factor(n), 2 * (d - 1) / d);
    EXPECT_DOUBLE_EQ(traits(CollectiveKind::ReduceScatter).bus_factor(n), (d - 1) / d);
    EXPECT_DOUBLE_EQ(traits(CollectiveKind::AllGather).bus_factor(n), (d - 1) / d);
    EXPECT_DOUBLE_EQ(traits(CollectiveKind::Broadcast).bus_factor(n), 1);
    EXPECT_DOUBLE_EQ(traits(CollectiveKind::AllToAll).bus_factor(n), (d - 1) / d);
  }
}

// Summed over ranks, ReduceScatter's outputs, AllGather's inputs and
// AllToAll's outputs are the whole array (N of them for AllToAll), and the
// in-place buffer holds input and output where the offsets say.
TEST(Traits, ShapesAddUpAcrossRanks) {
  for (const int n : {1, 2, 3, 4}) {
    for (const std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t(n) - 1, std::size_t(n) + 1,
                                    std::size_t{7919}}) {
      for (const CollectiveTraits& t : all_collectives()) {
        std::size_t in = 0, out = 0;
        for (int r = 0; r < n; ++r) {
          const CallShape shape{count, r, n};
          in += t.input_count(shape);
          out += t.output_count(shape);
          const InPlaceLayout l = t.in_place(shape);
          EXPECT_LE(l.send_offset + t.input_count(shape), l.buffer) << t.name;
          EXPECT_LE(l.recv_offset + t.output_count(shape), l.buffer) << t.name;
          EXPECT_EQ(l.send_offset, t.input_first(shape)) << t.name;
        }
        const std::size_t all = count * static_cast<std::size_t>(n);
        if (t.kind == CollectiveKind::ReduceScatter) {
          EXPECT_EQ(out, count);
        }
        if (t.kind == CollectiveKind::AllGather) {
          EXPECT_EQ(in, count);
        }
        if (t.kind == CollectiveKind::AllToAll || t.kind == CollectiveKind::Broadcast) {
          EXPECT_EQ(out, all) << t.name << " " << count << " on " << n;
        }
      }
    }
  }
}

TEST(Traits, NativeIntLimits) {
  const auto big = std::size_t{1} << 32;
  EXPECT_EQ(traits(CollectiveKind::AllReduce).mpi_int_argument(big, 2, 4), 0u);
  EXPECT_EQ(traits(CollectiveKind::Broadcast).mpi_int_argument(big, 2, 4), 0u);
  EXPECT_EQ(traits(CollectiveKind::ReduceScatter).mpi_int_argument(big, 2, 4), big / 2);
  EXPECT_EQ(traits(CollectiveKind::AllGather).mpi_int_argument(big, 2, 4), big / 2 * 4);
  EXPECT_EQ(traits(CollectiveKind::AllToAll).mpi_int_argument(big, 2, 4), big / 2);
  // Uneven: MPI_Alltoallv's displacements reach the whole input.
  EXPECT_EQ(traits(CollectiveKind::AllToAll).mpi_int_argument(big + 1, 2, 4), big + 2);
  EXPECT_LE(traits(CollectiveKind::AllToAll).mpi_int_argument(1000, 3, 4), static_cast<std::uint64_t>(INT_MAX));
}

TEST(Traits, BroadcastExpectsTheRootsInput) {
  const CallShape shape{10, 1, 3, 2};
  std::vector<double> out(10);
  fill_pattern(out.data(), 10, 0, 2, 3, DataType::Double, ReduceOp::Sum);
  EXPECT_EQ(count_wrong(out.data(), shape, CollectiveKind::Broadcast, DataType::Double, ReduceOp::Sum), 0u);
  // Another rank's input is wrong where the patterns differ.
  fill_pattern(out.data(), 10, 0, 1, 3, DataType::Double, ReduceOp::Sum);
  EXPECT_GT(count_wrong(out.data(), shape, CollectiveKind::Broadcast, DataType::Double, ReduceOp::Sum), 0u);
}

TEST(Traits, AllToAllExpectsBlockRankOfEverySource) {
  const int n = 3;
  const std::size_t count = 10;  // blocks 4 3 3
  const BlockPartition part(count, n);
  for (int rank = 0; rank < n; ++rank) {
    const std::size_t mine = part.size(rank);
    std::vector<double> out(n * mine);
    for (int s = 0; s < n; ++s)
      fill_pattern(out.data() + static_cast<std::size_t>(s) * mine, mine, part.offset(rank), s, n, DataType::Double,
                   ReduceOp::Sum);
    const CallShape shape{count, rank, n};
    EXPECT_EQ(traits(CollectiveKind::AllToAll).output_count(shape), out.size());
    EXPECT_EQ(count_wrong(out.data(), shape, CollectiveKind::AllToAll, DataType::Double, ReduceOp::Sum), 0u);
    std::swap(out.front(), out.back());
    EXPECT_EQ(count_wrong(out.data(), shape, CollectiveKind::AllToAll, DataType::Double, ReduceOp::Sum), 2u);
  }
}

TEST(Traits, OurAlgorithms) {
  EXPECT_TRUE(supports(Algorithm::Ring, CollectiveKind::Broadcast));
  EXPECT_FALSE(supports(Algorithm::Pairwise, CollectiveKind::Broadcast));
  EXPECT_TRUE(supports(Algorithm::Pairwise, CollectiveKind::AllToAll));
  EXPECT_FALSE(supports(Algorithm::Ring, CollectiveKind::AllToAll));
  EXPECT_FALSE(supports(Algorithm::Direct, CollectiveKind::AllGather));
  EXPECT_TRUE(supports(Algorithm::Auto, CollectiveKind::AllToAll));
  EXPECT_FALSE(own_algorithm_for(Algorithm::Pairwise, CollectiveKind::AllToAll)->needs_tag_matching);
  EXPECT_TRUE(own_algorithm_for(Algorithm::Pairwise, CollectiveKind::AllReduce)->needs_tag_matching);
}

// One name per implementation, the library's own included, and one list
// that `auto` chooses among on every setup.
TEST(Traits, ImplementationNamesAndAutoCandidates) {
  for (const Algorithm a : {Algorithm::Auto, Algorithm::Ring, Algorithm::Pairwise, Algorithm::Direct,
                            Algorithm::Hier, Algorithm::Native})
    EXPECT_EQ(parse_algorithm(to_string(a)), a);
  EXPECT_FALSE(parse_algorithm("rings").has_value());
  for (const CollectiveTraits& t : all_collectives()) EXPECT_TRUE(supports(Algorithm::Native, t.kind));
  EXPECT_EQ(auto_candidates(CollectiveKind::AllReduce),
            (std::vector<Algorithm>{Algorithm::Ring, Algorithm::Pairwise, Algorithm::Direct}));
  // Without tag matching (NCCL), pairwise AllReduce cannot run; its AllToAll can.
  EXPECT_EQ(auto_candidates(CollectiveKind::AllReduce, false),
            (std::vector<Algorithm>{Algorithm::Ring, Algorithm::Direct}));
  EXPECT_EQ(auto_candidates(CollectiveKind::AllToAll, false), (std::vector<Algorithm>{Algorithm::Pairwise}));
  EXPECT_EQ(auto_candidates(CollectiveKind::Broadcast), (std::vector<Algorithm>{Algorithm::Ring}));
}

TEST(BlockPartition, OwnerOfEveryIndex) {
  for (const int n : {1, 2, 3, 7})
    for (const std::size_t count : {std::size_t{1}, std::size_t{5}, std::size_t{7}, std::size_t{100}}) {
      const BlockPartition part(count, n);
      for (std::size_t i = 0; i < count; ++i) {
        const int o = part.owner(i);
        EXPECT_GE(i, part.offset(o));
        EXPECT_LT(i, part.offset(o) + part.size(o));
      }
    }
}

}  // namespace
}  // namespace shardroof::coll

// check_pattern: the test data must be exact in every datatype, and its
// reduction exact in any order and with any rounding per step, so that a
// correct collective reproduces expected_value bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "collectives/blocks.h"
#include "collectives/check_pattern.h"
#include "collectives/memory.h"
#include "collectives/types.h"
#include "../collective_test_values.h"

namespace shardroof::coll {
namespace {

constexpr const auto& kTypes = shardroof::testing::kAllTypes;
constexpr const auto& kOps = shardroof::testing::kAllOps;
constexpr std::size_t kIndices = 4099;  // covers every residue of the pattern's moduli

// Reduces the ranks' contributions at `index` in `type` with host_reduce,
// visiting ranks in `order`, each step rounding as a collective does.
double reduce_in_type(std::size_t index, int nranks, DataType type, ReduceOp op, const std::vector<int>& order) {
  std::vector<std::byte> acc(size_of(type)), next(size_of(type));
  store_from_double(acc.data(), 0, pattern_value(index, order[0], nranks, type, op), type);
  for (std::size_t k = 1; k < order.size(); ++k) {
    store_from_double(next.data(), 0, pattern_value(index, order[k], nranks, type, op), type);
    host_reduce(acc.data(), acc.data(), next.data(), 1, type, op);
  }
  if (op == ReduceOp::Avg) host_divide(acc.data(), 1, type, nranks);
  return load_as_double(acc.data(), 0, type);
}

class CheckPattern : public ::testing::TestWithParam<std::tuple<DataType, ReduceOp>> {};

TEST_P(CheckPattern, ValuesAreExactInTheType) {
  const auto [type, op] = GetParam();
  for (int nranks = 1; nranks <= 16; ++nranks) {
    for (int rank = 0; rank < nranks; ++rank) {
      for (std::size_t i = 0; i < kIndices; ++i) {
        const double v = pattern_value(i, rank, nranks, type, op);
        std::vector<std::byte> cell(size_of(type));
        store_from_double(cell.data(), 0, v, type);
        ASSERT_EQ(load_as_double(cell.data(), 0, type), v)
            << "rank " << rank << " of " << nranks << ", index " << i << " is not exact";
        // Not zeros: every element carries information (README, timing rules).
        if (op != ReduceOp::Max && op != ReduceOp::Min) {
          ASSERT_NE(v, 0.0);
        }
      }
    }
  }
}

TEST_P(CheckPattern, ReductionIsExactInAnyOrder) {
  const auto [type, op] = GetParam();
  for (int nranks = 1; nranks <= 16; ++nranks) {
    std::vector<int> forward(static_cast<std::size_t>(nranks)), ring(forward.size());
    for (int r = 0; r < nranks; ++r) {
      forward[static_cast<std::size_t>(r)] = r;
      // The order in which a ring accumulates block 0: from rank 1 onward.
      ring[static_cast<std::size_t>(r)] = (r + 1) % nranks;
    }
    std::vector<int> backward(forward.rbegin(), forward.rend());
    for (std::size_t i = 0; i < kIndices; ++i) {
      const double want = expected_value(i, nranks, type, op);
      for (const auto* order : {&forward, &backward, &ring}) {
        ASSERT_EQ(reduce_in_type(i, nranks, type, op, *order), want)
            << nranks << " ranks, index " << i;
      }
      if (op == ReduceOp::Sum) {
        // The exact sum, not merely a rounded one.
        double exact = 0;
        for (int r = 0; r < nranks; ++r) exact += pattern_value(i, r, nranks, type, op);
        ASSERT_EQ(want, exact) << nranks << " ranks, index " << i;
      }
    }
  }
}

TEST_P(CheckPattern, ValuesDependOnRankAndIndex) {
  const auto [type, op] = GetParam();
  // A collective that dropped a rank, repeated a block or shifted data must
  // be caught: contributions differ between ranks and between neighbours.
  int rank_differs = 0, index_differs = 0;
  for (std::size_t i = 0; i < 64; ++i) {
    if (pattern_value(i, 0, 4, type, op) != pattern_value(i, 1, 4, type, op)) ++rank_differs;
    if (pattern_value(i, 0, 4, type, op) != pattern_value(i + 1, 0, 4, type, op)) ++index_differs;
  }
  // Prod uses 1s and 2s, a quarter of them 2s; the others vary more.
  EXPECT_GE(rank_differs, 16);
  EXPECT_GE(index_differs, 16);
}

INSTANTIATE_TEST_SUITE_P(EveryTypeAndOp, CheckPattern, ::testing::Combine(::testing::ValuesIn(kTypes), ::testing::ValuesIn(kOps)),
                         [](const auto& param_info) {
                           return std::string(to_string(std::get<0>(param_info.param))) + "_" +
                                  std::string(to_string(std::get<1>(param_info.param)));
                         });

TEST(CountWrong, CorrectBuffersHaveNoWrongElements) {
  for (const DataType type : kTypes) {
    for (const ReduceOp op : kOps) {
      const int n = 3;
      const std::size_t count = 1000;
      std::vector<std::byte> out(count * size_of(type));
      for (std::size_t i = 0; i < count; ++i) store_from_double(out.data(), i, expected_value(i, n, type, op), type);
      EXPECT_EQ(count_wrong(out.data(), {count, 0, n}, CollectiveKind::AllReduce, type, op), 0u)
          << to_string(type) << " " << to_string(op);
      // A ReduceScatter block checked as rank 1's.
      const BlockPartition part(count, n);
      const auto* block = out.data() + part.offset(1) * size_of(type);
      EXPECT_EQ(count_wrong(block, {count, 1, n}, CollectiveKind::ReduceScatter, type, op), 0u);
      // The same block checked as rank 0's is wrong.
      EXPECT_GT(count_wrong(block, {count, 0, n}, CollectiveKind::ReduceScatter, type, op), 0u);
    }
  }
}

TEST(CountWrong, CountsEachWrongElementIncludingNaN) {
  const int n = 4;
  const std::size_t count = 257;
  std::vector<float> out(count);
  for (std::size_t i = 0; i < count; ++i)
    out[i] = static_cast<float>(expected_value(i, n, DataType::Float, ReduceOp::Sum));
  out[0] += 1;
  out[100] = std::numeric_limits<float>::quiet_NaN();
  out[256] = -out[256];
  EXPECT_EQ(count_wrong(out.data(), {count, 0, n}, CollectiveKind::AllReduce, DataType::Float, ReduceOp::Sum), 3u);
}

TEST(CountWrong, AllGatherExpectsEachOwnersContribution) {
  const int n = 3;
  const std::size_t count = 10;  // blocks 4 3 3
  const BlockPartition part(count, n);
  std::vector<double> out(count);
  for (int r = 0; r < n; ++r)
    fill_pattern(out.data() + part.offset(r), part.size(r), part.offset(r), r, n, DataType::Double, ReduceOp::Sum);
  EXPECT_EQ(count_wrong(out.data(), {count, 2, n}, CollectiveKind::AllGather, DataType::Double, ReduceOp::Sum), 0u);
  // Rank 0's values where rank 1's block belongs are wrong.
  fill_pattern(out.data() + part.offset(1), part.size(1), part.offset(1), 0, n, DataType::Double, ReduceOp::Sum);
  EXPECT_EQ(count_wrong(out.data(), {count, 2, n}, CollectiveKind::AllGather, DataType::Double, ReduceOp::Sum),
            part.size(1));
}

TEST(FillPattern, WritesTheValuesPatternValueGives) {
  for (const DataType type : kTypes) {
    std::vector<std::byte> buf(50 * size_of(type));
    fill_pattern(buf.data(), 50, 1000, 2, 3, type, ReduceOp::Sum);
    for (std::size_t i = 0; i < 50; ++i)
      EXPECT_EQ(load_as_double(buf.data(), i, type), pattern_value(1000 + i, 2, 3, type, ReduceOp::Sum));
  }
}

}  // namespace
}  // namespace shardroof::coll

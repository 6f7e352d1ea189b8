// The datatypes, ops and counts the collective and reduction tests run over.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <limits>
#include <vector>

#include "collectives/types.h"

namespace shardroof::testing {

inline constexpr coll::DataType kAllTypes[] = {coll::DataType::Float, coll::DataType::Double,
                                               coll::DataType::BFloat16, coll::DataType::Half,
                                               coll::DataType::Int32};
inline constexpr coll::ReduceOp kAllOps[] = {coll::ReduceOp::Sum, coll::ReduceOp::Prod, coll::ReduceOp::Max,
                                             coll::ReduceOp::Min, coll::ReduceOp::Avg};

// The largest count a test may use: SHARDROOF_TEST_MAX_COUNT when set, else
// no limit. The sanitizer build sets it for the collective tests, whose
// largest count takes minutes per case under ASan.
inline std::size_t max_test_count() {
  const char* text = std::getenv("SHARDROOF_TEST_MAX_COUNT");
  if (!text || !*text) return std::numeric_limits<std::size_t>::max();
  return static_cast<std::size_t>(std::strtoull(text, nullptr, 10));
}

// Counts at every edge of the block partition over n ranks: nothing, one
// element, one fewer / as many / one more than the ranks (empty and uneven
// blocks), a prime, and a large odd count that spans many segments; none
// above max_test_count().
inline std::vector<std::size_t> edge_counts(int n, std::size_t largest = 1048579) {
  const auto u = static_cast<std::size_t>(n);
  std::vector<std::size_t> c = {0, 1, u - 1, u, u + 1, 7919, largest};
  std::sort(c.begin(), c.end());
  c.erase(std::unique(c.begin(), c.end()), c.end());
  c.erase(std::upper_bound(c.begin(), c.end(), max_test_count()), c.end());
  return c;
}

}  // namespace shardroof::testing

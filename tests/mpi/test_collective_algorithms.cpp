// The algorithms other than the ring (pairwise, direct, hier over 1 and 2
// ranks per node and over three levels, and auto switching between them by
// a tuning table, hier among them where the layout has levels), and
// broadcast and all-to-all (ours, auto and native),
// against the exact expected values of the collectives' traits: every
// collective they implement, every datatype and op, counts {0, 1, N-1, N, N+1, 7919,
// 1048579}, in place and out of place, with the default segment size and a
// small one (many segments per block). Inputs must come back unchanged out
// of place, and nothing may be written past an output.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "collectives/algorithms.h"
#include "collectives/blocks.h"
#include "collectives/check_pattern.h"
#include "collectives/error.h"
#include "collectives/traits.h"
#include "collectives/memory.h"
#include "collectives/mpi_native.h"
#include "collectives/mpi_transport.h"
#include "collectives/tuning.h"
#include "../mpi_test_util.h"
#include "../collective_test_values.h"

namespace shardroof::coll {
namespace {

using shardroof::testing::world_rank;
using shardroof::testing::max_test_count;
using shardroof::testing::world_size;

constexpr const auto& kTypes = shardroof::testing::kAllTypes;
constexpr const auto& kOps = shardroof::testing::kAllOps;
constexpr std::size_t kGuardBytes = 32;
constexpr auto kGuard = std::byte{0x5a};

// The inputs and the expected output of one (count, type, op) on this rank,
// built once and shared by every configuration and placement that runs it:
// the element-by-element expected values dominate the test's time. Shapes
// and expected values come from the collective's traits.
struct Reference {
  Reference(CollectiveKind kind, std::size_t count, DataType type, ReduceOp op, int rank, int n, int root = 0)
      : shape{count, rank, n, root} {
    const CollectiveTraits& t = traits(kind);
    const std::size_t es = size_of(type);
    in_count = t.input_count(shape);
    out_count = t.output_count(shape);
    layout = t.in_place(shape);
    full.assign(layout.buffer * es + kGuardBytes, kGuard);
    fill_pattern(full.data(), layout.buffer, 0, rank, n, type, op);
    input.assign(in_count * es + kGuardBytes, kGuard);
    fill_pattern(input.data(), in_count, t.input_first(shape), rank, n, type, op);
    expected.resize(out_count * es);
    for (std::size_t i = 0; i < out_count; ++i) store_from_double(expected.data(), i, t.expected(i, shape, type, op), type);
  }
  CallShape shape;
  std::size_t in_count = 0, out_count = 0;
  InPlaceLayout layout;
  std::vector<std::byte> full;   // in place: the one buffer, before the run
  std::vector<std::byte> input;  // out of place: the input, before the run
  std::vector<std::byte> expected;
};

// Runs `c` once on (count, type, op), in place or not; returns the problems
// found on this rank (empty if none).
std::string run_and_check(Collective& c, const Reference& ref, std::size_t count, DataType type, ReduceOp op,
                          bool in_place) {
  const CollectiveKind kind = c.kind();
  const std::size_t es = size_of(type);
  const std::size_t out_count = ref.out_count;

  std::vector<std::byte> full = ref.full;
  std::vector<std::byte> input = ref.input;
  std::vector<std::byte> output(out_count * es + kGuardBytes, kGuard);
  std::fill(output.begin(), output.begin() + static_cast<std::ptrdiff_t>(out_count * es), std::byte{0x7f});

  const void* send = input.data();
  void* recv = output.data();
  if (in_place) {
    send = full.data() + ref.layout.send_offset * es;
    recv = full.data() + ref.layout.recv_offset * es;
  }
  try {
    c.run(send, recv, count, type, op);
  } catch (const std::exception& e) {
    return std::string("threw ") + e.what();
  }
  std::ostringstream problems;
  if (out_count > 0 && std::memcmp(recv, ref.expected.data(), out_count * es) != 0)
    problems << count_wrong(recv, ref.shape, kind, type, op) << " of " << out_count << " elements wrong; ";
  const std::vector<std::byte>& written = in_place ? full : output;
  if (std::any_of(written.end() - kGuardBytes, written.end(), [](std::byte b) { return b != kGuard; }))
    problems << "wrote past the end of its output; ";
  if (!in_place && input != ref.input) problems << "modified its input; ";
  return problems.str();
}

// The references of one collective and datatype (every op, count and
// root), kept while consecutive tests ask for them: the test cases run
// each datatype's algorithms of one collective in a row (the
// instantiations below put the datatype outside), so each reference is
// built once for all of them, not once per algorithm. At most one
// collective and datatype is held: 120 MB per rank for double AllReduce.
const Reference& cached_reference(CollectiveKind kind, std::size_t count, DataType type, ReduceOp op, int rank, int n,
                                  int root) {
  using Key = std::tuple<std::size_t, int, int>;  // count, op, root
  static std::pair<CollectiveKind, DataType> held{};
  static std::map<Key, std::unique_ptr<Reference>> cache;
  if (held != std::make_pair(kind, type)) {
    cache.clear();
    held = {kind, type};
  }
  auto& ref = cache[Key{count, static_cast<int>(op), root}];
  if (!ref) ref = std::make_unique<Reference>(kind, count, type, op, rank, n, root);
  return *ref;
}

// Runs each of `collectives` (the second one with 4 KiB segments) on every
// edge count up to `largest`, out of place and in place; writes the
// problems found on this rank to `failures`.
void check_edge_counts(const std::vector<std::unique_ptr<Collective>>& collectives, CollectiveKind kind,
                       DataType type, ReduceOp op, int root, std::size_t largest, std::ostream& failures) {
  const int rank = world_rank();
  const int n = world_size();
  for (const std::size_t count : shardroof::testing::edge_counts(n, largest)) {
    const Reference& ref = cached_reference(kind, count, type, op, rank, n, root);
    for (const bool in_place : {false, true}) {
      for (std::size_t k = 0; k < collectives.size(); ++k) {
        const std::string p = run_and_check(*collectives[k], ref, count, type, op, in_place);
        if (!p.empty())
          failures << collectives[k]->algorithm() << (k == 1 ? "/4KiB " : " ") << to_string(op) << " root " << root
                   << " count " << count << (in_place ? " in place: " : " out of place: ") << p << "\n";
      }
    }
  }
}

// A table for `kind` on `n` ranks: direct (or pairwise, for AllGather) up
// to 64 bytes, pairwise up to 64 KiB, ring above.
TuningTable switching_table(CollectiveKind kind, int n) {
  TuningTable t;
  const std::string small = supports(Algorithm::Direct, kind) ? "direct" : "pairwise";
  t.rules = {{kind, n, 64, {small}, 0}, {kind, n, 64 << 10, {"pairwise"}, 0}, {kind, n, kNoUpperBound, {"ring"}, 0}};
  return t;
}

// `algorithm` built twice: with `options` and with 4 KiB segments. One
// object per configuration for the whole test, so scratch is reused across
// sizes as in a benchmark.
std::vector<std::unique_ptr<Collective>> default_and_small_segments(Algorithm algorithm, CollectiveKind kind,
                                                                    Transport& transport, MemoryOps& memory,
                                                                    const CollectiveOptions& options,
                                                                    const TuningTable& table = {}) {
  CollectiveOptions small = options;
  small.segment_bytes = 4096;
  std::vector<std::unique_ptr<Collective>> collectives;
  collectives.push_back(make_collective(algorithm, kind, transport, memory, options, table));
  collectives.push_back(make_collective(algorithm, kind, transport, memory, small, table));
  return collectives;
}

struct Case {
  Algorithm algorithm;
  CollectiveKind kind;
};

class Algorithms : public ::testing::TestWithParam<std::tuple<DataType, Case>> {};

TEST_P(Algorithms, MatchExpectedValues) {
  const auto [type, c] = GetParam();
  const int n = world_size();
  MpiTransport transport(MPI_COMM_WORLD);
  HostMemoryOps memory;
  // auto takes a table that sends tiny, mid-sized and large counts to
  // different algorithms, so every edge count runs through a switch.
  const auto collectives =
      default_and_small_segments(c.algorithm, c.kind, transport, memory, {}, switching_table(c.kind, n));

  std::vector<ReduceOp> ops(std::begin(kOps), std::end(kOps));
  if (c.kind == CollectiveKind::AllGather) ops = {ReduceOp::Sum};  // op is ignored
  std::ostringstream failures;
  for (const ReduceOp op : ops) check_edge_counts(collectives, c.kind, type, op, 0, 1048579, failures);
  EXPECT_ALL_RANKS(failures.str().empty(), failures.str());
}

// Each collective's algorithms in a row (cached_reference).
constexpr Case kCases[] = {
    {Algorithm::Pairwise, CollectiveKind::AllReduce},  {Algorithm::Direct, CollectiveKind::AllReduce},
    {Algorithm::Auto, CollectiveKind::AllReduce},      {Algorithm::Pairwise, CollectiveKind::ReduceScatter},
    {Algorithm::Direct, CollectiveKind::ReduceScatter}, {Algorithm::Auto, CollectiveKind::ReduceScatter},
    {Algorithm::Pairwise, CollectiveKind::AllGather},  {Algorithm::Auto, CollectiveKind::AllGather},
};

std::string case_name(const ::testing::TestParamInfo<std::tuple<DataType, Case>>& info) {
  const auto& [type, c] = info.param;
  return std::string(to_string(c.algorithm)) + "_" + std::string(to_string(c.kind)) + "_" +
         std::string(to_string(type));
}

INSTANTIATE_TEST_SUITE_P(AllCases, Algorithms,
                         ::testing::Combine(::testing::ValuesIn(kTypes), ::testing::ValuesIn(kCases)), case_name);

// hier on K ranks per node: consecutive nodes (rank = node * K + local) for
// both collectives, and for AllReduce also interleaved nodes (rank r on node
// r % M), which ReduceScatter refuses. Where K does not divide the ranks
// (3 ranks, 2 per node) the unequal nodes must be refused; fewer ranks than
// K form one node. Every type with Sum and Avg (Avg
// divides once, after both levels), float with every op; the
// million-element count for float.
struct HierCase {
  CollectiveKind kind;
  int ranks_per_node;
  bool interleaved;
};

// Node labels of n ranks, K per node; when K does not divide n, consecutive
// (the last node short of ranks).
std::vector<int> node_labels(int n, int ranks_per_node, bool interleaved) {
  std::vector<int> node_of_rank;
  const int nodes = n / ranks_per_node;
  const bool spread = interleaved && n % ranks_per_node == 0;
  for (int r = 0; r < n; ++r) node_of_rank.push_back(spread ? r % nodes : r / ranks_per_node);
  return node_of_rank;
}

class Hierarchical : public ::testing::TestWithParam<std::tuple<DataType, HierCase>> {};

TEST_P(Hierarchical, MatchExpectedValues) {
  const auto [type, c] = GetParam();
  const int n = world_size();
  MpiTransport transport(MPI_COMM_WORLD);
  HostMemoryOps memory;
  CollectiveOptions plain;
  plain.hier.node_of_rank = node_labels(n, c.ranks_per_node, c.interleaved);
  if (n > c.ranks_per_node && n % c.ranks_per_node != 0) {
    // Nodes of unequal size cannot pair ranks by local index: refused.
    bool refused = false;
    try {
      make_collective(Algorithm::Hier, c.kind, transport, memory, plain);
    } catch (const InvalidArgument&) {
      refused = true;
    }
    EXPECT_ALL_RANKS(refused, "hier ran on nodes of unequal size");
    return;
  }
  const auto collectives = default_and_small_segments(Algorithm::Hier, c.kind, transport, memory, plain);
  std::vector<ReduceOp> ops = {ReduceOp::Sum, ReduceOp::Avg};
  if (type == DataType::Float) ops.assign(std::begin(kOps), std::end(kOps));
  std::ostringstream failures;
  for (const ReduceOp op : ops)
    check_edge_counts(collectives, c.kind, type, op, 0, type == DataType::Float ? 1048579 : 7919, failures);
  EXPECT_ALL_RANKS(failures.str().empty(), failures.str());
}

constexpr HierCase kHierCases[] = {
    {CollectiveKind::AllReduce, 1, false},     {CollectiveKind::AllReduce, 2, false},
    {CollectiveKind::AllReduce, 2, true},      {CollectiveKind::ReduceScatter, 1, false},
    {CollectiveKind::ReduceScatter, 2, false},
};

std::string hier_name(const ::testing::TestParamInfo<std::tuple<DataType, HierCase>>& info) {
  const auto& [type, c] = info.param;
  return std::string(to_string(c.kind)) + "_" + std::to_string(c.ranks_per_node) + "_per_node" +
         (c.interleaved ? "_interleaved_" : "_") + std::string(to_string(type));
}

INSTANTIATE_TEST_SUITE_P(AllCases, Hierarchical,
                         ::testing::Combine(::testing::ValuesIn(kTypes), ::testing::ValuesIn(kHierCases)), hier_name);

// hier refuses what it cannot run, on every rank alike: no node grouping,
// and ReduceScatter over nodes whose ranks are not consecutive.
TEST(Hierarchical, RefusesMissingOrInterleavedNodes) {
  const int n = world_size();
  MpiTransport transport(MPI_COMM_WORLD);
  HostMemoryOps memory;
  std::ostringstream failures;
  try {
    make_collective(Algorithm::Hier, CollectiveKind::AllReduce, transport, memory, {});
    failures << "ran without a node grouping; ";
  } catch (const InvalidArgument&) {
  }
  if (n == 4) {
    CollectiveOptions interleaved;
    interleaved.hier.node_of_rank = node_labels(n, 2, true);
    try {
      make_collective(Algorithm::Hier, CollectiveKind::ReduceScatter, transport, memory, interleaved);
      failures << "reduce_scatter ran over interleaved nodes; ";
    } catch (const InvalidArgument&) {
    }
  }
  EXPECT_FALSE(supports(Algorithm::Hier, CollectiveKind::AllGather));
  EXPECT_ALL_RANKS(failures.str().empty(), failures.str());
}

// hier over L levels (collectives/hierarchy_layout.h), on the level
// shapes that make this run's ranks (innermost first: ranks per node, nodes
// per group, ..., groups): three levels and two, levels of one unit among
// them; units of consecutive ranks for both collectives, and for AllReduce
// also nodes interleaved across the ranks (rank r on node r mod M), which
// ReduceScatter refuses. Every type with Sum and Avg, over counts below
// the rank count (odd ones among them), around it, a prime, and for float
// a count that small segments cut into many.
struct LevelShape {
  std::vector<int> sizes;
  bool interleaved;
};

std::vector<LevelShape> level_shapes(int n) {
  switch (n) {
    case 1: return {{{1, 1, 1}, false}};
    case 2: return {{{1, 2, 1}, false}, {{2, 1, 1}, false}};
    case 3: return {{{1, 1, 3}, false}, {{3, 1, 1}, false}};
    case 4: return {{{2, 1, 2}, false}, {{1, 2, 2}, false}};
    case 6: return {{{1, 3, 2}, false}, {{2, 3}, false}, {{3, 1, 2}, false}};
    case 8: return {{{2, 2, 2}, false}, {{2, 4}, false}, {{4, 2}, false}, {{2, 2, 2}, true}};
    case 12: return {{{2, 3, 2}, false}, {{3, 2, 2}, false}, {{2, 2, 3}, true}};
    default: return {{{1, 1, n}, false}};
  }
}

// The hier options of `shape` on n ranks: rank r sits at place p (p = r,
// or with interleaved nodes the place that puts it on node r mod M), and
// place p's unit at level l is p / (g_0 ... g_l).
CollectiveOptions level_options(int n, const LevelShape& shape) {
  const int ranks_per_node = shape.sizes.front();
  const int nodes = n / ranks_per_node;
  CollectiveOptions o;
  o.hier.group_of_rank.resize(shape.sizes.size() - 2);
  for (int r = 0; r < n; ++r) {
    const int p = shape.interleaved ? (r % nodes) * ranks_per_node + r / nodes : r;
    int span = ranks_per_node;
    o.hier.node_of_rank.push_back(p / span);
    for (std::size_t i = 0; i + 2 < shape.sizes.size(); ++i) {
      span *= shape.sizes[i + 1];
      o.hier.group_of_rank[i].push_back(p / span);
    }
  }
  return o;
}

std::string shape_name(const LevelShape& shape) {
  std::ostringstream name;
  for (std::size_t l = 0; l < shape.sizes.size(); ++l) name << (l == 0 ? "" : "x") << shape.sizes[l];
  if (shape.interleaved) name << " interleaved";
  return name.str();
}

class HierarchyLevels : public ::testing::TestWithParam<CollectiveKind> {};

TEST_P(HierarchyLevels, MatchExpectedValues) {
  const CollectiveKind kind = GetParam();
  const int rank = world_rank();
  const int n = world_size();
  MpiTransport transport(MPI_COMM_WORLD);
  HostMemoryOps memory;
  std::ostringstream failures;
  const auto u = static_cast<std::size_t>(n);
  std::vector<std::size_t> counts = {0, 1, 3, 5, u - 1, u, u + 1, 2 * u + 3, 1031};
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  for (const DataType type : kTypes) {
    std::vector<std::size_t> type_counts = counts;
    if (type == DataType::Float && max_test_count() >= 65537) type_counts.push_back(65537);
    for (const LevelShape& shape : level_shapes(n)) {
      CollectiveOptions options = level_options(n, shape);
      if (shape.interleaved && kind == CollectiveKind::ReduceScatter) {
        bool refused = false;
        try {
          make_collective(Algorithm::Hier, kind, transport, memory, options);
        } catch (const InvalidArgument&) {
          refused = true;
        }
        if (!refused) failures << shape_name(shape) << ": reduce_scatter ran over interleaved nodes\n";
        continue;
      }
      const auto collectives = default_and_small_segments(Algorithm::Hier, kind, transport, memory, options);
      // auto with a table that names hier at every size: hier where the
      // shape has two levels or more of more than one unit, the fallback
      // (the ring) where hier would be the ring.
      if (type == DataType::Float) {
        const auto working = std::count_if(shape.sizes.begin(), shape.sizes.end(), [](int g) { return g > 1; });
        const std::string expected = working > 1 ? "auto:hier" : "auto:ring";
        TuningTable hier_table;
        hier_table.rules = {{kind, n, kNoUpperBound, {"hier"}, 0}};
        const auto chooser = make_collective(Algorithm::Auto, kind, transport, memory, options, hier_table);
        for (const std::size_t count : {std::size_t{1}, u + 1, std::size_t{1031}}) {
          const Reference& ref = cached_reference(kind, count, type, ReduceOp::Sum, rank, n, 0);
          const std::string p = run_and_check(*chooser, ref, count, type, ReduceOp::Sum, false);
          if (!p.empty()) failures << shape_name(shape) << " auto count " << count << ": " << p << "\n";
          if (chooser->algorithm() != expected)
            failures << shape_name(shape) << " auto ran " << chooser->algorithm() << ", not " << expected << "\n";
        }
      }
      for (const ReduceOp op : {ReduceOp::Sum, ReduceOp::Avg})
        for (const std::size_t count : type_counts) {
          const Reference& ref = cached_reference(kind, count, type, op, rank, n, 0);
          for (const bool in_place : {false, true}) {
            // The small segments only where they cut a block into several.
            const std::size_t runs = count * size_of(type) > 8 * 4096 ? collectives.size() : 1;
            for (std::size_t k = 0; k < runs; ++k) {
              const std::string p = run_and_check(*collectives[k], ref, count, type, op, in_place);
              if (!p.empty())
                failures << shape_name(shape) << (k == 1 ? " 4KiB " : " ") << to_string(type) << " "
                         << to_string(op) << " count " << count << (in_place ? " in place: " : " out of place: ")
                         << p << "\n";
            }
          }
        }
    }
  }
  EXPECT_ALL_RANKS(failures.str().empty(), failures.str());
}

std::string kind_name(const ::testing::TestParamInfo<CollectiveKind>& info) {
  return std::string(to_string(info.param));
}

INSTANTIATE_TEST_SUITE_P(AllCases, HierarchyLevels,
                         ::testing::Values(CollectiveKind::AllReduce, CollectiveKind::ReduceScatter), kind_name);

// Levels that cannot run are refused on every rank alike: groups that
// split a node, groups of unequal numbers of nodes, a label list of the
// wrong length.
TEST(HierarchyLevels, RefusesUnequalOrSplitGroups) {
  const int n = world_size();
  MpiTransport transport(MPI_COMM_WORLD);
  HostMemoryOps memory;
  std::ostringstream failures;
  const auto refused = [&](const CollectiveOptions& o) {
    try {
      make_collective(Algorithm::Hier, CollectiveKind::AllReduce, transport, memory, o);
    } catch (const InvalidArgument&) {
      return true;
    }
    return false;
  };
  CollectiveOptions split;    // nodes of 2; groups of 3 ranks split the second node
  CollectiveOptions unequal;  // nodes of 1; a group of n - 1 and one of 1
  CollectiveOptions long_labels;  // one group label too many
  split.hier.group_of_rank.resize(1);
  unequal.hier.group_of_rank.resize(1);
  for (int r = 0; r < n; ++r) {
    split.hier.node_of_rank.push_back(r / 2);
    split.hier.group_of_rank[0].push_back(r / 3);
    unequal.hier.node_of_rank.push_back(r);
    unequal.hier.group_of_rank[0].push_back(r < n - 1 ? 0 : 1);
  }
  long_labels.hier.node_of_rank = unequal.hier.node_of_rank;
  long_labels.hier.group_of_rank = {std::vector<int>(static_cast<std::size_t>(n) + 1, 0)};
  if (n >= 4 && !refused(split)) failures << "ran with groups that split a node; ";
  if (n >= 3 && !refused(unequal)) failures << "ran with unequal groups; ";
  if (!refused(long_labels)) failures << "ran with a group label list longer than the ranks; ";
  EXPECT_ALL_RANKS(failures.str().empty(), failures.str());
}

// Broadcast and AllToAll, whose op is ignored: our algorithm with the
// default and a small segment size, auto (no table: its fallback), and the
// native MPI call, against the traits' expected values, over the edge
// counts; broadcast from rank 0 and from the last rank.
class DataMovement : public ::testing::TestWithParam<std::tuple<CollectiveKind, DataType>> {};

TEST_P(DataMovement, MatchExpectedValues) {
  const auto [kind, type] = GetParam();
  const int n = world_size();
  MpiTransport transport(MPI_COMM_WORLD);
  HostMemoryOps memory;
  const Algorithm ours = traits(kind).algorithms.front().algorithm;
  std::vector<int> roots = {0};
  if (kind == CollectiveKind::Broadcast && n > 1) roots.push_back(n - 1);
  std::ostringstream failures;
  for (const int root : roots) {
    CollectiveOptions plain;
    plain.broadcast.root = root;
    CollectiveOptions small = plain;
    small.segment_bytes = 4096;
    std::vector<std::unique_ptr<Collective>> collectives;
    collectives.push_back(make_collective(ours, kind, transport, memory, plain));
    collectives.push_back(make_collective(ours, kind, transport, memory, small));
    collectives.push_back(make_collective(Algorithm::Auto, kind, transport, memory, plain));
    collectives.push_back(std::make_unique<MpiNativeCollective>(kind, MPI_COMM_WORLD, root));
    // The data only moves, so the element size matters, not the type's
    // arithmetic: the million-element count (many segments) runs for float.
    check_edge_counts(collectives, kind, type, ReduceOp::Sum, root, type == DataType::Float ? 1048579 : 7919,
                      failures);
  }
  EXPECT_ALL_RANKS(failures.str().empty(), failures.str());
}

std::string movement_name(const ::testing::TestParamInfo<std::tuple<CollectiveKind, DataType>>& info) {
  return std::string(to_string(std::get<0>(info.param))) + "_" + std::string(to_string(std::get<1>(info.param)));
}

INSTANTIATE_TEST_SUITE_P(AllCases, DataMovement,
                         ::testing::Combine(::testing::Values(CollectiveKind::Broadcast, CollectiveKind::AllToAll),
                                            ::testing::ValuesIn(kTypes)),
                         movement_name);

// A root that is not a rank is refused by ours and by native, on every rank alike.
TEST(Broadcast, RefusesARootThatIsNotARank) {
  const int n = world_size();
  MpiTransport transport(MPI_COMM_WORLD);
  HostMemoryOps memory;
  CollectiveOptions options;
  options.broadcast.root = n;
  float value = 1;
  bool ours_refused = false, native_refused = false;
  try {
    make_collective(Algorithm::Ring, CollectiveKind::Broadcast, transport, memory, options)
        ->run(&value, &value, 1, DataType::Float, ReduceOp::Sum);
  } catch (const InvalidArgument&) {
    ours_refused = true;
  }
  try {
    MpiNativeCollective(CollectiveKind::Broadcast, MPI_COMM_WORLD, -1).run(&value, &value, 1, DataType::Float, ReduceOp::Sum);
  } catch (const InvalidArgument&) {
    native_refused = true;
  }
  EXPECT_ALL_RANKS(ours_refused && native_refused, "a root outside 0..N-1 ran");
}

// auto with the library's own collective among its candidates: the table
// names native first for small sizes and the ring above; every choice gives
// the exact result, and the choice shows in algorithm().
TEST(AutoWithNative, RunsWhatTheTableNamesAndGivesExactResults) {
  const int rank = world_rank();
  const int n = world_size();
  MpiTransport transport(MPI_COMM_WORLD);
  HostMemoryOps memory;
  TuningTable table;
  table.rules = {{CollectiveKind::AllReduce, n, 4096, {"native", "direct"}, 0},
                 {CollectiveKind::AllReduce, n, kNoUpperBound, {"ring"}, 0}};
  auto c = make_auto_collective(CollectiveKind::AllReduce, transport, memory, {}, table,
                                {Algorithm::Ring, Algorithm::Pairwise, Algorithm::Direct},
                                [] { return std::make_unique<MpiNativeCollective>(CollectiveKind::AllReduce, MPI_COMM_WORLD); });
  std::ostringstream failures;
  for (const auto& [count, want] : {std::pair<std::size_t, std::string>{5, "auto:native"}, {1024, "auto:native"},
                                    {1025, "auto:ring"}, {7919, "auto:ring"}}) {
    const Reference ref(CollectiveKind::AllReduce, count, DataType::Float, ReduceOp::Sum, rank, n);
    const std::string p = run_and_check(*c, ref, count, DataType::Float, ReduceOp::Sum, false);
    if (!p.empty()) failures << "count " << count << ": " << p << "\n";
    if (c->algorithm() != want) failures << "count " << count << " ran " << c->algorithm() << ", want " << want << "\n";
  }
  EXPECT_ALL_RANKS(failures.str().empty(), failures.str());
}

}  // namespace
}  // namespace shardroof::coll

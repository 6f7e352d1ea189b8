#include "collectives/traits.h"

#include <algorithm>
#include <iterator>
#include <string>

#include "collectives/all_to_all.h"
#include "collectives/blocks.h"
#include "collectives/broadcast.h"
#include "collectives/check_pattern.h"
#include "collectives/direct.h"
#include "collectives/hierarchical.h"
#include "collectives/pairwise.h"
#include "collectives/ring_all_gather.h"
#include "collectives/ring_all_reduce.h"
#include "collectives/ring_reduce_scatter.h"

namespace shardroof::coll {
namespace {

BlockPartition blocks(const CallShape& c) { return BlockPartition(c.count, c.nranks); }
std::size_t whole(const CallShape& c) { return c.count; }
std::size_t my_block(const CallShape& c) { return blocks(c).size(c.rank); }
std::size_t my_offset(const CallShape& c) { return blocks(c).offset(c.rank); }
std::size_t zero(const CallShape&) { return 0; }
double all_links(int n) { return n > 0 ? 2.0 * (n - 1) / n : 0; }
double one_link(int n) { return n > 0 ? (n - 1.0) / n : 0; }
double one(int) { return 1; }

// A value of the input pattern as the collective delivers it: rounded to the type.
double delivered(std::size_t index, int rank, int n, DataType type, ReduceOp op) {
  std::byte cell[8];
  store_from_double(cell, 0, pattern_value(index, rank, n, type, op), type);
  return load_as_double(cell, 0, type);
}

template <class T>
std::unique_ptr<Collective> make_own(Transport& t, MemoryOps& m, const CollectiveOptions& o) {
  return std::make_unique<T>(t, m, o);
}
template <CollectiveKind K>
std::unique_ptr<Collective> make_pairwise(Transport& t, MemoryOps& m, const CollectiveOptions& o) {
  return std::make_unique<PairwiseCollective>(K, t, m, o);
}
template <CollectiveKind K>
std::unique_ptr<Collective> make_hier(Transport& t, MemoryOps& m, const CollectiveOptions& o) {
  return std::make_unique<HierarchicalCollective>(K, t, m, o);
}
template <CollectiveKind K>
std::unique_ptr<Collective> make_direct(Transport& t, MemoryOps& m, const CollectiveOptions& o) {
  return std::make_unique<DirectCollective>(K, t, m, o);
}

constexpr OwnAlgorithm kAllReduceAlgorithms[] = {
    {Algorithm::Ring, make_own<RingAllReduce>},
    {Algorithm::Pairwise, make_pairwise<CollectiveKind::AllReduce>, true},
    {Algorithm::Direct, make_direct<CollectiveKind::AllReduce>},
    {Algorithm::Hier, make_hier<CollectiveKind::AllReduce>}};
constexpr OwnAlgorithm kReduceScatterAlgorithms[] = {
    {Algorithm::Ring, make_own<RingReduceScatter>},
    {Algorithm::Pairwise, make_pairwise<CollectiveKind::ReduceScatter>, true},
    {Algorithm::Direct, make_direct<CollectiveKind::ReduceScatter>},
    {Algorithm::Hier, make_hier<CollectiveKind::ReduceScatter>}};
constexpr OwnAlgorithm kAllGatherAlgorithms[] = {
    {Algorithm::Ring, make_own<RingAllGather>},
    {Algorithm::Pairwise, make_pairwise<CollectiveKind::AllGather>, true}};
constexpr OwnAlgorithm kBroadcastAlgorithms[] = {
    {Algorithm::Ring, make_own<RingBroadcast>}};
constexpr OwnAlgorithm kAllToAllAlgorithms[] = {
    {Algorithm::Pairwise, make_own<PairwiseAllToAll>}};

// In place layouts (collective.h): one buffer of `count` elements unless said.
InPlaceLayout same_buffer(const CallShape& c) { return {c.count, 0, 0}; }
InPlaceLayout scatter_in_place(const CallShape& c) { return {c.count, 0, my_offset(c)}; }
InPlaceLayout gather_in_place(const CallShape& c) { return {c.count, my_offset(c), 0}; }
InPlaceLayout all_to_all_in_place(const CallShape& c) {
  return {std::max(c.count, static_cast<std::size_t>(c.nranks) * my_block(c)), 0, 0};
}

std::size_t all_to_all_output(const CallShape& c) { return static_cast<std::size_t>(c.nranks) * my_block(c); }

double reduced(std::size_t i, const CallShape& c, DataType type, ReduceOp op) {
  return expected_value(i, c.nranks, type, op);
}
double reduced_block(std::size_t i, const CallShape& c, DataType type, ReduceOp op) {
  return expected_value(my_offset(c) + i, c.nranks, type, op);
}
double gathered(std::size_t i, const CallShape& c, DataType type, ReduceOp op) {
  return delivered(i, blocks(c).owner(i), c.nranks, type, op);
}
double from_root(std::size_t i, const CallShape& c, DataType type, ReduceOp op) {
  return delivered(i, c.root, c.nranks, type, op);
}
// Output slot s holds block `rank` of rank s's input.
double exchanged(std::size_t i, const CallShape& c, DataType type, ReduceOp op) {
  const std::size_t block = my_block(c);
  const auto source = static_cast<int>(i / block);
  return delivered(my_offset(c) + i % block, source, c.nranks, type, op);
}

// MPI's int arguments. AllReduce and Broadcast are issued in pieces.
std::uint64_t no_int_limit(std::size_t, int, std::size_t) { return 0; }
// MPI_Reduce_scatter(_block): the block counts, in elements.
std::uint64_t block_elements(std::size_t count, int n, std::size_t) {
  return BlockPartition(count, n).max_size();
}
// MPI_Allgather in bytes per block; MPI_Allgatherv's byte displacements reach the whole array.
std::uint64_t gather_bytes(std::size_t count, int n, std::size_t es) {
  const BlockPartition part(count, n);
  return count % static_cast<std::size_t>(n) == 0 ? part.max_size() * es : count * es;
}
// MPI_Alltoall's elements per block; MPI_Alltoallv's element displacements
// reach the whole input (and N blocks of output).
std::uint64_t all_to_all_elements(std::size_t count, int n, std::size_t) {
  const BlockPartition part(count, n);
  return count % static_cast<std::size_t>(n) == 0
             ? part.max_size()
             : std::max<std::uint64_t>(count, part.max_size() * static_cast<std::uint64_t>(n));
}

constexpr CollectiveTraits kTraits[] = {
    {CollectiveKind::AllReduce, "all_reduce", "allreduce", true, all_links, "2(N-1)/N", whole, whole, zero,
     same_buffer, reduced, no_int_limit, kAllReduceAlgorithms},
    {CollectiveKind::ReduceScatter, "reduce_scatter", "reducescatter", true, one_link, "(N-1)/N", whole, my_block,
     zero, scatter_in_place, reduced_block, block_elements, kReduceScatterAlgorithms},
    {CollectiveKind::AllGather, "all_gather", "allgather", false, one_link, "(N-1)/N", my_block, whole, my_offset,
     gather_in_place, gathered, gather_bytes, kAllGatherAlgorithms},
    {CollectiveKind::Broadcast, "broadcast", "bcast", false, one, "1", whole, whole, zero, same_buffer, from_root,
     no_int_limit, kBroadcastAlgorithms},
    {CollectiveKind::AllToAll, "all_to_all", "alltoall", false, one_link, "(N-1)/N", whole, all_to_all_output, zero,
     all_to_all_in_place, exchanged, all_to_all_elements, kAllToAllAlgorithms},
};

constexpr bool rows_in_kind_order() {
  for (std::size_t i = 0; i < std::size(kTraits); ++i)
    if (static_cast<std::size_t>(kTraits[i].kind) != i) return false;
  return true;
}
static_assert(rows_in_kind_order(), "kTraits rows follow CollectiveKind");

}  // namespace

std::span<const CollectiveTraits> all_collectives() { return kTraits; }

const CollectiveTraits& traits(CollectiveKind kind) { return kTraits[static_cast<std::size_t>(kind)]; }

std::string_view collective_names() {
  static const std::string names = [] {
    std::string s;
    for (const auto& t : kTraits) s += (s.empty() ? "" : ", ") + std::string(t.name);
    return s;
  }();
  return names;
}

std::string_view to_string(CollectiveKind kind) { return traits(kind).name; }

std::optional<CollectiveKind> parse_collective(std::string_view name) {
  for (const auto& t : kTraits)
    if (name == t.name || name == t.alias) return t.kind;
  return std::nullopt;
}

const OwnAlgorithm* own_algorithm_for(Algorithm algorithm, CollectiveKind kind) {
  for (const OwnAlgorithm& a : traits(kind).algorithms)
    if (a.algorithm == algorithm) return &a;
  return nullptr;
}

}  // namespace shardroof::coll

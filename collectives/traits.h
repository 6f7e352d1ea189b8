// What each collective is, in one table: its name, the shapes of its input
// and output on every rank for a total of `count` elements, nccl-tests' bus
// bandwidth factor, the largest int argument its native MPI call needs, the
// value every output element must hold after a run on check_pattern's
// inputs, and our algorithms that implement it. The benchmark (`coll`), its
// runner, the checks and the tests all read this table, so adding a
// collective is one algorithm file, one row in traits.cpp and a case in each
// native baseline.
//
// Invariant of every row: in place, element k of the one buffer holds the
// input's pattern at index k, so the input sits at in_place().send_offset ==
// input_first().
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "collectives/collective.h"
#include "collectives/memory.h"
#include "collectives/collective_options.h"
#include "collectives/transport.h"
#include "collectives/types.h"

namespace shardroof::coll {

// An implementation of a collective, by name (collectives/algorithms.h says
// what each is): ours, `auto` choosing among them, or Native, the library's
// own collective (MPI's or NCCL's), which the transport's owner builds
// (collectives/mpi_native.h; measure/comm_setup.h) and make_collective does not.
enum class Algorithm { Auto, Ring, Pairwise, Direct, Hier, Native };
std::string_view to_string(Algorithm a);  // "auto", "ring", ..., "native"
std::optional<Algorithm> parse_algorithm(std::string_view name);

// One rank's view of a collective call: `count` elements in all (the count
// passed to Collective::run), on rank `rank` of `nranks`; `root` for rooted
// collectives (Broadcast), ignored by the others.
struct CallShape {
  std::size_t count = 0;
  int rank = 0;
  int nranks = 1;
  int root = 0;
};

// In place, the one buffer: its size, and where send and recv point in it
// (all in elements).
struct InPlaceLayout {
  std::size_t buffer = 0;
  std::size_t send_offset = 0;
  std::size_t recv_offset = 0;
};

// One of our algorithms for a collective: how to build it, and whether it
// keeps messages of two tags in flight between the same two ranks (a
// transport without tag matching, NCCL, cannot run those).
struct OwnAlgorithm {
  Algorithm algorithm;
  std::unique_ptr<Collective> (*make)(Transport& transport, MemoryOps& memory, const CollectiveOptions& options);
  bool needs_tag_matching = false;
};

struct CollectiveTraits {
  CollectiveKind kind;
  std::string_view name;   // "all_reduce"
  std::string_view alias;  // "allreduce", also accepted by parse_collective
  // Whether the reduction operator applies (it is ignored otherwise).
  bool reduces;
  // nccl-tests' bus bandwidth: busbw = algbw * bus_factor(N), S the bytes of
  // `count` elements; bus_factor_text says it as a formula in N.
  double (*bus_factor)(int nranks);
  std::string_view bus_factor_text;
  // Elements of this rank's input and output.
  std::size_t (*input_count)(const CallShape&);
  std::size_t (*output_count)(const CallShape&);
  // check_pattern's index of the input's first element.
  std::size_t (*input_first)(const CallShape&);
  InPlaceLayout (*in_place)(const CallShape&);
  // The exact value of output element i on this rank, for inputs made by
  // fill_pattern (collectives/check_pattern.h).
  double (*expected)(std::size_t i, const CallShape&, DataType type, ReduceOp op);
  // The largest int argument (a count or displacement) the native MPI call
  // needs on `nranks` ranks for `count` elements of `element_bytes` bytes;
  // MPI counts are ints, so above INT_MAX the native call cannot run. 0 when
  // the call is issued in pieces and has no such limit.
  std::uint64_t (*mpi_int_argument)(std::size_t count, int nranks, std::size_t element_bytes);
  // Our algorithms, the first one the collective's main one (what `--impl
  // all` runs beside auto and native).
  std::span<const OwnAlgorithm> algorithms;
};

// Every collective, in CollectiveKind order.
std::span<const CollectiveTraits> all_collectives();
const CollectiveTraits& traits(CollectiveKind kind);

// "all_reduce, reduce_scatter, ..." for help and error texts.
std::string_view collective_names();

// Our algorithm `algorithm` for `kind`, or null if it has none (Auto: null).
const OwnAlgorithm* own_algorithm_for(Algorithm algorithm, CollectiveKind kind);

}  // namespace shardroof::coll

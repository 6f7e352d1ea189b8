// Which algorithm Open MPI's coll/tuned component runs for a call: the
// fixed decision rules of Open MPI 4.1.x
// (ompi/mca/coll/tuned/coll_tuned_decision_fixed.c at tag v4.1.4, the
// version Debian 12 ships; the file is the same from v4.1.0 to v4.1.8), and
// what a user forced through the MCA parameters coll_tuned_use_dynamic_rules
// and coll_tuned_<operation>_algorithm (with its _segmentsize,
// _tree_fanout and _chain_fanout), which measure/native_library.h reads
// through MPI_T control variables. Pure: no MPI.
//
// coll/tuned decides per call from the communicator's size and a byte
// count that differs per operation (each as the 4.1.4 source computes it):
//   allreduce, reduce, bcast             the whole buffer (dsize * count)
//   reduce_scatter                       the whole buffer (sum of rcounts)
//   reduce_scatter_block                 one rank's block (dsize * rcount)
//   allgather, alltoall, scatter         one rank's block (dsize * scount)
//   allgatherv                           the total over ranks / size
//   alltoallv                            the size alone
// shardroof's native collectives call MPI_Allreduce, MPI_Reduce_scatter_block
// (count divisible by N; MPI_Reduce_scatter otherwise), MPI_Allgather(v),
// MPI_Bcast and MPI_Alltoall(v) with commutative operations; some of the
// algorithms chosen call further collectives (reduce_scatter_block's
// basic_linear is a reduce and a scatter), which coll/tuned decides again.
#pragma once

#include <climits>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>

namespace shardroof::model::tuned {

enum class Operation {
  Allreduce,
  ReduceScatter,
  ReduceScatterBlock,
  Allgather,
  Allgatherv,
  Bcast,
  Alltoall,
  Alltoallv,
  Reduce,
  Scatter,
};

// The operation as the MCA parameters name it: "allreduce" in
// coll_tuned_allreduce_algorithm.
const char* mca_name(Operation op);

// The algorithms coll/tuned can run, one cost formula each
// (model/native_cost.h). Several operations share a shape under one name
// (basic_linear, ring, ...); the operation says which.
enum class Algorithm {
  BasicLinear,       // "basic_linear" / "linear"
  Nonoverlapping,    // allreduce, reduce_scatter: a reduce, then a bcast / scatterv
  RecursiveDoubling,
  RecursiveHalving,
  Ring,
  SegmentedRing,
  Rabenseifner,      // allreduce, reduce: reduce-scatter by recursive halving, then allgather / gather
  Butterfly,
  Chain,
  Pipeline,
  SplitBinaryTree,
  BinaryTree,
  Binomial,
  Knomial,
  ScatterAllgather,
  ScatterAllgatherRing,
  Pairwise,
  ModifiedBruck,
  LinearSync,
  TwoProcs,
  Bruck,
  Neighbor,
  InOrderBinary,
  LinearNb,
  Default,           // allgatherv's "default": the basic component's gatherv and bcast
};

// What a user set through the MCA parameters of one operation; algorithm 0
// is "ignore" (the parameter's own encoding: the library numbers its
// algorithms, algorithm_of names them).
struct Forced {
  int algorithm = 0;
  int segment_bytes = 0;  // _segmentsize, 0: no segments
  int tree_fanout = 4;    // _tree_fanout (coll_tuned_init_tree_fanout by default)
  int chain_fanout = 4;   // _chain_fanout
};

struct Settings {
  bool dynamic_rules = false;  // coll_tuned_use_dynamic_rules
  std::string rules_file;      // coll_tuned_dynamic_rules_filename ("": none)
  std::map<Operation, Forced> forced;
  int knomial_radix = 4;       // coll_tuned_bcast_algorithm_knomial_radix
};

// One decision.
struct Choice {
  Operation op = Operation::Allreduce;
  Algorithm algorithm = Algorithm::Ring;
  std::string name;                 // the library's own, e.g. "rabenseifner"
  std::uint64_t segment_bytes = 0;  // 0: one segment
  int fanout = 0;                   // the fan-in/out passed to the algorithm (0: its default)
  bool forced = false;              // a user's coll_tuned_<op>_algorithm, not the fixed rules
};

// The name and shape of `op`'s algorithm number `number` (1 ..); empty for
// a number the library does not have.
std::optional<std::pair<Algorithm, const char*>> algorithm_of(Operation op, int number);

// One band of a fixed rule: for a communicator of fewer than `comm_below`
// ranks and a decision byte count below `bytes_below`, algorithm `algorithm`
// (the library's number). The bands of an operation are tried in order, as
// the source's if/else chains are.
struct Rule {
  int comm_below;
  std::uint64_t bytes_below;
  int algorithm;
  bool operator==(const Rule&) const = default;
};
inline constexpr int kAnyComm = INT_MAX;
inline constexpr std::uint64_t kAnySize = UINT64_MAX;

// The fixed rules of `op` (commutative operations), in the order tried.
std::span<const Rule> fixed_rules(Operation op);

// coll/tuned's choice for `op` on `comm_size` ranks (at least 2) where its
// decision reads `decision_bytes` (above), for commutative operations:
//  - with dynamic rules and a rules file: empty (the file's rules are not
//    read here, so the choice cannot be known);
//  - with dynamic rules and a forced algorithm for `op`: that algorithm,
//    with its segment size and fan-out;
//  - otherwise the fixed rules of 4.1.x, which pass no segment size and
//    no fan-out (0, 0: one segment; a chain of fan-out 1).
std::optional<Choice> choose(Operation op, int comm_size, std::uint64_t decision_bytes, const Settings& settings);

}  // namespace shardroof::model::tuned

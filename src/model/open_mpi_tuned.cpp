#include "model/open_mpi_tuned.h"

#include <cstddef>

namespace shardroof::model::tuned {
namespace {

// The fixed rules of Open MPI v4.1.4, ompi/mca/coll/tuned/coll_tuned_decision_fixed.c
// (the same from v4.1.0 to v4.1.8), transcribed band by band from its
// if/else chains, commutative branch where there are two; a source
// condition "communicator_size == 2" is a band below 3 (a communicator of
// one rank never reaches coll/tuned: coll/self takes it). One line per
// communicator-size block of the source, so that a line reads against its
// block; the unit test diffs every band against the source's thresholds
// (tests/predict/data/).
// clang-format off
// ompi_coll_tuned_allreduce_intra_dec_fixed (commutative operations)
constexpr Rule kAllreduceRules[] = {
    {4, 8, 4}, {4, 4096, 3}, {4, 8192, 4}, {4, 16384, 3}, {4, 65536, 4}, {4, 262144, 5}, {4, kAnySize, 6},
    {8, 16, 4}, {8, 8192, 3}, {8, kAnySize, 6},
    {16, 8192, 3}, {16, kAnySize, 6},
    {32, 64, 5}, {32, 4096, 3}, {32, kAnySize, 6},
    {64, 128, 5}, {64, kAnySize, 6},
    {128, 262144, 3}, {128, kAnySize, 6},
    {256, 131072, 2}, {256, 262144, 3}, {256, kAnySize, 6},
    {512, 4096, 2}, {512, kAnySize, 6},
    {2048, 2048, 2}, {2048, 16384, 3}, {2048, kAnySize, 6},
    {4096, 2048, 2}, {4096, 4096, 5}, {4096, 16384, 3}, {4096, kAnySize, 6},
    {kAnyComm, 2048, 2}, {kAnyComm, 16384, 5}, {kAnyComm, 32768, 3}, {kAnyComm, kAnySize, 6},
};
// ompi_coll_tuned_alltoall_intra_dec_fixed
constexpr Rule kAlltoallRules[] = {
    {3, 2, 2}, {3, 4, 5}, {3, 16, 2}, {3, 64, 5}, {3, 256, 2}, {3, 4096, 5}, {3, 32768, 2}, {3, 262144, 4}, {3, 1048576, 5}, {3, kAnySize, 2},
    {8, 8192, 4}, {8, 16384, 1}, {8, 65536, 4}, {8, 524288, 1}, {8, 1048576, 2}, {8, kAnySize, 1},
    {16, 262144, 4}, {16, kAnySize, 1},
    {32, 4, 4}, {32, 512, 3}, {32, 8192, 4}, {32, 32768, 1}, {32, 262144, 4}, {32, 524288, 1}, {32, kAnySize, 4},
    {64, 512, 3}, {64, 524288, 1}, {64, kAnySize, 4},
    {128, 1024, 3}, {128, 2048, 1}, {128, 4096, 4}, {128, 262144, 1}, {128, kAnySize, 2},
    {256, 1024, 3}, {256, 2048, 4}, {256, 262144, 1}, {256, kAnySize, 2},
    {512, 1024, 3}, {512, 8192, 4}, {512, 32768, 1}, {512, kAnySize, 2},
    {1024, 512, 3}, {1024, 8192, 4}, {1024, 16384, 1}, {1024, 131072, 4}, {1024, 262144, 1}, {1024, kAnySize, 2},
    {2048, 512, 3}, {2048, 1024, 4}, {2048, 2048, 1}, {2048, 16384, 4}, {2048, 262144, 1}, {2048, kAnySize, 4},
    {4096, 1024, 3}, {4096, 4096, 4}, {4096, 8192, 1}, {4096, 131072, 4}, {4096, kAnySize, 1},
    {kAnyComm, 2048, 3}, {kAnyComm, 8192, 4}, {kAnyComm, 16384, 1}, {kAnyComm, 32768, 4}, {kAnyComm, 65536, 1}, {kAnyComm, kAnySize, 4},
};
// ompi_coll_tuned_alltoallv_intra_dec_fixed
constexpr Rule kAlltoallvRules[] = {
    {4, kAnySize, 2},
    {64, kAnySize, 1},
    {128, kAnySize, 2},
    {256, kAnySize, 1},
    {1024, kAnySize, 2},
    {kAnyComm, kAnySize, 1},
};
// ompi_coll_tuned_bcast_intra_dec_fixed
constexpr Rule kBcastRules[] = {
    {4, 32, 3}, {4, 256, 5}, {4, 512, 3}, {4, 1024, 7}, {4, 32768, 1}, {4, 131072, 5}, {4, 262144, 2}, {4, 524288, 1}, {4, 1048576, 6}, {4, kAnySize, 5},
    {8, 64, 5}, {8, 128, 6}, {8, 2048, 5}, {8, 8192, 6}, {8, 1048576, 1}, {8, kAnySize, 2},
    {16, 8, 7}, {16, 64, 5}, {16, 4096, 7}, {16, 16384, 5}, {16, 32768, 6}, {16, kAnySize, 1},
    {32, 4096, 7}, {32, 1048576, 6}, {32, kAnySize, 8},
    {64, 2048, 6}, {64, kAnySize, 7},
    {128, kAnySize, 7},
    {256, 2, 6}, {256, 16384, 5}, {256, 32768, 1}, {256, 65536, 5}, {256, kAnySize, 7},
    {1024, 16384, 7}, {1024, 32768, 4}, {1024, kAnySize, 7},
    {2048, 524288, 7}, {2048, kAnySize, 8},
    {4096, 262144, 7}, {4096, kAnySize, 8},
    {kAnyComm, 8192, 7}, {kAnyComm, 16384, 5}, {kAnyComm, 262144, 7}, {kAnyComm, kAnySize, 8},
};
// ompi_coll_tuned_reduce_intra_dec_fixed (commutative operations)
constexpr Rule kReduceRules[] = {
    {4, 8, 7}, {4, 16, 4}, {4, 32, 3}, {4, 262144, 1}, {4, 524288, 3}, {4, 1048576, 2}, {4, kAnySize, 3},
    {8, 4096, 4}, {8, 65536, 2}, {8, 262144, 5}, {8, 524288, 1}, {8, 1048576, 5}, {8, kAnySize, 1},
    {16, 8192, 4}, {16, kAnySize, 5},
    {32, 4096, 4}, {32, kAnySize, 5},
    {256, kAnySize, 5},
    {512, 8192, 5}, {512, 16384, 6}, {512, kAnySize, 5},
    {2048, kAnySize, 5},
    {4096, 512, 5}, {4096, 1024, 6}, {4096, 8192, 5}, {4096, 16384, 6}, {4096, kAnySize, 5},
    {kAnyComm, 16, 5}, {kAnyComm, 32, 6}, {kAnyComm, 1024, 5}, {kAnyComm, 2048, 6}, {kAnyComm, 8192, 5}, {kAnyComm, 16384, 6}, {kAnyComm, kAnySize, 5},
};
// ompi_coll_tuned_reduce_scatter_intra_dec_fixed (commutative operations)
constexpr Rule kReduceScatterRules[] = {
    {4, 65536, 3}, {4, 131072, 4}, {4, kAnySize, 3},
    {8, 8, 1}, {8, 262144, 2}, {8, kAnySize, 3},
    {32, 262144, 2}, {32, kAnySize, 3},
    {64, 64, 1}, {64, 2048, 2}, {64, 524288, 4}, {64, kAnySize, 3},
    {128, 256, 1}, {128, 512, 2}, {128, 2048, 4}, {128, 4096, 2}, {128, kAnySize, 4},
    {256, 256, 1}, {256, 512, 2}, {256, kAnySize, 4},
    {512, 256, 1}, {512, 1024, 2}, {512, kAnySize, 4},
    {1024, 512, 1}, {1024, 2048, 2}, {1024, 8192, 4}, {1024, 16384, 2}, {1024, kAnySize, 4},
    {2048, 512, 1}, {2048, 4096, 2}, {2048, 16384, 4}, {2048, 32768, 2}, {2048, kAnySize, 4},
    {4096, 512, 1}, {4096, 4096, 2}, {4096, kAnySize, 4},
    {kAnyComm, 1024, 1}, {kAnyComm, 8192, 2}, {kAnyComm, kAnySize, 4},
};
// ompi_coll_tuned_reduce_scatter_block_intra_dec_fixed (commutative operations)
constexpr Rule kReduceScatterBlockRules[] = {
    {4, 4, 2}, {4, 8, 4}, {4, 16, 3}, {4, 128, 4}, {4, 256, 3}, {4, 4096, 4}, {4, 8192, 3}, {4, 131072, 4}, {4, kAnySize, 1},
    {8, 8, 3}, {8, 32, 2}, {8, 256, 4}, {8, 8192, 3}, {8, 16384, 4}, {8, 1048576, 3}, {8, kAnySize, 1},
    {16, 4, 1}, {16, 32, 3}, {16, 128, 4}, {16, 524288, 3}, {16, 4194304, 1}, {16, kAnySize, 4},
    {32, 32, 1}, {32, 524288, 3}, {32, 2097152, 1}, {32, 4194304, 3}, {32, kAnySize, 4},
    {kAnyComm, 4, 3}, {kAnyComm, 16, 1}, {kAnyComm, 65536, 4}, {kAnyComm, 262144, 1}, {kAnyComm, kAnySize, 4},
};
// ompi_coll_tuned_allgather_intra_dec_fixed
constexpr Rule kAllgatherRules[] = {
    {3, kAnySize, 6},
    {32, kAnySize, 3},
    {64, 1024, 3}, {64, 65536, 5}, {64, kAnySize, 4},
    {128, 512, 3}, {128, 65536, 5}, {128, kAnySize, 4},
    {256, 512, 3}, {256, 131072, 5}, {256, 524288, 4}, {256, 1048576, 5}, {256, kAnySize, 4},
    {512, 32, 3}, {512, 128, 2}, {512, 1024, 3}, {512, 131072, 5}, {512, 524288, 4}, {512, 1048576, 5}, {512, kAnySize, 4},
    {1024, 64, 3}, {1024, 256, 2}, {1024, 2048, 3}, {1024, kAnySize, 5},
    {2048, 4, 3}, {2048, 8, 2}, {2048, 16, 3}, {2048, 32, 2}, {2048, 256, 3}, {2048, 512, 2}, {2048, 4096, 3}, {2048, kAnySize, 5},
    {4096, 32, 2}, {4096, 128, 3}, {4096, 512, 2}, {4096, 4096, 3}, {4096, kAnySize, 5},
    {kAnyComm, 2, 3}, {kAnyComm, 8, 2}, {kAnyComm, 16, 3}, {kAnyComm, 512, 2}, {kAnyComm, 4096, 3}, {kAnyComm, kAnySize, 5},
};
// ompi_coll_tuned_allgatherv_intra_dec_fixed
constexpr Rule kAllgathervRules[] = {
    {3, 2048, 3}, {3, 4096, 5}, {3, 8192, 3}, {3, kAnySize, 5},
    {8, 256, 1}, {8, 4096, 4}, {8, 8192, 3}, {8, 16384, 4}, {8, 262144, 2}, {8, kAnySize, 4},
    {16, 1024, 1}, {16, kAnySize, 2},
    {32, 128, 1}, {32, 262144, 2}, {32, kAnySize, 3},
    {64, 256, 1}, {64, 8192, 2}, {64, kAnySize, 3},
    {128, 256, 1}, {128, 4096, 2}, {128, kAnySize, 3},
    {256, 1024, 2}, {256, 65536, 4}, {256, kAnySize, 3},
    {512, 1024, 2}, {512, kAnySize, 3},
    {1024, 512, 2}, {1024, 1024, 1}, {1024, 4096, 2}, {1024, 1048576, 4}, {1024, kAnySize, 3},
    {kAnyComm, 4096, 2}, {kAnyComm, kAnySize, 4},
};
// ompi_coll_tuned_scatter_intra_dec_fixed
constexpr Rule kScatterRules[] = {
    {4, 2, 3}, {4, 131072, 1}, {4, 262144, 3}, {4, kAnySize, 1},
    {8, 2048, 2}, {8, 4096, 1}, {8, 8192, 2}, {8, 32768, 1}, {8, 1048576, 3}, {8, kAnySize, 1},
    {16, 16384, 2}, {16, 1048576, 3}, {16, kAnySize, 1},
    {32, 16384, 2}, {32, 32768, 1}, {32, kAnySize, 3},
    {64, 512, 2}, {64, 8192, 3}, {64, 16384, 2}, {64, kAnySize, 3},
    {kAnyComm, 512, 2}, {kAnyComm, kAnySize, 3},
};
// clang-format on


struct Named {
  Algorithm algorithm;
  const char* name;
};

// Each operation's algorithms by number, as its MCA enum names them
// (coll_tuned_<op>_decision.c, v4.1.4); index 0 is "ignore".
// clang-format off
using enum Algorithm;
constexpr Named kAllreduceNames[] = {{BasicLinear, "ignore"}, {BasicLinear, "basic_linear"},
    {Nonoverlapping, "nonoverlapping"}, {RecursiveDoubling, "recursive_doubling"}, {Ring, "ring"},
    {SegmentedRing, "segmented_ring"}, {Rabenseifner, "rabenseifner"}};
constexpr Named kReduceScatterNames[] = {{BasicLinear, "ignore"}, {Nonoverlapping, "non-overlapping"},
    {RecursiveHalving, "recursive_halving"}, {Ring, "ring"}, {Butterfly, "butterfly"}};
constexpr Named kReduceScatterBlockNames[] = {{BasicLinear, "ignore"}, {BasicLinear, "basic_linear"},
    {RecursiveDoubling, "recursive_doubling"}, {RecursiveHalving, "recursive_halving"}, {Butterfly, "butterfly"}};
constexpr Named kAllgatherNames[] = {{BasicLinear, "ignore"}, {BasicLinear, "linear"}, {Bruck, "bruck"},
    {RecursiveDoubling, "recursive_doubling"}, {Ring, "ring"}, {Neighbor, "neighbor"}, {TwoProcs, "two_proc"}};
constexpr Named kAllgathervNames[] = {{BasicLinear, "ignore"}, {Default, "default"}, {Bruck, "bruck"},
    {Ring, "ring"}, {Neighbor, "neighbor"}, {TwoProcs, "two_proc"}};
constexpr Named kBcastNames[] = {{BasicLinear, "ignore"}, {BasicLinear, "basic_linear"}, {Chain, "chain"},
    {Pipeline, "pipeline"}, {SplitBinaryTree, "split_binary_tree"}, {BinaryTree, "binary_tree"},
    {Binomial, "binomial"}, {Knomial, "knomial"}, {ScatterAllgather, "scatter_allgather"},
    {ScatterAllgatherRing, "scatter_allgather_ring"}};
constexpr Named kAlltoallNames[] = {{BasicLinear, "ignore"}, {BasicLinear, "linear"}, {Pairwise, "pairwise"},
    {ModifiedBruck, "modified_bruck"}, {LinearSync, "linear_sync"}, {TwoProcs, "two_proc"}};
constexpr Named kAlltoallvNames[] = {{BasicLinear, "ignore"}, {BasicLinear, "basic_linear"}, {Pairwise, "pairwise"}};
constexpr Named kReduceNames[] = {{BasicLinear, "ignore"}, {BasicLinear, "linear"}, {Chain, "chain"},
    {Pipeline, "pipeline"}, {BinaryTree, "binary"}, {Binomial, "binomial"}, {InOrderBinary, "in-order_binary"},
    {Rabenseifner, "rabenseifner"}};
constexpr Named kScatterNames[] = {{BasicLinear, "ignore"}, {BasicLinear, "basic_linear"}, {Binomial, "binomial"},
    {LinearNb, "linear_nb"}};
// clang-format on

struct OperationRules {
  std::span<const Rule> rules;
  std::span<const Named> names;
};

OperationRules rules_of(Operation op) {
  switch (op) {
    case Operation::Allreduce: return {kAllreduceRules, kAllreduceNames};
    case Operation::ReduceScatter: return {kReduceScatterRules, kReduceScatterNames};
    case Operation::ReduceScatterBlock: return {kReduceScatterBlockRules, kReduceScatterBlockNames};
    case Operation::Allgather: return {kAllgatherRules, kAllgatherNames};
    case Operation::Allgatherv: return {kAllgathervRules, kAllgathervNames};
    case Operation::Bcast: return {kBcastRules, kBcastNames};
    case Operation::Alltoall: return {kAlltoallRules, kAlltoallNames};
    case Operation::Alltoallv: return {kAlltoallvRules, kAlltoallvNames};
    case Operation::Reduce: return {kReduceRules, kReduceNames};
    case Operation::Scatter: return {kScatterRules, kScatterNames};
  }
  return {kAllreduceRules, kAllreduceNames};
}

}  // namespace

std::span<const Rule> fixed_rules(Operation op) { return rules_of(op).rules; }

const char* mca_name(Operation op) {
  switch (op) {
    case Operation::Allreduce: return "allreduce";
    case Operation::ReduceScatter: return "reduce_scatter";
    case Operation::ReduceScatterBlock: return "reduce_scatter_block";
    case Operation::Allgather: return "allgather";
    case Operation::Allgatherv: return "allgatherv";
    case Operation::Bcast: return "bcast";
    case Operation::Alltoall: return "alltoall";
    case Operation::Alltoallv: return "alltoallv";
    case Operation::Reduce: return "reduce";
    case Operation::Scatter: return "scatter";
  }
  return "?";
}

std::optional<std::pair<Algorithm, const char*>> algorithm_of(Operation op, int number) {
  const auto names = rules_of(op).names;
  if (number < 1 || static_cast<std::size_t>(number) >= names.size()) return std::nullopt;
  const Named& n = names[static_cast<std::size_t>(number)];
  return std::make_pair(n.algorithm, n.name);
}

std::optional<Choice> choose(Operation op, int comm_size, std::uint64_t decision_bytes, const Settings& settings) {
  if (comm_size < 2) return std::nullopt;
  // The library's algorithm `number` as a choice; none for a number it does not have.
  const auto numbered = [&](int number) -> std::optional<Choice> {
    const auto named = algorithm_of(op, number);
    if (!named) return std::nullopt;
    return Choice{op, named->first, named->second};
  };
  if (settings.dynamic_rules) {
    // coll_tuned_decision_dynamic.c: a rules file is consulted first (for
    // the operations it names), then the forced algorithm, then the fixed
    // rules.
    if (!settings.rules_file.empty()) return std::nullopt;
    if (const auto f = settings.forced.find(op); f != settings.forced.end() && f->second.algorithm != 0) {
      auto c = numbered(f->second.algorithm);
      if (!c) return c;
      c->segment_bytes = f->second.segment_bytes > 0 ? static_cast<std::uint64_t>(f->second.segment_bytes) : 0;
      // bcast and reduce take the chain fan-out, the others the tree's.
      c->fanout = op == Operation::Bcast || op == Operation::Reduce ? f->second.chain_fanout : f->second.tree_fanout;
      c->forced = true;
      return c;
    }
  }
  for (const Rule& rule : rules_of(op).rules)
    if (comm_size < rule.comm_below && decision_bytes < rule.bytes_below) return numbered(rule.algorithm);
  return std::nullopt;
}

}  // namespace shardroof::model::tuned

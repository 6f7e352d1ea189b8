// The interface every collective implements, hand-written ring or a library's
// native call, so a benchmark can run any of them side by side.
//
// Buffer conventions (N ranks, blocks from BlockPartition(count, N)):
//   AllReduce      send and recv hold `count` elements. In place: send == recv.
//   ReduceScatter  send holds `count`; recv holds block(rank).
//                  In place: recv == send + offset(rank) (as in NCCL).
//   AllGather      send holds block(rank); recv holds `count`; `op` is ignored.
//                  In place: send == recv + offset(rank) (as in NCCL).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "collectives/types.h"

namespace shardroof::coll {

enum class CollectiveKind { AllReduce, ReduceScatter, AllGather };

std::string_view to_string(CollectiveKind kind);
std::optional<CollectiveKind> parse_collective(std::string_view name);
inline constexpr std::string_view kCollectiveNames[] = {"all_reduce", "reduce_scatter", "all_gather"};

// nccl-tests' bus-bandwidth factor: busbw = algbw * factor.
double bus_bandwidth_factor(CollectiveKind kind, int nranks);

class Collective {
 public:
  virtual ~Collective() = default;
  virtual CollectiveKind kind() const = 0;
  // Short name of the algorithm, e.g. "ring" or "mpi".
  virtual std::string algorithm() const = 0;
  virtual void run(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op) = 0;
};

}  // namespace shardroof::coll

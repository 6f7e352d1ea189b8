// The interface every collective implements, hand-written ring or a library's
// native call, so a benchmark can run any of them side by side.
//
// Buffer conventions (N ranks, blocks from BlockPartition(count, N)):
//   AllReduce      send and recv hold `count` elements. In place: send == recv.
//   ReduceScatter  send holds `count`; recv holds block(rank).
//                  In place: recv == send + offset(rank) (as in NCCL).
//   AllGather      send holds block(rank); recv holds `count`; `op` is ignored.
//                  In place: send == recv + offset(rank) (as in NCCL).
//   Broadcast      send (read on the root only) and recv hold `count`; every
//                  rank's recv receives the root's send; `op` is ignored.
//                  In place: send == recv.
//   AllToAll       send holds `count`: block d goes to rank d. recv holds N
//                  blocks of block(rank) elements, the one from rank s at
//                  s * block(rank) (N * block(rank) == count when N divides
//                  count, as MPI_Alltoall). `op` is ignored. In place: send ==
//                  recv, a buffer of max(count, N * block(rank)) elements.
// collectives/traits.h states these shapes as functions, with every other
// per-collective fact.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "collectives/types.h"

namespace shardroof::coll {

enum class CollectiveKind { AllReduce, ReduceScatter, AllGather, Broadcast, AllToAll };

// Names, parsing and every other per-collective fact: collectives/traits.h.
std::string_view to_string(CollectiveKind kind);
std::optional<CollectiveKind> parse_collective(std::string_view name);

class Collective {
 public:
  virtual ~Collective() = default;
  virtual CollectiveKind kind() const = 0;
  // Short name of the algorithm, e.g. "ring" or "mpi".
  virtual std::string algorithm() const = 0;
  virtual void run(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op) = 0;
};

}  // namespace shardroof::coll

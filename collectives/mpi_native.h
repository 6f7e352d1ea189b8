// Native baselines: the MPI library's own collectives behind the Collective
// interface (MPI_Allreduce; MPI_Reduce_scatter_block when count divides
// evenly, else MPI_Reduce_scatter with balanced counts; MPI_Allgather or
// MPI_Allgatherv; MPI_Bcast; MPI_Alltoall when count divides evenly, else
// MPI_Alltoallv). Their algorithms and costs are the library's choice.
// bfloat16 and half use user-defined MPI operators that reduce in float.
// Counts per block are limited to INT_MAX elements by the MPI-3 interface
// (traits.h: mpi_int_argument); AllReduce and Broadcast are issued in
// pieces to lift that limit. An uneven AllToAll in place goes through a
// copy of the input (MPI_IN_PLACE needs equal blocks).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "collectives/collective.h"

namespace shardroof::coll {

class MpiNativeCollective final : public Collective {
 public:
  // `root`: Broadcast's root (ignored by the others).
  MpiNativeCollective(CollectiveKind kind, MPI_Comm comm, int root = 0);
  ~MpiNativeCollective() override;
  CollectiveKind kind() const override { return kind_; }
  std::string algorithm() const override { return "mpi"; }
  void run(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op) override;

 private:
  class Ops;
  CollectiveKind kind_;
  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
  int root_ = 0;
  std::unique_ptr<Ops> ops_;
  std::vector<std::byte> input_copy_;  // AllToAll's input, uneven and in place
};

}  // namespace shardroof::coll

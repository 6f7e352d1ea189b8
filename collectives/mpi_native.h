// Native baselines: the MPI library's own collectives behind the Collective
// interface (MPI_Allreduce; MPI_Reduce_scatter_block when count divides
// evenly, else MPI_Reduce_scatter with balanced counts; MPI_Allgather or
// MPI_Allgatherv). Their algorithms and costs are the library's choice.
// bfloat16 and half use user-defined MPI operators that reduce in float.
// Counts per block are limited to INT_MAX elements by the MPI-3 interface;
// AllReduce is issued in pieces to lift that limit.
#pragma once

#include <mpi.h>

#include <memory>

#include "collectives/collective.h"

namespace shardroof::coll {

class MpiNativeCollective final : public Collective {
 public:
  MpiNativeCollective(CollectiveKind kind, MPI_Comm comm);
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
  std::unique_ptr<Ops> ops_;
};

}  // namespace shardroof::coll

// The ranks that share a node and the node's name: one definition for the
// commands, the ceilings, the memory budget, the topology and the GPU choice.
#pragma once

#include <mpi.h>

#include <string>

namespace shardroof {

// RAII for the communicator of the ranks that share this node's memory
// (MPI_Comm_split_type, MPI_COMM_TYPE_SHARED), in the order of their ranks
// in the communicator it was split from. (The simulated build, node_smpi.cpp,
// takes the node and the host's name from the simulated platform.)
class NodeComm {
 public:
  // Collective on `comm`.
  explicit NodeComm(MPI_Comm comm);
  ~NodeComm();
  NodeComm(const NodeComm&) = delete;
  NodeComm& operator=(const NodeComm&) = delete;

  MPI_Comm get() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
};

// This host's name (gethostname), as the output names nodes.
std::string host_name();

}  // namespace shardroof

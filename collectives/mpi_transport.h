// Transport over MPI point-to-point (MPI_Isend / MPI_Irecv on one
// communicator). Messages larger than MPI's int count are split into pieces
// of at most 1 GiB, posted in order, so byte counts are 64-bit end to end.
#pragma once

#include <mpi.h>

#include "collectives/transport.h"

namespace shardroof::coll {

class MpiTransport final : public Transport {
 public:
  // The communicator is borrowed; it must outlive the transport. Messages
  // are posted in pieces of at most `max_piece_bytes` (1..INT_MAX; both
  // ends of a message must use the same value). Tests lower it to exercise
  // the splitting without multi-GiB buffers.
  explicit MpiTransport(MPI_Comm comm, std::size_t max_piece_bytes = kMaxPieceBytes,
                        WaitPolicy wait_policy = WaitPolicy::Spin);

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string_view name() const override { return "mpi"; }
  MemorySpace memory_space() const override { return MemorySpace::Host; }
  WaitPolicy wait_policy() const override { return wait_policy_; }
  MPI_Comm comm() const { return comm_; }

  RequestPtr isend(const void* buf, std::size_t bytes, int peer, int tag) override;
  RequestPtr irecv(void* buf, std::size_t bytes, int peer, int tag) override;

  static constexpr std::size_t kMaxPieceBytes = std::size_t{1} << 30;
  std::size_t max_piece_bytes() const { return max_piece_bytes_; }

 private:
  MPI_Comm comm_;
  std::size_t max_piece_bytes_;
  WaitPolicy wait_policy_;
  int rank_ = 0;
  int size_ = 1;
};

// This rank's node as `comm` places ranks on it: the CPUs its ranks may
// use together (the union of their affinity masks) and how many of `comm`'s
// ranks it runs. Collective on `comm` (a split into nodes).
struct NodeCpus {
  int cpus = 1;
  int ranks = 1;
};
NodeCpus node_cpus(MPI_Comm comm);

// Collective on `comm`: Yield when some node runs more of `comm`'s ranks
// than the CPUs those ranks may use together (the union of their affinity
// masks: a launcher that binds each rank to one core still leaves the node
// its cores), else Spin. Every rank gets the same answer.
WaitPolicy wait_policy_for(MPI_Comm comm);

// Throws shardroof::coll::MpiError with the library's message, file and line.
void check_mpi(int rc, const char* what, const char* file, int line);
#define SHARDROOF_MPI_CHECK(call) ::shardroof::coll::check_mpi((call), #call, __FILE__, __LINE__)

}  // namespace shardroof::coll

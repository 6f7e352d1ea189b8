// Owns an MPI communicator made by a split (freed on scope exit).
#pragma once

#include <mpi.h>

namespace shardroof {

class CommHandle {
 public:
  CommHandle() = default;
  ~CommHandle() {
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  }
  CommHandle(const CommHandle&) = delete;
  CommHandle& operator=(const CommHandle&) = delete;
  MPI_Comm* out() { return &comm_; }
  MPI_Comm get() const { return comm_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

}  // namespace shardroof

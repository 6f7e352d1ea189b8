// An NCCL communicator over the ranks of an MPI communicator: rank 0 makes
// the unique id, MPI_Bcast shares it, every rank joins. Owned (RAII):
// destroyed with ncclCommDestroy, or ncclCommAbort after an error. After
// joining, the ranks agree on the outcome, so either every rank has a
// working communicator or every rank throws.
//
// Two modes (ncclConfig_t.blocking):
//   Blocking     every call returns once its work is enqueued: what a
//                timing run wants, as a group end then hands nothing over
//                to NCCL's asynchronous thread and is not polled. A peer
//                that never arrives is left to the job's watchdog.
//   NonBlocking  calls may answer ncclInProgress and are completed by
//                polling (complete()); a rank whose peers never arrive
//                gives up after the deadline instead of hanging.
#pragma once

#include <mpi.h>
#include <nccl.h>

#include <chrono>
#include <string>

namespace shardroof::coll {

enum class NcclMode { Blocking, NonBlocking };

struct NcclCommOptions {
  NcclMode mode = NcclMode::Blocking;
  // NonBlocking: how long a call may stay in progress.
  std::chrono::seconds timeout = std::chrono::seconds(300);
};

// The configuration NcclComm joins with (no NCCL call: testable anywhere).
ncclConfig_t nccl_config(const NcclCommOptions& options);

class NcclComm {
 public:
  // Collective over `comm`; each rank's current CUDA device is the one it
  // joins with. Throws TransportError on failure (non-blocking: or after
  // the timeout).
  explicit NcclComm(MPI_Comm comm, const NcclCommOptions& options = {});
  ~NcclComm();
  NcclComm(const NcclComm&) = delete;
  NcclComm& operator=(const NcclComm&) = delete;

  ncclComm_t get() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  NcclMode mode() const { return options_.mode; }

  // Checks the result of an NCCL call on this communicator: waits while it
  // is in progress, throws TransportError (with ncclGetLastError's text) on
  // failure and marks the communicator for abort.
  void complete(ncclResult_t rc, const char* what, const char* file, int line);

 private:
  ncclComm_t comm_ = nullptr;
  int rank_ = 0;
  int size_ = 1;
  bool broken_ = false;
  NcclCommOptions options_;
};

// NCCL version of the library loaded at run time, e.g. "2.28.9".
std::string nccl_runtime_version();

// Checks an NCCL call that has no communicator (ncclGetUniqueId, ...).
void check_nccl(ncclResult_t rc, const char* what, const char* file, int line);

}  // namespace shardroof::coll

#define SHARDROOF_NCCL_CHECK(call) ::shardroof::coll::check_nccl((call), #call, __FILE__, __LINE__)
// For calls on a communicator created by NcclComm (may answer ncclInProgress).
#define SHARDROOF_NCCL_COMM_CHECK(nccl_comm, call) (nccl_comm).complete((call), #call, __FILE__, __LINE__)

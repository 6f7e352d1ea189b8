#include "collectives/cuda/nccl_comm.h"

#include <cstring>
#include <thread>

#include "collectives/cuda/cuda_check.h"
#include "collectives/error.h"
#include "collectives/mpi_transport.h"

namespace shardroof::coll {

void check_nccl(ncclResult_t rc, const char* what, const char* file, int line) {
  if (rc == ncclSuccess) return;
  raise_library_error(what, ncclGetErrorString(rc), file, line);
}

std::string nccl_runtime_version() {
  int v = 0;
  if (ncclGetVersion(&v) != ncclSuccess) return "unknown";
  // NCCL >= 2.9 encodes MAJOR*10000 + MINOR*100 + PATCH.
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

ncclConfig_t nccl_config(const NcclCommOptions& options) {
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = options.mode == NcclMode::Blocking ? 1 : 0;
  return config;
}

NcclComm::NcclComm(MPI_Comm comm, const NcclCommOptions& options) : options_(options) {
  SHARDROOF_MPI_CHECK(MPI_Comm_rank(comm, &rank_));
  SHARDROOF_MPI_CHECK(MPI_Comm_size(comm, &size_));

  // Rank 0's id (or its failure) reaches every rank, so all of them either
  // proceed or throw together.
  struct IdMessage {
    int ok = 0;
    char error[128] = {};
    ncclUniqueId id{};
  } msg;
  if (rank_ == 0) {
    const ncclResult_t rc = ncclGetUniqueId(&msg.id);
    msg.ok = rc == ncclSuccess ? 1 : 0;
    if (!msg.ok) std::strncpy(msg.error, ncclGetErrorString(rc), sizeof msg.error - 1);
  }
  SHARDROOF_MPI_CHECK(MPI_Bcast(&msg, sizeof msg, MPI_BYTE, 0, comm));
  if (!msg.ok) raise_library_error("ncclGetUniqueId (on rank 0)", msg.error, __FILE__, __LINE__);

  ncclConfig_t config = nccl_config(options_);
  std::string failure;
  const ncclResult_t rc = ncclCommInitRankConfig(&comm_, size_, msg.id, rank_, &config);
  try {
    complete(rc, "ncclCommInitRankConfig", __FILE__, __LINE__);
  } catch (const std::exception& e) {
    failure = e.what();
  }
  int mine = failure.empty() ? 1 : 0;
  int all = 0;
  SHARDROOF_MPI_CHECK(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm));
  if (all == 0) {
    if (comm_) ncclCommAbort(comm_);
    comm_ = nullptr;
    throw TransportError(failure.empty() ? "NCCL communicator setup failed on another rank" : failure);
  }
}

NcclComm::~NcclComm() {
  if (!comm_) return;
  if (broken_) {
    ncclCommAbort(comm_);
    return;
  }
  // Finalize flushes outstanding work; in non-blocking mode it may need polling.
  ncclResult_t rc = ncclCommFinalize(comm_);
  const auto deadline = std::chrono::steady_clock::now() + options_.timeout;
  ncclResult_t state = rc;
  while (state == ncclInProgress && std::chrono::steady_clock::now() < deadline) {
    if (ncclCommGetAsyncError(comm_, &state) != ncclSuccess) break;
    if (state == ncclInProgress) std::this_thread::yield();
  }
  if (state == ncclSuccess) {
    ncclCommDestroy(comm_);
  } else {
    ncclCommAbort(comm_);
  }
}

void NcclComm::complete(ncclResult_t rc, const char* what, const char* file, int line) {
  const auto deadline = std::chrono::steady_clock::now() + options_.timeout;
  while (rc == ncclInProgress) {
    if (std::chrono::steady_clock::now() > deadline) {
      broken_ = true;
      raise_library_error(what, "no progress after " + std::to_string(options_.timeout.count()) +
                                    " s (a peer rank did not take part?)", file, line);
    }
    std::this_thread::yield();
    ncclResult_t state = ncclSuccess;
    const ncclResult_t q = ncclCommGetAsyncError(comm_, &state);
    rc = q != ncclSuccess ? q : state;
  }
  if (rc == ncclSuccess) return;
  broken_ = true;
  std::string message = ncclGetErrorString(rc);
  if (comm_) {
    const char* last = ncclGetLastError(comm_);
    if (last && *last) message += std::string(": ") + last;
  }
  raise_library_error(what, message, file, line);
}

}  // namespace shardroof::coll

#include "util/node.h"

#include <unistd.h>

#include "collectives/mpi_transport.h"

namespace shardroof {

NodeComm::NodeComm(MPI_Comm comm) {
  SHARDROOF_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &comm_));
  SHARDROOF_MPI_CHECK(MPI_Comm_rank(comm_, &rank_));
  SHARDROOF_MPI_CHECK(MPI_Comm_size(comm_, &size_));
}

NodeComm::~NodeComm() {
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

std::string host_name() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return host;
}

}  // namespace shardroof

// The node and the host in the simulated build (SHARDROOF_SMPI); node.cpp
// has the ordinary ones. Every simulated rank runs in this one process on
// this one machine, and the platform of scripts/simulate.sh gives each
// rank a host of its own (its NVLink, its NIC), so neither the shared
// memory nor gethostname can tell nodes apart. The platform says which node
// a host belongs to (its property shardroof/node); on a platform without
// it, SMPI's own grouping (by host) stands.
#include <mpi.h>
#include <simgrid/host.h>

#include <cstdlib>
#include <string>

#include "collectives/mpi_transport.h"
#include "util/node.h"

namespace shardroof {

NodeComm::NodeComm(MPI_Comm comm) {
  const char* node = sg_host_get_property_value(sg_host_self(), "shardroof/node");
  if (node != nullptr) {
    int rank = 0;
    SHARDROOF_MPI_CHECK(MPI_Comm_rank(comm, &rank));
    SHARDROOF_MPI_CHECK(MPI_Comm_split(comm, std::atoi(node), rank, &comm_));
  } else {
    SHARDROOF_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &comm_));
  }
  SHARDROOF_MPI_CHECK(MPI_Comm_rank(comm_, &rank_));
  SHARDROOF_MPI_CHECK(MPI_Comm_size(comm_, &size_));
}

NodeComm::~NodeComm() {
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

// The simulated host's name (SMPI's MPI_Get_processor_name).
std::string host_name() {
  char host[MPI_MAX_PROCESSOR_NAME + 1] = {};
  int length = 0;
  MPI_Get_processor_name(host, &length);
  return std::string(host, static_cast<std::size_t>(length > 0 ? length : 0));
}

}  // namespace shardroof

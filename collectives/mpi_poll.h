// One poll of an MPI transport's pending requests (MpiRequest::test).
//
// MPI_Testall in every build but the simulated one (mpi_poll.cpp). Under
// SMPI (mpi_poll_smpi.cpp) a poll that finds a request unfinished advances
// the rank's simulated clock by smpi/test (100 us, growing with every
// failed try), so a loop that polls would measure that quantum and not the
// link: there the poll waits for the requests (MPI_Waitall) and reports
// them done. Every caller polls only to wait (wait.h, the ring probe's
// stamps); in simulation the probe's send then reads as finished no
// earlier than its receive.
#pragma once

#include <mpi.h>

#include <vector>

namespace shardroof::coll {

// True when every request has completed (they are then MPI_REQUEST_NULL).
bool poll_requests(std::vector<MPI_Request>& pending);

}  // namespace shardroof::coll

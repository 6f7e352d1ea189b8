// What `--impl native` runs, as far as this process can tell: the plain
// record model/native_cost.h names the algorithm from (model::NativeLibrary).
//  - NCCL (the nccl transport): NCCL_ALGO and NCCL_PROTO from the
//    environment, as NCCL reads them.
//  - MPI: read_mpi_library, whose definition depends on the build
//    (SHARDROOF_OPEN_MPI_TUNED): with Open MPI's headers,
//    measure/native_library_open_mpi.cpp asks the library for its version
//    and reads coll/tuned's MCA parameters through MPI_T control variables;
//    with any other MPI (and SimGrid's SMPI),
//    measure/native_library_other_mpi.cpp names the library and says its
//    choice cannot be known.
#pragma once

#include <mpi.h>

#include <string_view>

#include "model/native_cost.h"
#include "util/mpi_session.h"  // mpi_library_version

namespace shardroof {

// `transport`: the setup's transport name ("mpi", "nccl"). Called on every
// rank after MPI_Init; collective over nothing.
model::NativeLibrary read_native_library(std::string_view transport);

// The MPI library's side (one of the two files above).
model::NativeLibrary read_mpi_library();

}  // namespace shardroof

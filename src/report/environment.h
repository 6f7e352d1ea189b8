// What a reader needs to trust the numbers: hosts, MPI library, BLAS,
// compiler, build, date. Collective (gathers host names): every rank calls it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "util/mpi_session.h"

namespace shardroof {

nlohmann::json environment_json(const MpiSession& mpi);
std::string version_text(const MpiSession& mpi);
// "backends: cpu, cuda; transports: mpi, nccl"
std::string built_in_text();
std::string mpi_library_version();
std::string blas_config();
std::string utc_timestamp();

}  // namespace shardroof

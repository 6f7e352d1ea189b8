// What a reader needs to trust the numbers: hosts, MPI library, BLAS,
// compiler, build, date. A plain record and its formatting; gathering it
// (host names from every rank, library queries) is commands/environment.h.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace shardroof {

struct Environment {
  std::vector<std::string> hosts;  // rank order; empty when not gathered (--version)
  std::string mpi_library;
  int mpi_thread_level = 0;
  std::string blas;
  std::string compiler;
  std::string build_type;
  std::string version;
  std::string built_in;   // "backends: cpu, cuda; transports: mpi, nccl"
  std::string gpu_build;  // CUDA runtime, NCCL and CUDA-aware MPI; empty without CUDA
  std::string date;       // UTC, ISO 8601
  std::string cpu;           // this rank's CPU model; "" when unknown
  std::string load_average;  // this rank's 1, 5 and 15 minute load averages at the start; "" when unknown
};

nlohmann::json environment_json(const Environment& env);
std::string version_text(const Environment& env);

}  // namespace shardroof

// What a reader needs to trust the numbers: hosts, MPI library, BLAS,
// compiler, build, date. A plain record and its formatting; gathering it
// (host names from every rank, library queries) is commands/environment.h.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hardware/blas_kernel.h"
#include "hardware/limits.h"

namespace shardroof {

struct Environment {
  std::vector<std::string> hosts;  // rank order; empty when not gathered (--version)
  std::string mpi_library;
  int mpi_thread_level = 0;
  hw::BlasInfo blas;
  std::vector<std::string> cpu_isa;  // this rank's CPU's vector instruction sets (hardware/cpu_isa.h)
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
// environment.blas: the library, its version and build string, the kernel
// it runs and that kernel's vector level, the CPU's, the library's kernel
// variable as the ranks saw it and who set the kernel; `below_cpu` (null until a command that times GEMMs
// judged it, see set_blas_verdict), and where below, the cause and the fix.
nlohmann::json blas_json(const hw::BlasInfo& blas, const std::vector<std::string>& cpu_isa);
// Adds a measured verdict to a document's environment.blas.
void set_blas_verdict(nlohmann::json& environment, const hw::KernelVerdict& verdict);
// "OpenBLAS 0.3.21, kernel Cooperlake (AVX-512)"
std::string blas_text(const hw::BlasInfo& blas);
std::string version_text(const Environment& env);

}  // namespace shardroof

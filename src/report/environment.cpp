#include "report/environment.h"

#include <map>

namespace shardroof {

std::string version_text(const Environment& env) {
  return "shardroof " + env.version + " (" + env.build_type + ")\n" + env.built_in +
         (env.gpu_build.empty() ? "" : "\nGPU: " + env.gpu_build) + "\nMPI: " + env.mpi_library +
         "\nBLAS: " + env.blas + "\ncompiler: " + env.compiler;
}

nlohmann::json environment_json(const Environment& env) {
  std::map<std::string, int> ranks_per_host;
  for (const auto& h : env.hosts) ranks_per_host[h]++;
  nlohmann::json out;
  out["hosts"] = env.hosts;  // rank order
  out["ranks_per_host"] = ranks_per_host;
  out["mpi_library"] = env.mpi_library;
  out["mpi_thread_level"] = env.mpi_thread_level;
  out["blas"] = env.blas;
  out["compiler"] = env.compiler;
  out["build_type"] = env.build_type;
  out["shardroof_version"] = env.version;
  out["built_in"] = env.built_in;
  if (!env.gpu_build.empty()) out["gpu_build"] = env.gpu_build;
  out["date"] = env.date;
  if (!env.cpu.empty()) out["cpu"] = env.cpu;
  if (!env.load_average.empty()) out["load_average"] = env.load_average;
  return out;
}

}  // namespace shardroof

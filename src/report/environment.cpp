#include "report/environment.h"

#include <map>

namespace shardroof {
namespace {

std::string cpu_isa_suffix(const std::vector<std::string>& isa) {
  std::string out;
  for (const auto& name : isa) out += (out.empty() ? "" : ", ") + name;
  return out.empty() ? "" : " (" + out + ")";
}

}  // namespace

std::string blas_text(const hw::BlasInfo& blas) {
  std::string out = blas.library + (blas.version.empty() ? "" : " " + blas.version) + ", kernel " +
                    (blas.kernel.empty() ? "not queried" : blas.kernel);
  if (blas.kernel_isa) out += " (" + std::string(hw::to_string(*blas.kernel_isa)) + ")";
  const std::string setting = blas.kernel_variable + "=" + blas.kernel_env;
  switch (blas.set_by) {
    case hw::KernelSetBy::Library: break;
    case hw::KernelSetBy::User: out += ", set by the user's " + setting; break;
    case hw::KernelSetBy::Shardroof:
      out += ", set by shardroof (" + setting + "; " + blas.library + " chose " + blas.library_kernel +
             " itself, below this CPU)";
      break;
    case hw::KernelSetBy::Flag:
      out += ", set by --blas-kernel (" + setting + "; " + blas.library + " chose " + blas.library_kernel + " itself)";
      break;
  }
  return out;
}

nlohmann::json blas_json(const hw::BlasInfo& blas, const std::vector<std::string>& cpu_isa) {
  nlohmann::json out;
  out["library"] = blas.library;
  out["version"] = blas.version;
  out["config"] = blas.config;
  out["kernel"] = blas.kernel;
  out["kernel_isa"] = blas.kernel_isa ? nlohmann::json(std::string(hw::to_string(*blas.kernel_isa))) : nlohmann::json();
  out["cpu_isa"] = cpu_isa;
  out["kernel_variable"] = blas.kernel_variable.empty() ? nlohmann::json() : nlohmann::json(blas.kernel_variable);
  out["kernel_env"] = blas.kernel_env.empty() ? nlohmann::json() : nlohmann::json(blas.kernel_env);
  out["kernel_set_by"] = std::string(hw::to_string(blas.set_by));
  out["library_kernel"] = blas.library_kernel.empty() ? nlohmann::json() : nlohmann::json(blas.library_kernel);
  out["bf16_gemm"] = blas.bf16_gemm;
  out["below_cpu"] = nullptr;
  return out;
}

void set_blas_verdict(nlohmann::json& environment, const hw::KernelVerdict& v) {
  nlohmann::json& b = environment["blas"];
  b["below_cpu"] = v.below_cpu ? nlohmann::json(*v.below_cpu) : nlohmann::json();
  b["judged_for"] = coll::to_string(v.type);
  b["best_isa"] = v.best_isa ? nlohmann::json(std::string(hw::to_string(*v.best_isa))) : nlohmann::json();
  b["kernel_flops_per_s_per_core"] = v.kernel_flops;
  b["best_flops_per_s_per_core"] = v.best_flops;
  b["cause"] = v.cause.empty() ? nlohmann::json() : nlohmann::json(v.cause);
  b["fix_kernel"] = v.fix_kernel.empty() ? nlohmann::json() : nlohmann::json(v.fix_kernel);
  b["fix"] = v.fix.empty() ? nlohmann::json() : nlohmann::json(v.fix);
}

std::string version_text(const Environment& env) {
  return "shardroof " + env.version + " (" + env.build_type + ")\n" + env.built_in +
         (env.gpu_build.empty() ? "" : "\nGPU: " + env.gpu_build) + "\nMPI: " + env.mpi_library +
         "\nBLAS: " + blas_text(env.blas) + " (" + env.blas.config + ")" + "\nCPU: " + env.cpu + cpu_isa_suffix(env.cpu_isa) +
         "\ncompiler: " + env.compiler;
}

nlohmann::json environment_json(const Environment& env) {
  std::map<std::string, int> ranks_per_host;
  for (const auto& h : env.hosts) ranks_per_host[h]++;
  nlohmann::json out;
  out["hosts"] = env.hosts;  // rank order
  out["ranks_per_host"] = ranks_per_host;
  out["mpi_library"] = env.mpi_library;
  out["mpi_thread_level"] = env.mpi_thread_level;
  out["blas"] = blas_json(env.blas, env.cpu_isa);
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

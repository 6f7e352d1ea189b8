#include "commands/environment.h"

#include <chrono>
#include <ctime>
#include <fstream>

#include "cuda/cuda_api.h"
#include "hardware/blas_kernel.h"
#include "hardware/cpu_isa.h"
#include "shardroof/config.h"
#include "util/mpi_session.h"
#include "util/node.h"

namespace shardroof {

std::string utc_timestamp() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string cpu_model() { return hw::cpu_model_name(); }

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  return in >> a >> b >> c ? a + " " + b + " " + c : "";
}

std::string built_in_text() {
  std::string backends = "cpu";
  std::string transports = "mpi";
  if (SHARDROOF_WITH_CUDA) backends += ", cuda";
  if (SHARDROOF_WITH_NCCL) transports += ", nccl";
  return "backends: " + backends + "; transports: " + transports;
}

Environment local_environment(const MpiSession& mpi) {
  Environment env;
  env.mpi_library = mpi_library_version();
  env.mpi_thread_level = mpi.thread_level();
  env.blas = hw::query_blas();
  env.cpu_isa = hw::isa_names(hw::cpu_isa());
  env.compiler = SHARDROOF_CXX_COMPILER;
  env.build_type = SHARDROOF_BUILD_TYPE;
  env.version = SHARDROOF_VERSION;
  env.built_in = built_in_text();
  env.gpu_build = cuda_built_in_text();
  env.date = utc_timestamp();
  env.cpu = cpu_model();
  env.load_average = load_average();
  return env;
}

Environment gather_environment(const MpiSession& mpi) {
  Environment env = local_environment(mpi);
  env.hosts = all_gather_strings(mpi.world(), host_name());
  return env;
}

}  // namespace shardroof

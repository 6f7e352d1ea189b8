#include "cuda/shared_gpu.h"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>

namespace shardroof {
namespace {

// NCCL's own host identity next to the host name (empty where unreadable).
std::string boot_id() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  in >> id;
  return id;
}

}  // namespace

bool ranks_share_gpus(const DeviceChoice& device) {
  return device.device_count > 0 && device.device_count < device.local_size;
}

std::string shared_gpu_host_id(const std::string& host, const std::string& boot, int local_rank, int device_count) {
  const int round = device_count > 0 ? local_rank / device_count : 0;
  return fmt::format("{}:{}:shared-gpu-round-{}", host, boot, round);
}

std::string set_shared_gpu_host_id(const DeviceChoice& device) {
  if (!ranks_share_gpus(device) || std::getenv("NCCL_HOSTID") != nullptr) return {};
  const std::string id = shared_gpu_host_id(device.host, boot_id(), device.local_rank, device.device_count);
  setenv("NCCL_HOSTID", id.c_str(), 1);
  return id;
}

}  // namespace shardroof

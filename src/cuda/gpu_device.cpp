#include "cuda/gpu_device.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <fmt/format.h>

#include <string>
#include <vector>

#include "collectives/cuda/cuda_check.h"

namespace shardroof {
namespace {

// The few NVML entry points used, declared by their documented C ABI
// (nvml.h is not part of the toolkit here).
using nvmlReturn = int;
using nvmlDevice = struct nvmlDevice_st*;
constexpr int kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;  // NVML_CLOCK_SM

// NVML_CLOCKS_EVENT_REASON_* bits and their meaning.
constexpr std::pair<unsigned long long, const char*> kClockReasons[] = {
    {0x1ull, "idle"},
    {0x2ull, "application clocks setting"},
    {0x4ull, "software power cap"},
    {0x8ull, "hardware slowdown"},
    {0x10ull, "sync boost"},
    {0x20ull, "software thermal slowdown"},
    {0x40ull, "hardware thermal slowdown"},
    {0x80ull, "hardware power brake"},
    {0x100ull, "display clock setting"},
};

class Nvml {
 public:
  Nvml() {
    lib_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib_) {
      why_ = "NVML (libnvidia-ml.so.1) not found";
      return;
    }
    init_ = sym<nvmlReturn (*)()>("nvmlInit_v2");
    shutdown_ = sym<nvmlReturn (*)()>("nvmlShutdown");
    by_bus_ = sym<nvmlReturn (*)(const char*, nvmlDevice*)>("nvmlDeviceGetHandleByPciBusId_v2");
    clock_ = sym<nvmlReturn (*)(nvmlDevice, int, unsigned*)>("nvmlDeviceGetClockInfo");
    max_clock_ = sym<nvmlReturn (*)(nvmlDevice, int, unsigned*)>("nvmlDeviceGetMaxClockInfo");
    reasons_ = sym<nvmlReturn (*)(nvmlDevice, unsigned long long*)>("nvmlDeviceGetCurrentClocksEventReasons");
    if (!reasons_) reasons_ = sym<nvmlReturn (*)(nvmlDevice, unsigned long long*)>("nvmlDeviceGetCurrentClocksThrottleReasons");
    gen_ = sym<nvmlReturn (*)(nvmlDevice, unsigned*)>("nvmlDeviceGetCurrPcieLinkGeneration");
    width_ = sym<nvmlReturn (*)(nvmlDevice, unsigned*)>("nvmlDeviceGetCurrPcieLinkWidth");
    max_gen_ = sym<nvmlReturn (*)(nvmlDevice, unsigned*)>("nvmlDeviceGetMaxPcieLinkGeneration");
    max_width_ = sym<nvmlReturn (*)(nvmlDevice, unsigned*)>("nvmlDeviceGetMaxPcieLinkWidth");
    if (!init_ || !shutdown_ || !by_bus_ || init_() != kNvmlSuccess) {
      why_ = "NVML did not initialise";
      init_ = nullptr;
    }
  }
  ~Nvml() {
    if (init_ && shutdown_) shutdown_();
    if (lib_) dlclose(lib_);
  }
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  const std::string& why_not() const { return why_; }

  void fill(const std::string& bus_id, hw::GpuDevice& gpu) const {
    if (!init_) return;
    nvmlDevice dev = nullptr;
    if (by_bus_(bus_id.c_str(), &dev) != kNvmlSuccess) {
      gpu.nvml = "NVML does not know the device at " + bus_id;
      return;
    }
    unsigned mhz = 0;
    if (clock_ && clock_(dev, kNvmlClockSm, &mhz) == kNvmlSuccess && mhz > 0) gpu.clock_hz = mhz * 1e6;
    if (max_clock_ && max_clock_(dev, kNvmlClockSm, &mhz) == kNvmlSuccess && mhz > 0) gpu.max_clock_hz = mhz * 1e6;
    unsigned long long bits = 0;
    if (reasons_ && reasons_(dev, &bits) == kNvmlSuccess)
      for (const auto& [bit, text] : kClockReasons)
        if (bits & bit) gpu.clock_limits += (gpu.clock_limits.empty() ? "" : ", ") + std::string(text);
    unsigned v = 0;
    if (gen_ && gen_(dev, &v) == kNvmlSuccess) gpu.pcie_gen = static_cast<int>(v);
    if (width_ && width_(dev, &v) == kNvmlSuccess) gpu.pcie_width = static_cast<int>(v);
    if (max_gen_ && max_gen_(dev, &v) == kNvmlSuccess) gpu.pcie_max_gen = static_cast<int>(v);
    if (max_width_ && max_width_(dev, &v) == kNvmlSuccess) gpu.pcie_max_width = static_cast<int>(v);
  }

 private:
  template <typename F>
  F sym(const char* name) {
    return reinterpret_cast<F>(dlsym(lib_, name));
  }
  void* lib_ = nullptr;
  std::string why_;
  nvmlReturn (*init_)() = nullptr;
  nvmlReturn (*shutdown_)() = nullptr;
  nvmlReturn (*by_bus_)(const char*, nvmlDevice*) = nullptr;
  nvmlReturn (*clock_)(nvmlDevice, int, unsigned*) = nullptr;
  nvmlReturn (*max_clock_)(nvmlDevice, int, unsigned*) = nullptr;
  nvmlReturn (*reasons_)(nvmlDevice, unsigned long long*) = nullptr;
  nvmlReturn (*gen_)(nvmlDevice, unsigned*) = nullptr;
  nvmlReturn (*width_)(nvmlDevice, unsigned*) = nullptr;
  nvmlReturn (*max_gen_)(nvmlDevice, unsigned*) = nullptr;
  nvmlReturn (*max_width_)(nvmlDevice, unsigned*) = nullptr;
};

int attribute(cudaDeviceAttr attr, int device) {
  int v = 0;
  SHARDROOF_CUDA_CHECK(cudaDeviceGetAttribute(&v, attr, device));
  return v;
}

}  // namespace

hw::GpuDevice query_gpu_device(int device) {
  hw::GpuDevice gpu;
  cudaDeviceProp prop{};
  SHARDROOF_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  gpu.name = prop.name;
  gpu.cc_major = prop.major;
  gpu.cc_minor = prop.minor;
  gpu.sm_count = prop.multiProcessorCount;
  gpu.max_clock_hz = attribute(cudaDevAttrClockRate, device) * 1e3;  // kHz
  std::vector<char> bus(32, '\0');
  SHARDROOF_CUDA_CHECK(cudaDeviceGetPCIBusId(bus.data(), static_cast<int>(bus.size()), device));
  const Nvml nvml;
  gpu.nvml = nvml.why_not();
  nvml.fill(bus.data(), gpu);
  return gpu;
}

}  // namespace shardroof

// A GPU's own compute peak from what the driver reports: its multiprocessor
// (SM) count and clock times the per-SM throughput of its compute
// capability, from NVIDIA's architecture whitepapers (the table in
// gpu_peak.cpp, each row with its source). No CUDA here: cuda/ fills
// GpuDevice, and the tests check the table and the formula without a GPU.
#pragma once

#include <optional>
#include <string>

#include "collectives/types.h"
#include "hardware/limits.h"

namespace shardroof::hw {

struct GpuDevice {
  std::string name;          // "NVIDIA H200"
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  double max_clock_hz = 0;   // the SM clock's maximum the driver reports (cudaDevAttrClockRate)
  // Read through NVML during the run, where the driver has it: the SM
  // clock right after the timed GEMMs, and why it was held low.
  std::optional<double> clock_hz;
  std::string clock_limits;  // "power cap, thermal slowdown"; "" none or unknown
  // The PCIe link the GPU trained at, and its best (NVML).
  std::optional<int> pcie_gen, pcie_width, pcie_max_gen, pcie_max_width;
  std::string nvml;          // "" where NVML answered, else why not
};

// Dense FLOP per cycle per SM of one compute capability.
struct SmThroughput {
  int cc_major = 0, cc_minor = 0;
  const char* architecture = "";
  double fp64 = 0;          // FP64 FMA units (CUDA cores)
  double fp64_tensor = 0;   // FP64 tensor cores (DMMA); 0 where none
  double fp32 = 0;          // FP32 FMA units
  double tf32_tensor = 0;   // 0 where none
  double fp16_tensor = 0;   // half inputs, float accumulate
  double bf16_tensor = 0;   // 0 where none
  const char* source = "";
};

// The row of a compute capability; nullptr when the table has none.
const SmThroughput* sm_throughput(int cc_major, int cc_minor);

// FLOP per cycle per SM the GEMM of `type` runs at: double on FP64 tensor
// cores where they exist (cuBLAS's DGEMM uses them), float on FP32 units
// (TF32 tensor cores with allow_tf32), bfloat16 and half on tensor cores.
// 0 where the row has no such unit.
double gemm_flop_per_cycle_per_sm(const SmThroughput& row, coll::DataType type, bool allow_tf32);

// SMs x FLOP/cycle/SM x the maximum clock: the device's own peak for the
// GEMM of `type`. nullopt without a table row or a clock.
std::optional<ComputeLimit> gpu_compute_limit(const GpuDevice& gpu, coll::DataType type, bool allow_tf32);

// One direction of a PCIe link in bytes/s: lanes x the generation's
// transfer rate after its line encoding (8b/10b to Gen2, 128b/130b from
// Gen3; Gen6's FLIT mode counted as Gen5's encoding at twice the rate).
// 0 for an unknown generation.
double pcie_bytes_per_s(int gen, int width);

}  // namespace shardroof::hw

#include "hardware/gpu_peak.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace shardroof::hw {
namespace {

// Per SM per cycle, dense (no sparsity), multiply-add counted as 2.
constexpr std::array<SmThroughput, 3> kTable = {{
    {7, 0, "Volta (V100)", 64, 0, 128, 0, 1024, 0,
     "NVIDIA Tesla V100 GPU Architecture whitepaper (2017): 32 FP64 and 64 FP32 cores, 8 tensor cores of 64 FP16 "
     "FMA per clock per SM"},
    {8, 0, "Ampere (A100)", 64, 128, 128, 1024, 2048, 2048,
     "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020), table 1: 19.5 FP64 tensor, 19.5 FP32, 156 TF32, "
     "312 FP16/BF16 dense TFLOPS at 108 SMs x 1410 MHz"},
    {9, 0, "Hopper (H100, H200)", 128, 256, 256, 2048, 4096, 4096,
     "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022): per SM per clock 64 FP64, 128 FP32 FMA; dense "
     "tensor 512 TF32, 1024 FP16/BF16 FMA; 989 dense BF16 TFLOPS at 132 SMs x 1830 MHz"},
}};

}  // namespace

const SmThroughput* sm_throughput(int cc_major, int cc_minor) {
  for (const auto& row : kTable)
    if (row.cc_major == cc_major && row.cc_minor == cc_minor) return &row;
  return nullptr;
}

double gemm_flop_per_cycle_per_sm(const SmThroughput& row, coll::DataType type, bool allow_tf32) {
  switch (type) {
    case coll::DataType::Double: return std::max(row.fp64, row.fp64_tensor);
    case coll::DataType::Float: return allow_tf32 && row.tf32_tensor > 0 ? row.tf32_tensor : row.fp32;
    case coll::DataType::BFloat16: return row.bf16_tensor;
    case coll::DataType::Half: return row.fp16_tensor;
    case coll::DataType::Int32: return 0;
  }
  return 0;
}

std::optional<ComputeLimit> gpu_compute_limit(const GpuDevice& gpu, coll::DataType type, bool allow_tf32) {
  const SmThroughput* row = sm_throughput(gpu.cc_major, gpu.cc_minor);
  if (!row || gpu.sm_count < 1 || !(gpu.max_clock_hz > 0)) return std::nullopt;
  const double per_sm = gemm_flop_per_cycle_per_sm(*row, type, allow_tf32);
  if (!(per_sm > 0)) return std::nullopt;
  ComputeLimit out;
  out.type = type;
  out.flops_per_s = per_sm * gpu.sm_count * gpu.max_clock_hz;
  const char* unit = type == coll::DataType::Double   ? (row->fp64_tensor > 0 ? "FP64 tensor" : "FP64")
                     : type == coll::DataType::Float  ? (allow_tf32 && row->tf32_tensor > 0 ? "TF32 tensor" : "FP32")
                     : type == coll::DataType::Half   ? "FP16 tensor"
                                                      : "BF16 tensor";
  out.kind = unit;
  out.name = fmt::format("this GPU's {} peak", unit);
  out.formula = fmt::format("{} SMs x {:g} FLOP/cycle x {} (compute capability {}.{}, {})", gpu.sm_count, per_sm,
                            ghz_text(gpu.max_clock_hz), gpu.cc_major, gpu.cc_minor, row->architecture);
  return out;
}

double pcie_bytes_per_s(int gen, int width) {
  // Per lane, one direction, bytes/s after encoding.
  double lane = 0;
  switch (gen) {
    case 1: lane = 2.5e9 * 8 / 10 / 8; break;
    case 2: lane = 5e9 * 8 / 10 / 8; break;
    case 3: lane = 8e9 * 128 / 130 / 8; break;
    case 4: lane = 16e9 * 128 / 130 / 8; break;
    case 5: lane = 32e9 * 128 / 130 / 8; break;
    case 6: lane = 64e9 * 128 / 130 / 8; break;
    default: return 0;
  }
  return width > 0 ? lane * width : 0;
}

}  // namespace shardroof::hw

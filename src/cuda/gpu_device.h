// What the driver says about this rank's GPU for hardware/gpu_peak.h: its
// compute capability, SM count and maximum clock (CUDA runtime), and,
// through NVML where the driver has it, the SM clock now, why it is held
// below its maximum, and the PCIe link the GPU trained at. NVML is loaded
// at run time (libnvidia-ml.so.1 comes with the driver, not the toolkit),
// so the program starts on a machine without it.
#pragma once

#include "hardware/gpu_peak.h"

namespace shardroof {

hw::GpuDevice query_gpu_device(int device);

}  // namespace shardroof

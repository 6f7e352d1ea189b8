// Register-only arithmetic loops that show what one core can do, with no
// memory traffic and no library in between (the top line of the roofline
// method): for each vector level of cpu_isa.h, independent chains of
// multiply-adds (or of multiplies and adds, below FMA) on 12 or 24
// accumulators, more than a core's FMA units times their latency, so the
// loop is bound by the units' throughput alone. A dependent chain of
// integer adds (one cycle each on every x86 core) shows the clock the
// core runs at. x86-64 only (core_loops_x86.cpp); elsewhere no loop is
// available (core_loops_other.cpp).
#pragma once

#include <cstdint>

#include "collectives/types.h"
#include "hardware/cpu_isa.h"

namespace shardroof::hw {

// One loop: a vector level and the arithmetic it runs. BFloat16 is the
// AVX512_BF16 dot product (vdpbf16ps: two bfloat16 products summed into
// each float lane), which exists at the Avx512 level only.
struct CoreLoop {
  VectorIsa isa = VectorIsa::Sse;
  coll::DataType type = coll::DataType::Float;
  bool operator==(const CoreLoop&) const = default;
};

// Whether `loop` runs on a CPU with `cpu` (and this build has it).
bool loop_available(const CpuIsa& cpu, CoreLoop loop);
// FLOPs one iteration of the loop performs (a multiply-add counts 2).
double flops_per_iteration(CoreLoop loop);
// Runs `iterations` iterations (at least 1). Only where loop_available.
void run_core_loop(CoreLoop loop, std::uint64_t iterations);

// Dependent integer adds per iteration of the clock loop: its iteration
// takes that many cycles.
inline constexpr double kClockCyclesPerIteration = 100;
// Whether this build has the clock loop (x86-64).
bool clock_loop_available();
void run_clock_loop(std::uint64_t iterations);

}  // namespace shardroof::hw

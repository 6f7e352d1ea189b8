// Register-only arithmetic loops that show what one core can do, with no
// memory traffic and no library in between (the top line of the roofline
// method): for each vector level of cpu_isa.h, independent chains of
// multiply-adds (or of multiplies and adds, below FMA) on 12 or 24
// accumulators, more than a core's FMA units times their latency, so the
// loop is bound by the units' throughput alone. Dependent chains of integer
// instructions of known latency show the clock the core runs at: an add of
// a register (1 cycle) and a multiply (3 cycles). Not an add of an
// immediate: Golden Cove and later Intel cores execute `add reg, imm` at
// rename, several per cycle, so such a chain measures the renamer (9-17
// GHz on a 2.5 GHz Xeon), not the clock. x86-64 only (core_loops_x86.cpp);
// elsewhere no loop is available (core_loops_other.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

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

// The clock chains: 100 dependent instructions per iteration, each
// waiting for the one before.
//   AddRegister  add %rcx, %rax: latency 1 on every x86 core
//   Multiply     imul %rcx, %rax: latency 3 on Intel cores since Core 2
//                and AMD cores since Zen (a core with another latency
//                reads a clock the add chain contradicts, and the clock
//                is then reported unknown, never wrong)
enum class ClockChain { AddRegister, Multiply };
inline constexpr ClockChain kClockChains[] = {ClockChain::AddRegister, ClockChain::Multiply};
inline constexpr int kClockChainLength = 100;
// Cycles one iteration of the chain takes.
double cycles_per_iteration(ClockChain chain);
// "add %rcx", "imul"
std::string_view to_string(ClockChain chain);
// Whether this build has the clock chains (x86-64).
bool clock_loop_available();
void run_clock_chain(ClockChain chain, std::uint64_t iterations);

// The AMX tile loop (where cpu.amx_bf16): independent tdpbf16ps on four
// accumulator tiles of 16 x 16 floats from two tiles of bfloat16 pairs,
// 16 x 16 x 32 multiply-adds each. A core may use the tiles only after
// the kernel grants the tile state (arch_prctl ARCH_REQ_XCOMP_PERM,
// Linux 5.16 and later): request_amx() asks once and says why not.
struct AmxGrant {
  bool granted = false;
  std::string reason;  // why not, "" when granted
};
AmxGrant request_amx(const CpuIsa& cpu);
// FLOPs one iteration of the tile loop performs.
double amx_flops_per_iteration();
// Only after request_amx(...).granted.
void run_amx_bf16_loop(std::uint64_t iterations);

}  // namespace shardroof::hw

// The vector instruction sets of the CPU this process runs on, from cpuid
// and the operating system's saved-state mask (XCR0): an instruction set
// counts only when the CPU has it and the OS saves its registers. No MPI,
// no BLAS.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardroof::hw {

// The vector arithmetic a GEMM kernel can be written for, widest last.
// Each is what one of core_loops.h's loops runs:
//   Sse     128-bit multiply and add (SSE2/SSE3: no FMA)
//   Avx     256-bit multiply and add (AVX: no FMA)
//   Fma256  256-bit fused multiply-add (AVX2 and FMA3)
//   Avx512  512-bit fused multiply-add (AVX-512F)
enum class VectorIsa { Sse, Avx, Fma256, Avx512 };
inline constexpr VectorIsa kVectorIsas[] = {VectorIsa::Sse, VectorIsa::Avx, VectorIsa::Fma256, VectorIsa::Avx512};

// "SSE", "AVX", "AVX2+FMA", "AVX-512"
std::string_view to_string(VectorIsa isa);
// What the loop of that level computes, e.g. "512-bit FMA".
std::string_view loop_text(VectorIsa isa);

struct CpuIsa {
  bool x86 = false;  // false: none of the below is known (another architecture)
  bool sse2 = false, sse3 = false, ssse3 = false, sse41 = false, sse42 = false;
  bool avx = false, fma = false, f16c = false, avx2 = false;
  bool avx512f = false, avx512cd = false, avx512bw = false, avx512dq = false, avx512vl = false;
  bool avx512_bf16 = false, avx512_fp16 = false, avx512_vnni = false;
  bool amx_tile = false, amx_bf16 = false, amx_int8 = false;

  // Whether core_loops.h can run that level's loop here.
  bool has(VectorIsa isa) const;
  // The widest level the CPU has; nullopt on another architecture.
  std::optional<VectorIsa> widest() const;
  // What OpenBLAS's AVX-512 kernels (SkylakeX) need: F, CD, BW, DQ and VL.
  bool avx512_skylakex() const { return avx512f && avx512cd && avx512bw && avx512dq && avx512vl; }
};

// The registers cpu_isa() reads: cpuid leaves 0, 1, 7 (subleaves 0 and 1)
// and XCR0, the OS's saved-state mask. Recorded dumps of CPUs nobody here
// has (tests/unit/cpu_fixtures.h) decode the same way.
struct CpuidDump {
  std::uint32_t max_leaf = 0;                  // leaf 0 EAX
  std::uint32_t leaf1_ecx = 0, leaf1_edx = 0;  // leaf 1
  std::uint32_t leaf7_eax = 0, leaf7_ebx = 0, leaf7_ecx = 0, leaf7_edx = 0;  // leaf 7, subleaf 0
  std::uint32_t leaf7_1_eax = 0;               // leaf 7, subleaf 1 (where leaf7_eax >= 1)
  std::uint64_t xcr0 = 0;                      // 0 where leaf 1 ECX has no OSXSAVE
};
// What a dump says the CPU has and the OS saves (pure).
CpuIsa decode_cpuid(const CpuidDump& dump);

// The CPU's model name (the first "model name" of /proc/cpuinfo), or "".
std::string cpu_model_name();

// This CPU's instruction sets (the first call's answer; cpuid does not change).
const CpuIsa& cpu_isa();

// The names of what the CPU has, widest first where it matters for
// arithmetic: {"AVX-512F", "AVX512_BF16", "AMX-BF16", "AVX2+FMA", "AVX", "SSE4.2"}.
std::vector<std::string> isa_names(const CpuIsa& isa);

}  // namespace shardroof::hw

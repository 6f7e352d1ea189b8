// The loops of core_loops.h in x86-64 assembly. Inline assembly rather
// than intrinsics: the loop stays register-only whatever the build's
// optimisation level (an -O0 build would spill intrinsics' accumulators to
// memory and measure the stack). Each function carries the target its
// instructions need, so the rest of the program stays plain x86-64; it is
// called only where cpu_isa() says the CPU and the OS support it.
//
// Values stay normal numbers (no denormals, which some cores run on a slow
// path): accumulators start at 1, multiplicands are 1, addends small.
#include <sys/syscall.h>
#include <unistd.h>

#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "hardware/core_loops.h"

namespace shardroof::hw {
namespace {

// Twelve accumulators for the 16-register levels: a core needs its FMA
// (or add and multiply) units times their latency in flight, 8 to 12 on
// the cores of the last decade; registers 14 and 15 hold the operands.
#define SR_ACC12 "0,1,2,3,4,5,6,7,8,9,10,11"
#define SR_XMM_CLOBBERS                                                                                     \
  "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm14", \
      "xmm15", "cc"
// 32 registers at 512 bits: twenty-four accumulators, operands in 30 and 31.
#define SR_ACC24 SR_ACC12 ",12,13,14,15,16,17,18,19,20,21,22,23"
#define SR_ZMM_CLOBBERS                                                                                             \
  "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", \
      "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm30", "xmm31", "cc"

// One loop function: `setup` loads the operands ([one], [tiny]) and the
// accumulators, `body` is one iteration; `tail` leaves the vector state.
#define SR_LOOP(name, target, type, one_value, tiny_value, setup, body, tail, ...) \
  target void name(std::uint64_t n) {                                             \
    const type one = one_value, tiny = tiny_value;                                \
    __asm__ volatile(setup "1:\n\t" body "dec %[n]\n\t jnz 1b\n\t" tail       \
                     : [n] "+r"(n)                                                \
                     : [one] "m"(one), [tiny] "m"(tiny)                           \
                     : __VA_ARGS__);                                              \
  }

// 128-bit SSE: six multiplies by 1 and six adds, each on its own chain.
SR_LOOP(sse_float, , float, 1.0f, 1e-7f,
        "movss %[one], %%xmm14\n\t shufps $0, %%xmm14, %%xmm14\n\t movss %[tiny], %%xmm15\n\t"
        "shufps $0, %%xmm15, %%xmm15\n\t .irp r," SR_ACC12 "\n\t movaps %%xmm14, %%xmm\\r\n\t .endr\n\t",
        ".irp r,0,1,2,3,4,5\n\t mulps %%xmm14, %%xmm\\r\n\t .endr\n\t"
        ".irp r,6,7,8,9,10,11\n\t addps %%xmm15, %%xmm\\r\n\t .endr\n\t",
        "", SR_XMM_CLOBBERS)
SR_LOOP(sse_double, , double, 1.0, 1e-12,
        "movsd %[one], %%xmm14\n\t unpcklpd %%xmm14, %%xmm14\n\t movsd %[tiny], %%xmm15\n\t"
        "unpcklpd %%xmm15, %%xmm15\n\t .irp r," SR_ACC12 "\n\t movapd %%xmm14, %%xmm\\r\n\t .endr\n\t",
        ".irp r,0,1,2,3,4,5\n\t mulpd %%xmm14, %%xmm\\r\n\t .endr\n\t"
        ".irp r,6,7,8,9,10,11\n\t addpd %%xmm15, %%xmm\\r\n\t .endr\n\t",
        "", SR_XMM_CLOBBERS)
// 256-bit AVX: the same with three-operand multiplies and adds.
SR_LOOP(avx_float, __attribute__((target("avx"))), float, 1.0f, 1e-7f,
        "vbroadcastss %[one], %%ymm14\n\t vbroadcastss %[tiny], %%ymm15\n\t"
        ".irp r," SR_ACC12 "\n\t vmovaps %%ymm14, %%ymm\\r\n\t .endr\n\t",
        ".irp r,0,1,2,3,4,5\n\t vmulps %%ymm14, %%ymm\\r, %%ymm\\r\n\t .endr\n\t"
        ".irp r,6,7,8,9,10,11\n\t vaddps %%ymm15, %%ymm\\r, %%ymm\\r\n\t .endr\n\t",
        "vzeroupper\n\t", SR_XMM_CLOBBERS)
SR_LOOP(avx_double, __attribute__((target("avx"))), double, 1.0, 1e-12,
        "vbroadcastsd %[one], %%ymm14\n\t vbroadcastsd %[tiny], %%ymm15\n\t"
        ".irp r," SR_ACC12 "\n\t vmovapd %%ymm14, %%ymm\\r\n\t .endr\n\t",
        ".irp r,0,1,2,3,4,5\n\t vmulpd %%ymm14, %%ymm\\r, %%ymm\\r\n\t .endr\n\t"
        ".irp r,6,7,8,9,10,11\n\t vaddpd %%ymm15, %%ymm\\r, %%ymm\\r\n\t .endr\n\t",
        "vzeroupper\n\t", SR_XMM_CLOBBERS)
// acc += 1 * tiny on twelve chains.
SR_LOOP(fma256_float, __attribute__((target("avx,fma"))), float, 1.0f, 1e-7f,
        "vbroadcastss %[one], %%ymm14\n\t vbroadcastss %[tiny], %%ymm15\n\t"
        ".irp r," SR_ACC12 "\n\t vmovaps %%ymm14, %%ymm\\r\n\t .endr\n\t",
        ".irp r," SR_ACC12 "\n\t vfmadd231ps %%ymm14, %%ymm15, %%ymm\\r\n\t .endr\n\t", "vzeroupper\n\t",
        SR_XMM_CLOBBERS)
SR_LOOP(fma256_double, __attribute__((target("avx,fma"))), double, 1.0, 1e-12,
        "vbroadcastsd %[one], %%ymm14\n\t vbroadcastsd %[tiny], %%ymm15\n\t"
        ".irp r," SR_ACC12 "\n\t vmovapd %%ymm14, %%ymm\\r\n\t .endr\n\t",
        ".irp r," SR_ACC12 "\n\t vfmadd231pd %%ymm14, %%ymm15, %%ymm\\r\n\t .endr\n\t", "vzeroupper\n\t",
        SR_XMM_CLOBBERS)
SR_LOOP(avx512_float, __attribute__((target("avx512f"))), float, 1.0f, 1e-7f,
        "vbroadcastss %[one], %%zmm30\n\t vbroadcastss %[tiny], %%zmm31\n\t"
        ".irp r," SR_ACC24 "\n\t vmovaps %%zmm30, %%zmm\\r\n\t .endr\n\t",
        ".irp r," SR_ACC24 "\n\t vfmadd231ps %%zmm30, %%zmm31, %%zmm\\r\n\t .endr\n\t", "vzeroupper\n\t",
        SR_ZMM_CLOBBERS)
SR_LOOP(avx512_double, __attribute__((target("avx512f"))), double, 1.0, 1e-12,
        "vbroadcastsd %[one], %%zmm30\n\t vbroadcastsd %[tiny], %%zmm31\n\t"
        ".irp r," SR_ACC24 "\n\t vmovapd %%zmm30, %%zmm\\r\n\t .endr\n\t",
        ".irp r," SR_ACC24 "\n\t vfmadd231pd %%zmm30, %%zmm31, %%zmm\\r\n\t .endr\n\t", "vzeroupper\n\t",
        SR_ZMM_CLOBBERS)
// vdpbf16ps: each float lane += a0*b0 + a1*b1 over a pair of bfloat16
// ([one] holds two bfloat16 1.0s, 0x3f80 each), 4 FLOPs per lane; the
// accumulators start at [tiny], a float 1.
SR_LOOP(avx512_bf16_dot, __attribute__((target("avx512f,avx512bf16"))), std::uint32_t, 0x3f803f80u, 0x3f800000u,
        "vpbroadcastd %[one], %%zmm30\n\t vpbroadcastd %[one], %%zmm31\n\t vpbroadcastd %[tiny], %%zmm0\n\t"
        ".irp r," SR_ACC24 "\n\t vmovaps %%zmm0, %%zmm\\r\n\t .endr\n\t",
        ".irp r," SR_ACC24 "\n\t vdpbf16ps %%zmm30, %%zmm31, %%zmm\\r\n\t .endr\n\t", "vzeroupper\n\t",
        SR_ZMM_CLOBBERS)

}  // namespace

bool loop_available(const CpuIsa& cpu, CoreLoop loop) {
  if (loop.type == coll::DataType::BFloat16) return loop.isa == VectorIsa::Avx512 && cpu.avx512f && cpu.avx512_bf16;
  if (loop.type != coll::DataType::Float && loop.type != coll::DataType::Double) return false;
  return cpu.has(loop.isa);
}

double flops_per_iteration(CoreLoop loop) {
  // Lanes of one instruction times its FLOPs per lane, times the
  // instructions of an iteration (12, or 24 at 512 bits).
  const double lanes_f32 = loop.isa == VectorIsa::Sse ? 4 : loop.isa == VectorIsa::Avx512 ? 16 : 8;
  const double lanes = loop.type == coll::DataType::Double ? lanes_f32 / 2 : lanes_f32;
  const bool fused = loop.isa == VectorIsa::Fma256 || loop.isa == VectorIsa::Avx512;
  const double per_lane = loop.type == coll::DataType::BFloat16 ? 4 : fused ? 2 : 1;
  const double instructions = loop.isa == VectorIsa::Avx512 ? 24 : 12;
  return instructions * lanes * per_lane;
}

void run_core_loop(CoreLoop loop, std::uint64_t iterations) {
  if (iterations == 0) iterations = 1;
  const bool dbl = loop.type == coll::DataType::Double;
  if (loop.type == coll::DataType::BFloat16) return avx512_bf16_dot(iterations);
  switch (loop.isa) {
    case VectorIsa::Sse: return dbl ? sse_double(iterations) : sse_float(iterations);
    case VectorIsa::Avx: return dbl ? avx_double(iterations) : avx_float(iterations);
    case VectorIsa::Fma256: return dbl ? fma256_double(iterations) : fma256_float(iterations);
    case VectorIsa::Avx512: return dbl ? avx512_double(iterations) : avx512_float(iterations);
  }
}

double cycles_per_iteration(ClockChain chain) {
  return kClockChainLength * (chain == ClockChain::Multiply ? 3.0 : 1.0);
}

std::string_view to_string(ClockChain chain) { return chain == ClockChain::Multiply ? "imul" : "add %rcx"; }

bool clock_loop_available() { return true; }

void run_clock_chain(ClockChain chain, std::uint64_t iterations) {
  if (iterations == 0) iterations = 1;
  if (chain == ClockChain::Multiply) {
    // rax *= 1: the value stays 1, each multiply waits for the one before.
    __asm__ volatile(
        "mov $1, %%eax\n\t mov $1, %%ecx\n\t"
        "1:\n\t"
        ".rept 100\n\t imul %%rcx, %%rax\n\t .endr\n\t"
        "dec %[n]\n\t jnz 1b\n\t"
        : [n] "+r"(iterations)
        :
        : "rax", "rcx", "cc");
    return;
  }
  __asm__ volatile(
      "xor %%eax, %%eax\n\t mov $1, %%ecx\n\t"
      "1:\n\t"
      ".rept 100\n\t add %%rcx, %%rax\n\t .endr\n\t"
      "dec %[n]\n\t jnz 1b\n\t"
      : [n] "+r"(iterations)
      :
      : "rax", "rcx", "cc");
}

namespace {

// The tile configuration of palette 1 (64 bytes): tiles 0-7 of 16 rows of
// 64 bytes each.
struct alignas(64) TileConfig {
  std::uint8_t palette = 1;
  std::uint8_t start_row = 0;
  std::uint8_t reserved[14] = {};
  std::uint16_t colsb[16] = {64, 64, 64, 64, 64, 64, 64, 64};
  std::uint8_t rows[16] = {16, 16, 16, 16, 16, 16, 16, 16};
};
static_assert(sizeof(TileConfig) == 64);

}  // namespace

AmxGrant request_amx(const CpuIsa& cpu) {
  if (!cpu.amx_tile || !cpu.amx_bf16) return {false, "the CPU has no AMX-BF16, or the OS does not save the tile state"};
  // ARCH_REQ_XCOMP_PERM for XFEATURE_XTILEDATA (arch/x86/include/uapi/asm/prctl.h).
  constexpr long kArchReqXcompPerm = 0x1023;
  constexpr long kXfeatureXtiledata = 18;
  if (syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) != 0)
    return {false, fmt::format("the kernel did not grant the tile state (arch_prctl: {})", std::strerror(errno))};
  return {true, ""};
}

double amx_flops_per_iteration() { return 4.0 * 16 * 16 * 32 * 2; }

__attribute__((target("amx-tile,amx-bf16"))) void run_amx_bf16_loop(std::uint64_t iterations) {
  if (iterations == 0) iterations = 1;
  const TileConfig config;
  // bfloat16 1.0 pairs: products of 1, sums that stay normal numbers.
  alignas(64) static constexpr std::array<std::uint32_t, 256> kOnes = [] {
    std::array<std::uint32_t, 256> a{};
    for (auto& v : a) v = 0x3f803f80u;
    return a;
  }();
  const long stride = 64;
  __asm__ volatile(
      "ldtilecfg %[config]\n\t"
      "tileloadd (%[ones], %[stride], 1), %%tmm4\n\t tileloadd (%[ones], %[stride], 1), %%tmm5\n\t"
      "tileloadd (%[ones], %[stride], 1), %%tmm6\n\t tileloadd (%[ones], %[stride], 1), %%tmm7\n\t"
      "tilezero %%tmm0\n\t tilezero %%tmm1\n\t tilezero %%tmm2\n\t tilezero %%tmm3\n\t"
      "1:\n\t"
      "tdpbf16ps %%tmm6, %%tmm4, %%tmm0\n\t tdpbf16ps %%tmm7, %%tmm4, %%tmm1\n\t"
      "tdpbf16ps %%tmm6, %%tmm5, %%tmm2\n\t tdpbf16ps %%tmm7, %%tmm5, %%tmm3\n\t"
      "dec %[n]\n\t jnz 1b\n\t"
      "tilerelease\n\t"
      : [n] "+r"(iterations)
      : [config] "m"(config), [ones] "r"(kOnes.data()), [stride] "r"(stride)
      : "cc", "memory");
}

}  // namespace shardroof::hw

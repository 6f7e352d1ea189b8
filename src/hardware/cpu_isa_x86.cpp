// cpuid and xgetbv on x86-64 (cpu_isa_other.cpp elsewhere).
#include <cpuid.h>

#include <cstdint>

#include "hardware/cpu_isa.h"

namespace shardroof::hw {
namespace {

bool bit(unsigned reg, int n) { return ((reg >> n) & 1u) != 0; }

// XCR0: which register states the OS saves on a context switch. A CPU's
// AVX or AVX-512 is unusable (the instructions fault) unless the OS saves
// the registers they write.
std::uint64_t xcr0() {
  std::uint32_t lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<std::uint64_t>(hi) << 32) | lo;
}

CpuIsa detect() {
  CpuIsa isa;
  isa.x86 = true;
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return isa;
  isa.sse2 = bit(d, 26);
  isa.sse3 = bit(c, 0);
  isa.ssse3 = bit(c, 9);
  isa.sse41 = bit(c, 19);
  isa.sse42 = bit(c, 20);
  const bool osxsave = bit(c, 27);
  const std::uint64_t xcr = osxsave ? xcr0() : 0;
  const bool ymm_saved = (xcr & 0x6) == 0x6;             // SSE and AVX state
  const bool zmm_saved = ymm_saved && (xcr & 0xe0) == 0xe0;  // opmask, ZMM_Hi256, Hi16_ZMM
  const bool tiles_saved = (xcr & 0x60000) == 0x60000;   // XTILECFG, XTILEDATA
  isa.avx = bit(c, 28) && ymm_saved;
  isa.fma = bit(c, 12) && ymm_saved;
  isa.f16c = bit(c, 29) && ymm_saved;
  unsigned max_leaf = 0;
  __get_cpuid(0, &max_leaf, &b, &c, &d);
  if (max_leaf < 7) return isa;
  __cpuid_count(7, 0, a, b, c, d);
  const unsigned subleaves = a;
  isa.avx2 = bit(b, 5) && ymm_saved;
  isa.avx512f = bit(b, 16) && zmm_saved;
  isa.avx512dq = bit(b, 17) && zmm_saved;
  isa.avx512cd = bit(b, 28) && zmm_saved;
  isa.avx512bw = bit(b, 30) && zmm_saved;
  isa.avx512vl = bit(b, 31) && zmm_saved;
  isa.avx512_vnni = bit(c, 11) && zmm_saved;
  isa.avx512_fp16 = bit(d, 23) && zmm_saved;
  isa.amx_bf16 = bit(d, 22) && tiles_saved;
  isa.amx_tile = bit(d, 24) && tiles_saved;
  isa.amx_int8 = bit(d, 25) && tiles_saved;
  if (subleaves >= 1) {
    __cpuid_count(7, 1, a, b, c, d);
    isa.avx512_bf16 = bit(a, 5) && zmm_saved;
  }
  return isa;
}

}  // namespace

const CpuIsa& cpu_isa() {
  static const CpuIsa isa = detect();
  return isa;
}

}  // namespace shardroof::hw

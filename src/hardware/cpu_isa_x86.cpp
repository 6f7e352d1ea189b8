// cpuid and xgetbv on x86-64 (cpu_isa_other.cpp elsewhere); cpu_isa.cpp
// decodes what they read.
#include <cpuid.h>

#include <cstdint>

#include "hardware/cpu_isa.h"

namespace shardroof::hw {
namespace {

std::uint64_t xgetbv0() {
  std::uint32_t lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<std::uint64_t>(hi) << 32) | lo;
}

CpuidDump read_cpuid() {
  CpuidDump d;
  unsigned a = 0, b = 0, c = 0, e = 0;
  __get_cpuid(0, &a, &b, &c, &e);
  d.max_leaf = a;
  if (d.max_leaf < 1) return d;
  __cpuid_count(1, 0, a, b, c, e);
  d.leaf1_ecx = c;
  d.leaf1_edx = e;
  if (((c >> 27) & 1u) != 0) d.xcr0 = xgetbv0();  // OSXSAVE: xgetbv is allowed
  if (d.max_leaf < 7) return d;
  __cpuid_count(7, 0, a, b, c, e);
  d.leaf7_eax = a;
  d.leaf7_ebx = b;
  d.leaf7_ecx = c;
  d.leaf7_edx = e;
  if (d.leaf7_eax >= 1) {
    __cpuid_count(7, 1, a, b, c, e);
    d.leaf7_1_eax = a;
  }
  return d;
}

}  // namespace

const CpuIsa& cpu_isa() {
  static const CpuIsa isa = decode_cpuid(read_cpuid());
  return isa;
}

}  // namespace shardroof::hw

#include "hardware/cpu_isa.h"

#include <fstream>

namespace shardroof::hw {

std::string_view to_string(VectorIsa isa) {
  switch (isa) {
    case VectorIsa::Sse: return "SSE";
    case VectorIsa::Avx: return "AVX";
    case VectorIsa::Fma256: return "AVX2+FMA";
    case VectorIsa::Avx512: return "AVX-512";
  }
  return "?";
}

std::string_view loop_text(VectorIsa isa) {
  switch (isa) {
    case VectorIsa::Sse: return "128-bit multiply and add";
    case VectorIsa::Avx: return "256-bit multiply and add";
    case VectorIsa::Fma256: return "256-bit FMA";
    case VectorIsa::Avx512: return "512-bit FMA";
  }
  return "?";
}

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) return "";
    const auto start = line.find_first_not_of(' ', colon + 1);
    return start == std::string::npos ? "" : line.substr(start);
  }
  return "";
}

namespace {

bool bit(std::uint32_t reg, int n) { return ((reg >> n) & 1u) != 0; }

}  // namespace

CpuIsa decode_cpuid(const CpuidDump& d) {
  CpuIsa isa;
  isa.x86 = true;
  if (d.max_leaf < 1) return isa;
  isa.sse2 = bit(d.leaf1_edx, 26);
  isa.sse3 = bit(d.leaf1_ecx, 0);
  isa.ssse3 = bit(d.leaf1_ecx, 9);
  isa.sse41 = bit(d.leaf1_ecx, 19);
  isa.sse42 = bit(d.leaf1_ecx, 20);
  // XCR0: which register states the OS saves on a context switch. A CPU's
  // AVX or AVX-512 is unusable (the instructions fault) unless the OS saves
  // the registers they write.
  const std::uint64_t xcr = bit(d.leaf1_ecx, 27) ? d.xcr0 : 0;  // OSXSAVE
  const bool ymm_saved = (xcr & 0x6) == 0x6;                     // SSE and AVX state
  const bool zmm_saved = ymm_saved && (xcr & 0xe0) == 0xe0;      // opmask, ZMM_Hi256, Hi16_ZMM
  const bool tiles_saved = (xcr & 0x60000) == 0x60000;           // XTILECFG, XTILEDATA
  isa.avx = bit(d.leaf1_ecx, 28) && ymm_saved;
  isa.fma = bit(d.leaf1_ecx, 12) && ymm_saved;
  isa.f16c = bit(d.leaf1_ecx, 29) && ymm_saved;
  if (d.max_leaf < 7) return isa;
  isa.avx2 = bit(d.leaf7_ebx, 5) && ymm_saved;
  isa.avx512f = bit(d.leaf7_ebx, 16) && zmm_saved;
  isa.avx512dq = bit(d.leaf7_ebx, 17) && zmm_saved;
  isa.avx512cd = bit(d.leaf7_ebx, 28) && zmm_saved;
  isa.avx512bw = bit(d.leaf7_ebx, 30) && zmm_saved;
  isa.avx512vl = bit(d.leaf7_ebx, 31) && zmm_saved;
  isa.avx512_vnni = bit(d.leaf7_ecx, 11) && zmm_saved;
  isa.avx512_fp16 = bit(d.leaf7_edx, 23) && zmm_saved;
  isa.amx_bf16 = bit(d.leaf7_edx, 22) && tiles_saved;
  isa.amx_tile = bit(d.leaf7_edx, 24) && tiles_saved;
  isa.amx_int8 = bit(d.leaf7_edx, 25) && tiles_saved;
  if (d.leaf7_eax >= 1) isa.avx512_bf16 = bit(d.leaf7_1_eax, 5) && zmm_saved;
  return isa;
}

bool CpuIsa::has(VectorIsa isa) const {
  switch (isa) {
    case VectorIsa::Sse: return sse2;
    case VectorIsa::Avx: return avx;
    case VectorIsa::Fma256: return avx && fma;
    case VectorIsa::Avx512: return avx512f;
  }
  return false;
}

std::optional<VectorIsa> CpuIsa::widest() const {
  std::optional<VectorIsa> out;
  for (const VectorIsa v : kVectorIsas)
    if (has(v)) out = v;
  return out;
}

std::vector<std::string> isa_names(const CpuIsa& isa) {
  std::vector<std::string> out;
  if (isa.avx512f) out.push_back("AVX-512F");
  if (isa.avx512_bf16) out.push_back("AVX512_BF16");
  if (isa.avx512_fp16) out.push_back("AVX512_FP16");
  if (isa.amx_tile) {
    std::string amx = "AMX";
    if (isa.amx_bf16) amx += "-BF16";
    if (isa.amx_int8) amx += isa.amx_bf16 ? "/INT8" : "-INT8";
    out.push_back(amx);
  }
  if (isa.avx2 && isa.fma) out.push_back("AVX2+FMA");
  else if (isa.fma) out.push_back("FMA3");
  else if (isa.avx2) out.push_back("AVX2");
  if (isa.avx) out.push_back("AVX");
  if (isa.sse42) out.push_back("SSE4.2");
  else if (isa.sse41) out.push_back("SSE4.1");
  else if (isa.sse3) out.push_back("SSE3");
  else if (isa.sse2) out.push_back("SSE2");
  return out;
}

}  // namespace shardroof::hw

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

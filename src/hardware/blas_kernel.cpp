#include "hardware/blas_kernel.h"

#include <cblas.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <utility>

namespace shardroof::hw {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// OpenBLAS's x86 kernel names (driver/others/dynamic.c, corename[]) and
// the arithmetic of their GEMM kernels (kernel/x86_64/KERNEL.<name>).
constexpr std::array<std::pair<std::string_view, VectorIsa>, 27> kKernels = {{
    {"katmai", VectorIsa::Sse},       {"coppermine", VectorIsa::Sse},   {"northwood", VectorIsa::Sse},
    {"prescott", VectorIsa::Sse},     {"banias", VectorIsa::Sse},       {"atom", VectorIsa::Sse},
    {"core2", VectorIsa::Sse},        {"penryn", VectorIsa::Sse},       {"dunnington", VectorIsa::Sse},
    {"nehalem", VectorIsa::Sse},      {"athlon", VectorIsa::Sse},       {"opteron", VectorIsa::Sse},
    {"opteron_sse3", VectorIsa::Sse}, {"barcelona", VectorIsa::Sse},    {"nano", VectorIsa::Sse},
    {"bobcat", VectorIsa::Sse},       {"generic", VectorIsa::Sse},      {"sandybridge", VectorIsa::Avx},
    {"bulldozer", VectorIsa::Avx},    {"piledriver", VectorIsa::Fma256}, {"steamroller", VectorIsa::Fma256},
    {"excavator", VectorIsa::Fma256}, {"haswell", VectorIsa::Fma256},   {"zen", VectorIsa::Fma256},
    {"skylakex", VectorIsa::Avx512},  {"cooperlake", VectorIsa::Avx512}, {"sapphirerapids", VectorIsa::Avx512}
}};

}  // namespace

std::optional<VectorIsa> openblas_kernel_isa(std::string_view kernel) {
  const std::string k = lower(kernel);
  for (const auto& [name, isa] : kKernels)
    if (k == name) return isa;
  return std::nullopt;
}

std::string openblas_coretype_for(VectorIsa isa, const CpuIsa& cpu) {
  switch (isa) {
    case VectorIsa::Avx512:
      if (cpu.avx512_skylakex()) return "SkylakeX";
      [[fallthrough]];
    case VectorIsa::Fma256:
      if (cpu.avx2 && cpu.fma) return "Haswell";
      [[fallthrough]];
    case VectorIsa::Avx:
      if (cpu.avx) return "Sandybridge";
      [[fallthrough]];
    case VectorIsa::Sse:
      return "";
  }
  return "";
}

std::string openblas_version(std::string_view config) {
  const auto space = config.find(' ');
  if (config.rfind("OpenBLAS", 0) != 0 || space == std::string_view::npos) return "";
  const auto rest = config.substr(space + 1);
  const auto end = rest.find(' ');
  const auto v = rest.substr(0, end);
  return !v.empty() && std::isdigit(static_cast<unsigned char>(v.front())) ? std::string(v) : "";
}

BlasInfo query_blas() {
  BlasInfo info;
  info.library = "OpenBLAS";
  info.config = openblas_get_config();
  info.version = openblas_version(info.config);
  info.kernel = openblas_get_corename();
  info.kernel_isa = openblas_kernel_isa(info.kernel);
  if (const char* env = std::getenv("OPENBLAS_CORETYPE")) info.coretype_env = env;
  return info;
}

}  // namespace shardroof::hw

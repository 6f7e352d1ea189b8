#include "hardware/blas_kernel.h"

#include "hardware/blas_choice.h"
#include "hardware/blas_library.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <span>
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
constexpr std::array<std::pair<std::string_view, VectorIsa>, 27> kOpenBlasKernels = {{
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

// BLIS 0.9.0's x86 configurations (frame/base/bli_arch.c) and their
// kernels' arithmetic (kernels/<name>/3).
constexpr std::array<std::pair<std::string_view, VectorIsa>, 13> kBlisKernels = {{
    {"skx", VectorIsa::Avx512},       {"knl", VectorIsa::Avx512},         {"haswell", VectorIsa::Fma256},
    {"zen", VectorIsa::Fma256},       {"zen2", VectorIsa::Fma256},        {"zen3", VectorIsa::Fma256},
    {"excavator", VectorIsa::Fma256},   {"steamroller", VectorIsa::Fma256},
    {"piledriver", VectorIsa::Fma256}, {"bulldozer", VectorIsa::Avx},     {"sandybridge", VectorIsa::Avx},
    {"penryn", VectorIsa::Sse},       {"generic", VectorIsa::Sse}
}};

// The name of the widest kernel family at or below `isa` the CPU can run.
std::string kernel_at(VectorIsa isa, const CpuIsa& cpu, std::string_view avx512, std::string_view fma256,
                      std::string_view avx) {
  switch (isa) {
    case VectorIsa::Avx512:
      if (cpu.avx512_skylakex()) return std::string(avx512);
      [[fallthrough]];
    case VectorIsa::Fma256:
      if (cpu.avx2 && cpu.fma) return std::string(fma256);
      [[fallthrough]];
    case VectorIsa::Avx:
      if (cpu.avx) return std::string(avx);
      [[fallthrough]];
    case VectorIsa::Sse:
      return "";
  }
  return "";
}

}  // namespace

std::string kernel_setting(const BlasInfo& blas, std::string_view kernel) {
  const std::string k = lower(kernel);
  for (const auto& [name, value] : blas.kernel_settings)
    if (lower(name) == k) return value;
  return std::string(kernel);
}

std::string_view to_string(KernelSetBy by) {
  switch (by) {
    case KernelSetBy::Library: return "library";
    case KernelSetBy::User: return "user";
    case KernelSetBy::Shardroof: return "shardroof";
    case KernelSetBy::Flag: return "--blas-kernel";
  }
  return "?";
}

std::optional<VectorIsa> openblas_kernel_isa(std::string_view kernel) { return kernel_isa(BlasFamily::OpenBlas, kernel); }

std::string openblas_coretype_for(VectorIsa isa, const CpuIsa& cpu) { return kernel_for(BlasFamily::OpenBlas, isa, cpu); }

std::string openblas_version(std::string_view config) {
  const auto space = config.find(' ');
  if (config.rfind("OpenBLAS", 0) != 0 || space == std::string_view::npos) return "";
  const auto rest = config.substr(space + 1);
  const auto end = rest.find(' ');
  const auto v = rest.substr(0, end);
  return !v.empty() && std::isdigit(static_cast<unsigned char>(v.front())) ? std::string(v) : "";
}

std::optional<VectorIsa> blis_kernel_isa(std::string_view kernel) { return kernel_isa(BlasFamily::Blis, kernel); }

std::string blis_arch_for(VectorIsa isa, const CpuIsa& cpu) { return kernel_for(BlasFamily::Blis, isa, cpu); }

namespace {

// What the program knows of a family: its variable, its x86 kernels, and
// the kernel of each level it names (AVX-512, AVX2+FMA, AVX).
struct FamilyKernels {
  std::string_view variable;
  std::span<const std::pair<std::string_view, VectorIsa>> kernels;
  std::array<std::string_view, 3> by_level;
};

FamilyKernels family_kernels(BlasFamily family) {
  switch (family) {
    case BlasFamily::OpenBlas: return {"OPENBLAS_CORETYPE", kOpenBlasKernels, {"SkylakeX", "Haswell", "Sandybridge"}};
    case BlasFamily::Blis: return {"BLIS_ARCH_TYPE", kBlisKernels, {"skx", "haswell", "sandybridge"}};
    case BlasFamily::Other: break;
  }
  return {};
}

}  // namespace

std::string_view kernel_variable(BlasFamily family) { return family_kernels(family).variable; }

std::optional<VectorIsa> kernel_isa(BlasFamily family, std::string_view kernel) {
  const std::string k = lower(kernel);
  for (const auto& [name, isa] : family_kernels(family).kernels)
    if (k == name) return isa;
  return std::nullopt;
}

std::vector<std::string_view> kernel_names(BlasFamily family) {
  std::vector<std::string_view> out;
  for (const auto& k : family_kernels(family).kernels) out.push_back(k.first);
  return out;
}

std::string kernel_for(BlasFamily family, VectorIsa isa, const CpuIsa& cpu) {
  const FamilyKernels f = family_kernels(family);
  if (f.variable.empty()) return "";
  return kernel_at(isa, cpu, f.by_level[0], f.by_level[1], f.by_level[2]);
}

BlasInfo query_blas() {
  BlasInfo info = detail::linked_library();
  info.kernel_isa = kernel_isa(info.family, info.kernel);
  info.kernel_variable = std::string(kernel_variable(info.family));
  if (!info.kernel_variable.empty())
    if (const char* env = std::getenv(info.kernel_variable.c_str())) info.kernel_env = env;
  const KernelMarker marker = read_kernel_marker();
  if (marker.present) {
    info.set_by = marker.by;
    info.library_kernel = marker.library_kernel;
  } else if (!info.kernel_env.empty()) {
    info.set_by = KernelSetBy::User;
  }
  return info;
}

}  // namespace shardroof::hw

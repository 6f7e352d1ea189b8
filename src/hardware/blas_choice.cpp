#include "hardware/blas_choice.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>

#include "hardware/limits.h"

namespace shardroof::hw {
namespace {

bool same_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

std::optional<BlasKernelRequest> parse_blas_kernel(std::string_view text, BlasFamily family) {
  if (same_name(text, "auto")) return BlasKernelRequest{BlasKernelRequest::Mode::Auto, ""};
  if (same_name(text, "keep")) return BlasKernelRequest{BlasKernelRequest::Mode::Keep, ""};
  for (const std::string_view k : kernel_names(family)) {
    if (!same_name(text, k)) continue;
    // OpenBLAS compares case-insensitively; BLIS's names are lower case.
    return BlasKernelRequest{BlasKernelRequest::Mode::Name, std::string(text)};
  }
  return std::nullopt;
}

std::string blas_kernel_argument(int argc, char** argv) {
  const std::string_view flag = "--blas-kernel";
  std::string value;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == flag && i + 1 < argc) value = argv[++i];
    else if (arg.size() > flag.size() && arg.substr(0, flag.size() + 1) == std::string(flag) + "=")
      value = std::string(arg.substr(flag.size() + 1));
  }
  return value;
}

std::string marker_text(KernelSetBy by, std::string_view library_kernel) {
  return std::string(to_string(by)) + ":" + std::string(library_kernel);
}

KernelMarker parse_marker(std::string_view text) {
  KernelMarker m;
  const auto colon = text.find(':');
  if (colon == std::string_view::npos) return m;
  const std::string_view by = text.substr(0, colon);
  for (const KernelSetBy b : {KernelSetBy::Shardroof, KernelSetBy::Flag})
    if (by == to_string(b)) {
      m.present = true;
      m.by = b;
      m.library_kernel = std::string(text.substr(colon + 1));
    }
  return m;
}

KernelMarker read_kernel_marker() {
  const char* text = std::getenv(kKernelMarkerVariable);
  return text ? parse_marker(text) : KernelMarker{};
}

KernelDecision decide_blas_kernel(const BlasKernelRequest& request, const BlasInfo& blas, const CpuIsa& cpu,
                                  const std::function<CorePeak()>& measure) {
  KernelDecision d;
  if (blas.kernel_variable.empty() || request.mode == BlasKernelRequest::Mode::Keep) return d;
  if (request.mode == BlasKernelRequest::Mode::Name) {
    if (same_name(blas.kernel, request.name) || same_name(blas.kernel_env, kernel_setting(blas, request.name))) return d;
    return {true, blas.kernel_variable, kernel_setting(blas, request.name), KernelSetBy::Flag};
  }
  // auto: a user's own choice stands (the verdict warns where it is below).
  if (!blas.kernel_env.empty() || !blas.kernel_isa) return d;
  const auto widest = cpu.widest();
  if (!widest || static_cast<int>(*blas.kernel_isa) >= static_cast<int>(*widest)) return d;
  const KernelVerdict v = judge_blas_kernel(blas, cpu, measure(), coll::DataType::Float);
  if (!v.below_cpu || !*v.below_cpu || v.fix_kernel.empty()) return d;
  return {true, blas.kernel_variable, kernel_setting(blas, v.fix_kernel), KernelSetBy::Shardroof};
}

}  // namespace shardroof::hw

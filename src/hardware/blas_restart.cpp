// choose_blas_kernel (blas_choice.h): the restart before MPI_Init.
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "hardware/blas_choice.h"

namespace shardroof::hw {
namespace {

// A short measurement: the verdict compares levels that differ by 2x or
// more where they differ at all, so tenths of milliseconds do.
constexpr int kQuickRepetitions = 10;
constexpr double kQuickRepetitionS = 2e-4;

}  // namespace

void choose_blas_kernel(int argc, char** argv) {
  if (read_kernel_marker().present) return;  // this is the second start
  const BlasInfo blas = query_blas();
  const std::string argument = blas_kernel_argument(argc, argv);
  // A bad value is named by the command line's parse, on every rank alike.
  const auto request = parse_blas_kernel(argument.empty() ? "auto" : argument, blas.family);
  if (!request) return;
  const CpuIsa& cpu = cpu_isa();
  const KernelDecision d = decide_blas_kernel(*request, blas, cpu, [&] {
    return measure_core_peak(cpu, loops_for(cpu, {coll::DataType::Float}), kQuickRepetitions, kQuickRepetitionS);
  });
  if (!d.restart) return;
  const char* before = std::getenv(d.variable.c_str());
  const std::optional<std::string> saved = before ? std::optional<std::string>(before) : std::nullopt;
  setenv(d.variable.c_str(), d.value.c_str(), 1);
  setenv(kKernelMarkerVariable, marker_text(d.by, blas.kernel).c_str(), 1);
  execv("/proc/self/exe", argv);
  // execv returned: no restart. The library keeps the kernel it loaded
  // with, and the environment says so again.
  unsetenv(kKernelMarkerVariable);
  if (saved) setenv(d.variable.c_str(), saved->c_str(), 1);
  else unsetenv(d.variable.c_str());
}

}  // namespace shardroof::hw

// shardroof runs the CPU's BLAS kernel itself. A library picks its kernel
// when it loads, before main() (blas_kernel.h), so the only way to change
// it is to start again: before MPI_Init, where the library's own choice
// computes below this CPU and the user did not set the library's variable,
// the process executes itself again (execv of /proc/self/exe, the same
// PID) with the variable set. mpirun, srun and a rank started by hand keep
// working, since none of them sees a new process, and no launcher has to
// pass the variable on.
//
//   --blas-kernel auto   (the default) as above
//   --blas-kernel keep   never: the library's own choice, or the user's
//   --blas-kernel NAME   the library's variable set to NAME (a kernel of
//                        the linked library; reproduces a fallback on any
//                        CPU, e.g. OpenBLAS's Prescott)
//
// A marker variable tells the second start what the first did, so the
// record says who set the kernel and the process never starts a third time.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "hardware/blas_kernel.h"
#include "hardware/core_peak.h"
#include "hardware/cpu_isa.h"

namespace shardroof::hw {

struct BlasKernelRequest {
  enum class Mode { Auto, Keep, Name };
  Mode mode = Mode::Auto;
  std::string name;  // Mode::Name: the kernel
};
// "auto", "keep", or a kernel of `family` (case-insensitive, returned in
// the table's spelling); nullopt for anything else.
std::optional<BlasKernelRequest> parse_blas_kernel(std::string_view text, BlasFamily family);
// The value of --blas-kernel in a command line ("--blas-kernel X" or
// "--blas-kernel=X"); "" where absent. Read before MPI_Init, before the
// command line is parsed; the parse checks it again and names a bad value.
std::string blas_kernel_argument(int argc, char** argv);

// The marker the first start leaves for the second.
inline constexpr const char* kKernelMarkerVariable = "SHARDROOF_BLAS_KERNEL_SET";
struct KernelMarker {
  bool present = false;
  KernelSetBy by = KernelSetBy::Library;
  std::string library_kernel;  // the kernel the library chose by itself
};
KernelMarker read_kernel_marker();
// "shardroof:Prescott"
std::string marker_text(KernelSetBy by, std::string_view library_kernel);
KernelMarker parse_marker(std::string_view text);

// Whether to start again, and with what.
struct KernelDecision {
  bool restart = false;
  std::string variable, value;  // where restart: the library's variable and its value
  KernelSetBy by = KernelSetBy::Library;
};
// Pure: `measure` runs the core's loops for the verdict, called only where
// the kernel is narrower than the CPU's widest level (a tie, such as a
// 256-bit kernel on a core that splits 512-bit instructions, needs the
// loops to tell).
KernelDecision decide_blas_kernel(const BlasKernelRequest& request, const BlasInfo& blas, const CpuIsa& cpu,
                                  const std::function<CorePeak()>& measure);

// Before MPI_Init, in main: the whole of the above. Returns only where no
// restart is needed or the restart failed (the process then runs as it is;
// the record says who set the kernel).
void choose_blas_kernel(int argc, char** argv);

}  // namespace shardroof::hw

// Another architecture than x86-64 (no register-only loop is written for
// it), or the simulated build (its hosts are the platform's): the core's
// own peak is not measured there, and the output says so.
#include "hardware/core_loops.h"
#include "util/error.h"

namespace shardroof::hw {

bool loop_available(const CpuIsa&, CoreLoop) { return false; }
double flops_per_iteration(CoreLoop) { return 0; }
void run_core_loop(CoreLoop, std::uint64_t) { throw RuntimeError("no core loop on this architecture"); }
bool clock_loop_available() { return false; }
void run_clock_loop(std::uint64_t) { throw RuntimeError("no clock loop on this architecture"); }

}  // namespace shardroof::hw

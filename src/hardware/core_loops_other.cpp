// Another architecture than x86-64 (no register-only loop is written for
// it), or the simulated build (its hosts are the platform's): the core's
// own peak is not measured there, and the output says so.
#include "hardware/core_loops.h"
#include "util/error.h"

namespace shardroof::hw {

bool loop_available(const CpuIsa&, CoreLoop) { return false; }
double flops_per_iteration(CoreLoop) { return 0; }
void run_core_loop(CoreLoop, std::uint64_t) { throw RuntimeError("no core loop on this architecture"); }
double cycles_per_iteration(ClockChain) { return 0; }
std::string_view to_string(ClockChain chain) { return chain == ClockChain::Multiply ? "imul" : "add"; }
bool clock_loop_available() { return false; }
void run_clock_chain(ClockChain, std::uint64_t) { throw RuntimeError("no clock chain on this architecture"); }
AmxGrant request_amx(const CpuIsa&) { return {false, "no tile loop on this architecture"}; }
double amx_flops_per_iteration() { return 0; }
void run_amx_bf16_loop(std::uint64_t) { throw RuntimeError("no tile loop on this architecture"); }

}  // namespace shardroof::hw

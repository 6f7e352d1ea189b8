// The backend of `--backend cpu` in the simulated build: the CPU backend,
// with its work charged as the simulated platform says (sim/simulated_backend.h;
// cpu/host_backend.cpp is the ordinary build's).
#include <simgrid/host.h>
#include <xbt/config.hpp>

#include <cstdlib>

#include "collectives/simulated_host.h"
#include "cpu/host_backend.h"
#include "cpu/cpu_backend.h"
#include "model/hardware.h"
#include "sim/simulated_backend.h"

namespace shardroof {

namespace {

double property_number(const std::string& key) {
  const std::string text = coll::sim::host_property(key);
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  return !text.empty() && *end == '\0' ? v : 0;
}

// smpi/host-speed: the FLOP/s SMPI takes this machine to run at (a string
// with a unit in SimGrid 3.32, e.g. "6.3e10f" or "20kf").
double benchmark_speed() {
  const std::string text = simgrid::config::get_value<std::string>("smpi/host-speed");
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  const std::string unit = end ? std::string(end) : "";
  if (unit.rfind("kf", 0) == 0) v *= 1e3;
  if (unit.rfind("Mf", 0) == 0) v *= 1e6;
  if (unit.rfind("Gf", 0) == 0) v *= 1e9;
  if (unit.rfind("Tf", 0) == 0) v *= 1e12;
  return v;
}

}  // namespace

std::unique_ptr<ComputeBackend> make_host_backend(int threads) {
  sim::SimulatedCompute c;
  c.injected = coll::sim::host_property("shardroof/compute") == "injected";
  c.preset = coll::sim::host_property("shardroof/preset");
  c.memory_bytes_per_s = property_number("shardroof/memory_bytes_per_s");
  // The preset's names; those the GEMM cannot run in (int8) are left out.
  for (const auto& [name, bytes] : model::preset_datatypes()) {
    (void)bytes;
    const auto type = coll::parse_datatype(name);
    if (const double f = property_number("shardroof/flops/" + name); type && f > 0) c.flops[*type] = f;
  }
  c.host_speed = sg_host_get_speed(sg_host_self());
  c.benchmark_speed = benchmark_speed();
  return sim::make_simulated_backend(make_cpu_backend(threads), std::move(c));
}

}  // namespace shardroof

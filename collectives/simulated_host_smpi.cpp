#include <mpi.h>
#include <simgrid/host.h>

#include <cstdlib>

#include "collectives/simulated_host.h"

namespace shardroof::coll::sim {

std::string host_property(const std::string& key) {
  const char* value = sg_host_get_property_value(sg_host_self(), key.c_str());
  return value ? value : "";
}

std::optional<double> injected_memory_bytes_per_s() {
  if (host_property("shardroof/compute") != "injected") return std::nullopt;
  const std::string text = host_property("shardroof/memory_bytes_per_s");
  char* end = nullptr;
  const double m = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(m > 0)) return std::nullopt;
  return m;
}

void charge_seconds(double seconds) {
  // smpi_execute_benched(t) runs t times the host's speed in flops: exactly
  // t simulated seconds, independent of smpi/host-speed.
  if (seconds > 0) smpi_execute_benched(seconds);
}

}  // namespace shardroof::coll::sim

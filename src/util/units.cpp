#include "util/units.h"

#include <fmt/format.h>

#include <cmath>

namespace shardroof {

std::string format_bytes(std::uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  if (v == std::floor(v)) return fmt::format("{:.0f} {}", v, units[u]);
  return fmt::format("{:.3g} {}", v, units[u]);
}

std::string format_seconds(double seconds) {
  if (seconds < 1e-3) return fmt::format("{:.4g} us", seconds * 1e6);
  if (seconds < 1) return fmt::format("{:.4g} ms", seconds * 1e3);
  return fmt::format("{:.4g} s", seconds);
}

}  // namespace shardroof

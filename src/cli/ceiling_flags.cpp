#include "cli/ceiling_flags.h"

#include <cmath>

#include "cli/values.h"
#include "util/error.h"

namespace shardroof {

std::vector<std::string> apply_ceiling_flags(const CeilingFlags& flags, model::Ceilings& c) {
  std::vector<std::string> given;
  const auto apply = [&](const std::string& text, const char* flag, double& field) {
    if (text.empty()) return;
    field = parse_number(text, flag);
    given.emplace_back(flag);
  };
  apply(flags.flops, "--flops", c.flops_per_s);
  apply(flags.bw, "--bw", c.link_bytes_per_s);
  apply(flags.latency, "--latency", c.latency_s);
  apply(flags.memory_bw, "--memory-bw", c.memory_bytes_per_s);
  if (!flags.reduce_rate.empty()) {
    const double rate = parse_number(flags.reduce_rate, "--reduce-rate");
    if (rate < 0) throw_usage("--reduce-rate: must be 0 (ignore) or more elements/s, got {}", rate);
    c.reduce_s_per_elem = rate > 0 ? 1.0 / rate : 0;
    if (!std::isfinite(c.reduce_s_per_elem))
      throw_usage("--reduce-rate: {} elements/s is too small to invert into seconds per element", rate);
    given.emplace_back("--reduce-rate");
  }
  return given;
}

}  // namespace shardroof

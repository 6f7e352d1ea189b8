#include "model/checked_prediction.h"

#include <algorithm>
#include <cmath>

#include "util/error.h"

namespace shardroof::model {
namespace {

// "C = 1e+300 FLOP/s (--flops), W = 1e-300 B/s (--bw)": what the user can change.
std::string ceilings_text(const Ceilings& c) {
  std::string s = fmt::format("C = {:.4g} FLOP/s (--flops), W = {:.4g} B/s (--bw), a = {:.4g} s (--latency)",
                              c.flops_per_s, c.link_bytes_per_s, c.latency_s);
  if (c.memory_bytes_per_s > 0) s += fmt::format(", M = {:.4g} B/s (--memory-bw)", c.memory_bytes_per_s);
  if (c.reduce_s_per_elem > 0) s += fmt::format(", g = {:.4g} s/element (--reduce-rate)", c.reduce_s_per_elem);
  return s;
}

void check_d_star(std::string_view what, double d, const Ceilings& c) {
  if (!std::isfinite(d))
    throw_usage("{} is not a finite number ({}): the ceilings are absurd", what, ceilings_text(c));
  if (d > kMaxD)
    throw_usage("{} = {:.4g} is beyond any matrix dimension (2^53 = {:.4g}); {}", what, d, kMaxD, ceilings_text(c));
}

}  // namespace

void check_inputs(const Shape& shape, const Ceilings& c) {
  // A rate below one per second is no hardware (and its times overflow
  // every unit the report prints them in).
  const auto rate = [](double v, const char* flag, const char* unit, bool zero_is_off) {
    if (zero_is_off && v == 0) return;
    if (!(v > 0) || !std::isfinite(v)) throw_usage("{}: must be positive, got {}", flag, v);
    if (v < 1) throw_usage("{}: {} {} is less than one per second", flag, v, unit);
  };
  rate(c.flops_per_s, "--flops", "FLOP/s", false);
  rate(c.link_bytes_per_s, "--bw", "bytes/s", false);
  if (!(c.latency_s >= 0) || !std::isfinite(c.latency_s))
    throw_usage("--latency: must be 0 or more seconds, got {}", c.latency_s);
  if (c.memory_bytes_per_s < 0) throw_usage("--memory-bw: must be 0 (off) or more, got {}", c.memory_bytes_per_s);
  rate(c.memory_bytes_per_s, "--memory-bw", "bytes/s", true);
  if (!(c.reduce_s_per_elem >= 0) || !std::isfinite(c.reduce_s_per_elem))
    throw_usage("--reduce-rate: must give 0 or more seconds per element, got {}", c.reduce_s_per_elem);
  if (c.reduce_s_per_elem > 1)
    throw_usage("--reduce-rate: {} elements/s is less than one per second", 1 / c.reduce_s_per_elem);
  if (shape.ranks < 2)
    throw_usage("--ranks: needs at least 2 ranks (one rank communicates nothing), got {}", shape.ranks);
  if (!(shape.B >= 1) || !std::isfinite(shape.B)) throw_usage("--B: must be at least 1, got {}", shape.B);
  if (!(shape.F >= 1) || !std::isfinite(shape.F)) throw_usage("--F: must be at least 1, got {}", shape.F);
  if (!(shape.bytes_per_elem > 0)) throw_usage("--datatype: no size");
}

Prediction checked_predict(const Shape& shape, const Ceilings& c, const std::vector<double>& D_values) {
  check_inputs(shape, c);
  const double comm = t_comm(shape, c);
  if (!std::isfinite(comm))
    throw_usage("T_comm is not a finite number of seconds for B = {}, F = {}: {}", shape.B, shape.F, ceilings_text(c));
  const double d = d_star(shape, c);
  check_d_star("D*", d, c);
  check_d_star("D* with the memory roof", d_star_with_memory(shape, c), c);
  std::vector<double> Ds = D_values;
  if (Ds.empty()) {
    Ds = default_D_values(shape, d);
    Ds.erase(std::remove_if(Ds.begin(), Ds.end(), [](double v) { return v > kMaxD; }), Ds.end());
  }
  for (const double D : Ds) {
    if (!(D <= kMaxD)) throw_usage("--D: {:.0f} is beyond any matrix dimension (2^53 = {:.0f})", D, kMaxD);
    const double math = t_math(shape, c, D);
    if (!std::isfinite(math))
      throw_usage("T_math at D = {:.0f} is not a finite number of seconds: {}", D, ceilings_text(c));
  }
  return predict(shape, c, Ds);
}

}  // namespace shardroof::model

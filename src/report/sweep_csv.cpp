#include <fmt/format.h>

#include "report/sweep_report.h"
#include "report/sweep_text.h"

namespace shardroof {

std::string sweep_csv(const std::vector<sweep::PointRecord>& points, const sweep::SweepAnalysis& a,
                      const sweep::SweepPlan& plan) {
  const bool overlap = plan.overlap > 1;
  std::string out =
      "D,shard,iterations,t_math_median_s,t_math_min_s,t_math_max_s,t_comm_median_s,t_comm_min_s,t_comm_max_s,"
      "t_step_median_s,t_step_min_s,t_step_max_s,flops_per_s,frac_peak,step_flops_per_s,intensity,bound,check,"
      "roof_fraction,t_compute_roof_s,t_memory_roof_s,t_floor_s";
  if (overlap) out += ",t_overlap_median_s,t_overlap_min_s,t_overlap_max_s,overlap_efficiency,overlap_check";
  out += "\n";
  for (std::size_t i = 0; i < points.size(); ++i) {
    const sweep::PointRecord& p = points[i];
    const sweep::PointDerived& d = a.points.at(i);
    out += fmt::format("{},{},{},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.6g},{:.4f},{:.6g},"
                       "{:.6g},{},{},{:.4f},{:.9g},{:.9g},{:.9g}",
                       p.D, p.shard_max, p.iterations, p.t_math.median, p.t_math.min, p.t_math.max, p.t_comm.median,
                       p.t_comm.min, p.t_comm.max, p.t_step.median, p.t_step.min, p.t_step.max, p.flops_per_s,
                       d.frac_peak, d.step_flops_per_s, d.intensity, sweep_text::bound(d), sweep_text::check(p.check),
                       d.regime.roof_fraction, d.regime.roofs.compute_s, d.regime.roofs.memory_s,
                       d.regime.roofs.floor_s);
    if (overlap && p.t_overlap) {
      // An undefined efficiency is an empty field.
      const auto& e = d.overlap;
      out += fmt::format(",{:.9g},{:.9g},{:.9g},{},{}", p.t_overlap->median, p.t_overlap->min, p.t_overlap->max,
                         e.value ? fmt::format("{:.6g}", *e.value) : std::string(), sweep_text::check(p.overlap_check));
    }
    out += "\n";
  }
  return out;
}

}  // namespace shardroof

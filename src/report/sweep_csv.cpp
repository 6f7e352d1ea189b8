#include <fmt/format.h>

#include "report/sweep_report.h"
#include "report/sweep_text.h"

namespace shardroof {

std::string sweep_csv(const std::vector<sweep::PointRecord>& points, const sweep::SweepAnalysis& a,
                      const sweep::SweepPlan& plan) {
  const bool overlap = plan.overlap.enabled();
  // The first column is the swept dimension: D, or with fsdp the batch B.
  std::string out =
      sweep::swept_name(plan) + ",shard,iterations,t_math_median_s,t_math_min_s,t_math_max_s,t_comm_median_s,t_comm_min_s,t_comm_max_s,"
      "t_step_median_s,t_step_min_s,t_step_max_s,flops_per_s,frac_peak,step_flops_per_s,intensity,bound,check,"
      "roof_fraction,t_compute_roof_s,t_memory_roof_s,t_floor_s";
  // With --overlap the columns after overlap_check describe the first K
  // timed (auto's choice); the JSON holds every K.
  if (overlap)
    out += ",t_overlap_median_s,t_overlap_min_s,t_overlap_max_s,overlap_efficiency,overlap_check,overlap_chunks,"
           "t_overlap_predicted_s,overlap_predicted_error,t_overlap_model_s,t_overlap_ideal_s,overlap_model_error,pipeline_efficiency,thinner_gemms_s,"
           "chunk_latency_s,link_model_s,collectives_alone_s,gemm_interference_s,comm_interference_s,hand_over_s,"
           "other_s,transport_cpu_cores,gemm_slowdown_applied,gemm_slowdown_measured,comm_slowdown_applied,hidden_share,"
           "hidden_share_predicted,overlap_limit";
  if (plan.prefetch.enabled)
    out += ",t_serial_median_s,t_prefetch_median_s,t_prefetch_min_s,t_prefetch_max_s,t_prefetch_predicted_s,"
           "prefetch_predicted_error,prefetch_efficiency,prefetch_check";
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
    } else if (overlap) {
      out += ",,,,,";  // auto chose no chunks here
    }
    if (overlap) {
      const int chunks = p.overlap_choice ? p.overlap_choice->chosen
                         : p.overlap_runs.empty() ? 1
                                                  : p.overlap_runs.front().chunks;
      out += fmt::format(",{}", chunks);
      if (!d.overlap_runs.empty()) {
        const sweep::OverlapRunAnalysis& r = d.overlap_runs.front();
        const auto opt = [](bool has, double v) { return has ? fmt::format("{:.9g}", v) : std::string(); };
        out += fmt::format(",{:.9g},{:.6g},{:.9g},{:.9g},{:.6g},{},{:.9g},{:.9g},{:.9g},{},{},{},{},{}",
                           r.model.t_predicted, r.predicted_error, r.model.t_model,
                           r.model.t_ideal, r.model_error, r.efficiency ? fmt::format("{:.6g}", *r.efficiency) : "",
                           r.model.thinner_gemms, r.model.chunk_latency, r.model.link_model,
                           opt(r.stamped, r.gap.collectives_alone), opt(r.stamped, r.gap.gemm_interference),
                           opt(r.stamped, r.gap.comm_interference), opt(r.stamped, r.gap.hand_over),
                           opt(r.stamped, r.gap.other));
        const auto first = [](const auto& v) { return v ? fmt::format("{:.6g}", *v) : std::string(); };
        const sweep::OverlapRun& run = p.overlap_runs.front();
        out += fmt::format(",{},{:.6g},{},{:.6g},{},{},{}",
                           run.transport_cpu ? fmt::format("{:.6g}", run.transport_cpu->cores()) : std::string(),
                           r.interference.gemm,
                           r.measured_interference ? fmt::format("{:.6g}", r.measured_interference->gemm)
                                                   : std::string(),
                           r.interference.comm, first(r.hidden), first(r.hidden_predicted), r.limit);
      } else {
        out += ",,,,,,,,,,,,,,,,,,,,,";
      }
    }
    if (plan.prefetch.enabled) {
      if (p.prefetch && d.prefetch) {
        const auto& r = *p.prefetch;
        const auto& e = d.prefetch->efficiency;
        out += fmt::format(",{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.6g},{},{}", r.t_serial.median, r.t_prefetch.median,
                           r.t_prefetch.min, r.t_prefetch.max, d.prefetch->model.t_predicted,
                           d.prefetch->predicted_error, e.value ? fmt::format("{:.6g}", *e.value) : std::string(),
                           sweep_text::check(r.check));
      } else {
        out += ",,,,,,,,";
      }
    }
    out += "\n";
  }
  return out;
}

}  // namespace shardroof

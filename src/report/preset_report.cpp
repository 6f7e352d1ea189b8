#include "report/preset_report.h"

#include <fmt/format.h>

namespace shardroof {

namespace {

std::string d_text(double d) { return fmt::format("{:.1f}", d); }

nlohmann::json prediction_json(const model::Prediction& p) {
  nlohmann::json j = {{"ceilings",
                       {{"flops_per_s", p.ceilings.flops_per_s},
                        {"link_bytes_per_s", p.ceilings.link_bytes_per_s},
                        {"latency_s", p.ceilings.latency_s},
                        {"memory_bytes_per_s", p.ceilings.memory_bytes_per_s},
                        {"reduce_s_per_elem", p.ceilings.reduce_s_per_elem}}},
                      {"critical_intensity", p.critical_intensity},
                      {"D_star_bandwidth", p.d_star_bandwidth},
                      {"D_star", p.d_star},
                      {"D_star_memory", p.d_star_memory},
                      {"T_comm_s", p.t_comm},
                      {"points", nlohmann::json::array()}};
  for (const auto& pt : p.points)
    j["points"].push_back({{"D", pt.D},
                           {"T_math_s", pt.t_math},
                           {"T_comm_s", pt.t_comm},
                           {"frac_peak_overlap", pt.frac_peak_overlap},
                           {"frac_peak_no_overlap", pt.frac_peak_no_overlap}});
  return j;
}

}  // namespace

void print_preset_comparison(std::ostream& out, const ModelHardware& target, const model::PresetComparison& cmp) {
  const auto& link = target.hw.link(target.link);
  out << fmt::format("#\n# --model-hw {} --model-link {} ({}; {}): the same shapes, predicted\n", target.hw.name,
                     target.link, target.hw.origin, link.description);
  out << fmt::format("# {:<40} {:>12} {:>12} {:>12} {:>10} {:>10}\n", "", "C (FLOP/s)", "W (B/s)", "alpha (s)",
                     "D* (C)", "D* (C, M)");
  const auto row = [&](const std::string& label, const model::Prediction& p) {
    out << fmt::format("# {:<40} {:>12.4g} {:>12.4g} {:>12.4g} {:>10} {:>10}\n", label, p.ceilings.flops_per_s,
                       p.ceilings.link_bytes_per_s, p.ceilings.latency_s, d_text(p.d_star), d_text(p.d_star_memory));
  };
  row("this machine (C_peak, M, fitted link)", cmp.measured);
  row(fmt::format("{} {} ({})", target.hw.name, target.link, target.datatype), cmp.preset);
  row(fmt::format("hybrid: this GEMM, {} {}", target.hw.name, target.link), cmp.hybrid);
  out << "# D* (C): compute roof only; D* (C, M): with the memory roof too (0: memory-bound from D = 0).\n"
         "# The hybrid keeps this machine's C_peak, M and g.\n";
}

nlohmann::json preset_comparison_json(const ModelHardware& target, const model::PresetComparison& cmp) {
  return {{"preset", target.hw.name},
          {"origin", target.hw.origin},
          {"link", target.link},
          {"datatype", target.datatype},
          {"measured", prediction_json(cmp.measured)},
          {"on_preset", prediction_json(cmp.preset)},
          {"hybrid", prediction_json(cmp.hybrid)}};
}

}  // namespace shardroof

#include "report/sweep_report.h"

#include <fmt/format.h>

#include <cmath>

#include "cli/values.h"
#include "timing/timing.h"

namespace shardroof {
namespace {

nlohmann::json stats_json(const TimeStats& t) { return {{"median", t.median}, {"min", t.min}, {"max", t.max}}; }

nlohmann::json optional_json(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

std::string bound_name(const sweep::PointRecord& p) {
  return sweep::compute_bound(p) ? "compute" : "communication";
}

std::string check_text(const sweep::PointCheck& c) {
  if (!c.checked) return "off";
  if (c.method.empty() || c.method == "none") return "n/a";
  return c.wrong == 0 ? "ok" : fmt::format("FAIL({})", c.wrong);
}

// The console's one check column: the step's check and, with --overlap, the
// overlapped step's; FAIL counts the wrong elements (rows) of both.
std::string combined_check_text(const sweep::PointRecord& p) {
  if (!p.t_overlap || !p.overlap_check.checked) return check_text(p.check);
  const long long wrong = p.check.wrong + p.overlap_check.wrong;
  if (wrong > 0) return fmt::format("FAIL({})", wrong);
  return check_text(p.check);
}

nlohmann::json check_json(const sweep::PointCheck& c) {
  if (!c.checked) return {{"passed", nullptr}, {"method", "off"}};
  return {{"passed", c.passed()},
          {"method", c.method},
          {"wrong", c.wrong},
          {"tested", c.tested},
          {"worst_error_over_tolerance", c.worst_ratio}};
}

std::string efficiency_text(const sweep::OverlapEfficiency& e) {
  return e.value ? fmt::format("{:.2f}", *e.value) : std::string("undef");
}

std::string fmt_d(double d) { return d >= 100 ? fmt::format("{:.0f}", d) : fmt::format("{:.1f}", d); }

double frac_peak(const sweep::PointRecord& p, const sweep::RunCeilings& c) {
  return c.peak_gemm.flops_per_s > 0 ? p.flops_per_s / c.peak_gemm.flops_per_s : 0;
}

}  // namespace

nlohmann::json sweep_settings_json(const sweep::SweepPlan& plan, const SweepContext& ctx) {
  return {{"B", plan.B},
          {"F", plan.F},
          {"D", plan.D},
          {"datatype", coll::to_string(plan.type)},
          {"bytes_per_element", coll::size_of(plan.type)},
          {"collective", coll::to_string(plan.kind)},
          {"impl", to_string(plan.impl)},
          {"algorithm", ctx.collective},
          {"backend", to_string(plan.backend)},
          {"transport", to_string(plan.transport)},
          {"backend_detail", ctx.backend},
          {"threads", plan.threads},
          {"arithmetic", ctx.arithmetic},
          {"timed_gemm", ctx.timed_gemm},
          {"warmup", plan.timing.warmup},
          {"iters", plan.timing.iters},
          {"check", plan.check},
          {"seed", plan.seed},
          {"segment_bytes", plan.ring.segment_bytes},
          {"overlap", plan.overlap},
          {"sharding", "D split in balanced contiguous blocks; the first D % N ranks hold one more"}};
}

nlohmann::json ceilings_json(const sweep::RunCeilings& c, const sweep::SweepAnalysis& a) {
  nlohmann::json sizes = nlohmann::json::array(), times = nlohmann::json::array();
  for (std::size_t i = 0; i < c.collective.bytes.size(); ++i) {
    sizes.push_back(c.collective.bytes[i]);
    times.push_back(stats_json(c.collective.time[i]));
  }
  return {
      {"C_flops_per_s", c.peak_gemm.flops_per_s},
      {"W_bytes_per_s", c.link.W_bytes_per_s},
      {"alpha_s", c.link.alpha_s},
      {"link_source", c.link_source.empty() ? std::string("collective fit") : c.link_source},
      {"g_s_per_element", a.link.reduce_s_per_elem},
      {"M_bytes_per_s", c.memory.triad_bytes_per_s},
      {"C_peak_gemm",
       {{"m", c.peak_gemm.m}, {"n", c.peak_gemm.n}, {"k", c.peak_gemm.k}, {"time_s", stats_json(c.peak_gemm.time)}}},
      {"link_fit",
       {{"model", "T(S) = intercept + slope*S over the sizes below; alpha = intercept/hops, "
                  "W = (hops/N) / (slope - (N-1)/N * g/s)"},
        {"sizes_bytes", sizes},
        {"time_s", times},
        {"intercept_s", c.collective.line.intercept},
        {"slope_s_per_byte", c.collective.line.slope},
        {"r2", c.collective.line.r2},
        {"through_origin", c.collective.line.through_origin},
        {"W_effective_bytes_per_s", c.link.W_effective_bytes_per_s},
        {"reduction_separated", c.link.reduction_separated}}},
      {"reduction",
       {{"elements", c.reduce.count}, {"time_s", stats_json(c.reduce.time)}, {"s_per_element", c.reduce.s_per_elem}}},
      {"memory",
       {{"elements_per_array", c.memory.elements},
        {"copy_bytes_per_s", c.memory.copy_bytes_per_s},
        {"triad_bytes_per_s", c.memory.triad_bytes_per_s}}},
      {"t_comm_model_s", a.t_comm_model_s},
  };
}

nlohmann::json point_json(const sweep::PointRecord& p, const sweep::SweepAnalysis& a, const sweep::RunCeilings& c,
                          const sweep::SweepPlan& plan) {
  nlohmann::json j = {{"D", p.D},
                      {"shard", p.shard_max},
                      {"t_math_s", stats_json(p.t_math)},
                      {"t_comm_s", stats_json(p.t_comm)},
                      {"t_step_s", stats_json(p.t_step)},
                      {"flops_per_s", p.flops_per_s},
                      {"frac_peak", frac_peak(p, c)},
                      {"step_flops_per_s", sweep::step_flops_per_s(plan, p)},
                      {"intensity", sweep::intensity(a, p)},
                      {"bound", bound_name(p)},
                      {"check", check_json(p.check)}};
  if (p.t_overlap) {
    const auto e = sweep::overlap_efficiency(p);
    j["t_overlap_s"] = stats_json(*p.t_overlap);
    j["overlap_efficiency"] = optional_json(e.value);
    if (!e.value) j["overlap_efficiency_undefined"] = e.undefined;
    j["overlap_check"] = check_json(p.overlap_check);
  }
  return j;
}

nlohmann::json crossover_json(const sweep::SweepAnalysis& a) {
  nlohmann::json j = {
      {"D_empirical", optional_json(a.empirical.D)},
      {"D_predicted", a.predicted ? nlohmann::json(a.predicted->D) : nlohmann::json(nullptr)},
      {"D_peak", optional_json(a.D_peak)},
      {"D_roofs", optional_json(a.D_roofs)},
      {"rel_error", optional_json(a.rel_error)},
      {"bracketed", a.empirical.D.has_value()},
      {"sign_changes", a.empirical.sign_changes},
      {"C_at_D_predicted", a.predicted ? nlohmann::json(a.predicted->C_at_D) : nlohmann::json(nullptr)},
      {"predicted_extrapolated", a.predicted ? nlohmann::json(a.predicted->extrapolated) : nlohmann::json(nullptr)},
      {"critical_intensity", a.peak.link_bytes_per_s > 0 ? nlohmann::json(model::critical_intensity(a.peak))
                                                         : nlohmann::json(nullptr)},
      {"method",
       "D_empirical: log-log interpolation of T_math/T_comm between the neighbouring points where it crosses 1; "
       "D_predicted: the model's D* with C = per-point GEMM rate interpolated in D, W/alpha/g from the fit; "
       "D_peak: the same formula with C_peak; D_roofs: T_math = max(compute at C_peak, memory at M) equals T_comm"}};
  if (!a.empirical.D) j["extend"] = a.empirical.extend;
  return j;
}

std::string sweep_csv(const std::vector<sweep::PointRecord>& points, const sweep::SweepAnalysis& a,
                      const sweep::RunCeilings& c, const sweep::SweepPlan& plan) {
  const bool overlap = plan.overlap > 1;
  std::string out =
      "D,shard,t_math_median_s,t_math_min_s,t_math_max_s,t_comm_median_s,t_comm_min_s,t_comm_max_s,"
      "t_step_median_s,t_step_min_s,t_step_max_s,flops_per_s,frac_peak,step_flops_per_s,intensity,bound,check";
  if (overlap) out += ",t_overlap_median_s,t_overlap_min_s,t_overlap_max_s,overlap_efficiency,overlap_check";
  out += "\n";
  for (const auto& p : points) {
    out += fmt::format("{},{},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.6g},{:.4f},{:.6g},{:.6g},{},{}",
                       p.D, p.shard_max, p.t_math.median, p.t_math.min, p.t_math.max, p.t_comm.median,
                       p.t_comm.min, p.t_comm.max, p.t_step.median, p.t_step.min, p.t_step.max, p.flops_per_s,
                       frac_peak(p, c), sweep::step_flops_per_s(plan, p), sweep::intensity(a, p), bound_name(p),
                       check_text(p.check));
    if (overlap && p.t_overlap) {
      // An undefined efficiency is an empty field.
      const auto e = sweep::overlap_efficiency(p);
      out += fmt::format(",{:.9g},{:.9g},{:.9g},{},{}", p.t_overlap->median, p.t_overlap->min, p.t_overlap->max,
                         e.value ? fmt::format("{:.6g}", *e.value) : std::string(), check_text(p.overlap_check));
    }
    out += "\n";
  }
  return out;
}

void SweepConsoleReporter::header(const sweep::SweepPlan& plan, const SweepContext& ctx) {
  out_ << fmt::format("# shardroof sweep: Z[B,F] = X[B,D] @ Y[D,F], D sharded over {} rank{}\n", ctx.ranks,
                      ctx.ranks == 1 ? "" : "s");
  out_ << fmt::format("# B = {}, F = {}, {} ({} bytes), {} {}, {}\n", plan.B, plan.F, coll::to_string(plan.type),
                      coll::size_of(plan.type), coll::to_string(plan.kind), ctx.collective, ctx.backend);
  out_ << "# GEMM arithmetic: " << ctx.arithmetic << "\n";
  out_ << "# timed: T_math = " << ctx.timed_gemm << "; T_comm = the collective of the B x F partial sum; "
       << "T_step = both, one after the other\n";
  if (plan.overlap > 1)
    out_ << fmt::format("# T_overlap = the step in {} chunks of rows of Z, chunk k's collective on a communication "
                        "thread{} while chunk k+1's GEMM computes; eff = (T_step - T_overlap) / (T_step - "
                        "max(T_math, T_comm)), undef where that denominator is below {:g}% of T_step\n",
                        plan.overlap, plan.backend == Backend::Cuda ? " (GEMMs on a second CUDA stream)" : "",
                        100 * sweep::kMinHideableFraction);
  out_ << "# " << kAggregationNote << "\n";
}

void SweepConsoleReporter::ceilings(const sweep::RunCeilings& c, const sweep::SweepAnalysis& a,
                                    const SweepContext& ctx) {
  out_ << fmt::format("# ceilings (measured now, on these {} ranks, all at once):\n", ctx.ranks);
  out_ << fmt::format("#   C_peak = {:.2f} GFLOP/s per rank ({}x{}x{} GEMM)\n", c.peak_gemm.flops_per_s / 1e9,
                      c.peak_gemm.m, c.peak_gemm.n, c.peak_gemm.k);
  std::string sizes;
  for (const auto b : c.collective.bytes) sizes += (sizes.empty() ? "" : ", ") + format_bytes(b);
  const sweep::LinkFit& fitted = c.link_source.empty() ? c.link : c.collective_link;
  out_ << fmt::format("#   W = {:.3f} GB/s one-way, alpha = {:.2f} us   (least squares over S = {}; r2 = {:.4f}{})\n",
                      fitted.W_bytes_per_s / 1e9, fitted.alpha_s * 1e6, sizes, c.collective.line.r2,
                      c.collective.line.through_origin ? ", intercept forced to 0" : "");
  out_ << fmt::format("#   g = {:.3f} ns per element reduced{}; M = {:.2f} GB/s per rank (triad)\n",
                      c.reduce.s_per_elem * 1e9,
                      c.link.reduction_separated ? "" : " (larger than the fitted slope: folded into W)",
                      c.memory.triad_bytes_per_s / 1e9);
  if (!c.link_source.empty())
    out_ << fmt::format("#   model W = {:.3f} GB/s, alpha = {:.2f} us from --link-from {} (instead of the fit above)\n",
                        c.link.W_bytes_per_s / 1e9, c.link.alpha_s * 1e6, c.link_source);
  out_ << fmt::format("#   model T_comm = {:.3f} ms; critical intensity C_peak/W = {:.1f} FLOP/byte\n",
                      a.t_comm_model_s * 1e3, a.peak.link_bytes_per_s > 0 ? model::critical_intensity(a.peak) : 0.0);
}

void SweepConsoleReporter::table_header(const sweep::SweepPlan& plan) {
  out_ << fmt::format("{:>8} {:>7} {:>11} {:>11} {:>11}", "D", "D/N", "T_math(ms)", "T_comm(ms)", "T_step(ms)");
  if (plan.overlap > 1) out_ << fmt::format(" {:>11} {:>6}", "T_ovlp(ms)", "eff");
  out_ << fmt::format(" {:>9} {:>6} {:>10} {:>13} {:>6}\n", "GFLOP/s", "%peak", "intensity", "bound", "check");
}

void SweepConsoleReporter::row(const sweep::PointRecord& p, const sweep::SweepAnalysis& a,
                               const sweep::RunCeilings& c) {
  out_ << fmt::format("{:>8} {:>7} {:>11.4f} {:>11.4f} {:>11.4f}", p.D, p.shard_max, p.t_math.median * 1e3,
                      p.t_comm.median * 1e3, p.t_step.median * 1e3);
  if (p.t_overlap)
    out_ << fmt::format(" {:>11.4f} {:>6}", p.t_overlap->median * 1e3, efficiency_text(sweep::overlap_efficiency(p)));
  out_ << fmt::format(" {:>9.2f} {:>6.1f} {:>10.1f} {:>13} {:>6}\n", p.flops_per_s / 1e9, 100 * frac_peak(p, c),
                      sweep::intensity(a, p), bound_name(p), combined_check_text(p))
       << std::flush;
}

std::string sweep_summary_text(const std::vector<sweep::PointRecord>& points, const sweep::SweepAnalysis& a,
                               const sweep::RunCeilings& c, const sweep::SweepPlan& plan) {
  std::string s;
  if (a.shape.ranks < 2) {
    s = "one rank: there is no communication, so no crossover (run with 2 or more ranks)";
  } else if (a.empirical.D) {
    s = fmt::format("crossover at D = {}", fmt_d(*a.empirical.D));
    if (a.predicted && a.rel_error)
      s += fmt::format(" (predicted {}, error {:+.1f}%)", fmt_d(a.predicted->D), 100 * *a.rel_error);
    s += fmt::format("; compute-bound above D = {}", fmt_d(*a.empirical.D));
  } else {
    const auto& edge = a.empirical.extend == "down" ? points.front() : points.back();
    s = fmt::format("crossover not bracketed: every point is {}-bound; extend D {} (beyond {})",
                    a.empirical.extend == "down" ? "compute" : "communication", a.empirical.extend, edge.D);
    if (a.predicted) s += fmt::format("; predicted D* = {}", fmt_d(a.predicted->D));
  }
  if (!points.empty()) {
    const auto& last = points.back();
    const double peak = c.peak_gemm.flops_per_s;
    if (peak > 0)
      s += fmt::format("; at the largest D ({}), {:.0f}% of peak ({:.0f}% for the GEMM alone)", last.D,
                       100 * sweep::step_flops_per_s(plan, last) / peak, 100 * last.flops_per_s / peak);
  }
  s += ".";
  if (a.D_peak) {
    s += fmt::format("\nfrom C_peak alone D* = {}", fmt_d(*a.D_peak));
    if (a.D_roofs) s += fmt::format("; with the memory roof too (M) D* = {}", fmt_d(*a.D_roofs));
    s += ".";
  }
  if (plan.overlap > 1 && !points.empty()) {
    if (const auto spread = sweep::overlap_efficiency_spread(points)) {
      s += fmt::format("\noverlap in {} chunks hid a median {:.0f}% of the hideable time (T_step - max(T_math, "
                       "T_comm)) over the {} point{} where it is defined (min {:.0f}%, max {:.0f}%).",
                       plan.overlap, 100 * spread->median, spread->points, spread->points == 1 ? "" : "s",
                       100 * spread->min, 100 * spread->max);
    } else {
      s += fmt::format("\noverlap in {} chunks: the efficiency is undefined at every point (T_step - max(T_math, "
                       "T_comm) below {:g}% of T_step).",
                       plan.overlap, 100 * sweep::kMinHideableFraction);
    }
  }
  return s;
}

void SweepConsoleReporter::summary(const std::vector<sweep::PointRecord>& points, const sweep::SweepAnalysis& a,
                                   const sweep::RunCeilings& c, const sweep::SweepPlan& plan) {
  out_ << "\n" << sweep_summary_text(points, a, c, plan) << "\n";
  long long wrong = 0;
  for (const auto& p : points) wrong += p.check.wrong + p.overlap_check.wrong;
  if (plan.check)
    out_ << (wrong == 0 ? (plan.overlap > 1 ? "# every point's distributed Z checked, after the step and after the "
                                              "overlapped step: ok\n"
                                            : "# every point's distributed Z checked: ok\n")
                        : fmt::format("# WRONG RESULTS: {} elements/rows outside tolerance\n", wrong));
}

}  // namespace shardroof

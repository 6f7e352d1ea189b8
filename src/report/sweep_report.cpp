#include "report/sweep_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "cli/values.h"
#include "timing/stats.h"

namespace shardroof {
namespace {

nlohmann::json stats_json(const TimeStats& t) { return {{"median", t.median}, {"min", t.min}, {"max", t.max}}; }

nlohmann::json interval_json(const std::optional<sweep::Interval>& i) {
  if (!i) return nullptr;
  return nlohmann::json::array({i->low > 0 ? nlohmann::json(i->low) : nlohmann::json(nullptr),
                                std::isfinite(i->high) ? nlohmann::json(i->high) : nlohmann::json(nullptr)});
}

nlohmann::json optional_json(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

std::string bound_name(const sweep::PointDerived& d) { return d.compute_bound ? "compute" : "communication"; }

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

}  // namespace

nlohmann::json sweep_settings_json(const sweep::SweepPlan& plan, const SweepContext& ctx) {
  return {{"B", plan.B},
          {"F", plan.F},
          {"D", plan.search ? nlohmann::json("auto") : nlohmann::json(plan.D)},
          {"budget_s", plan.search ? nlohmann::json(plan.budget_s) : nlohmann::json(nullptr)},
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
  nlohmann::json probe = nullptr;
  if (c.link.probe) {
    const auto& p = *c.link.probe;
    nlohmann::json times = nlohmann::json::array();
    for (const auto& t : p.step_time) times.push_back(stats_json(t));
    probe = {{"pattern", "every rank sends to its right neighbour and receives from its left one, all at once"},
             {"sizes_bytes", p.bytes},
             {"time_s", times},
             {"W_bytes_per_s", p.fit.valid ? nlohmann::json(p.fit.W_bytes_per_s) : nlohmann::json(nullptr)},
             {"alpha_s", p.fit.valid ? nlohmann::json(p.fit.alpha_s) : nlohmann::json(nullptr)},
             {"bandwidth_regime_bytes", p.fit.bandwidth_sizes},
             {"latency_regime_bytes", p.fit.latency_sizes},
             {"fit_max_rel_residual", p.fit.max_rel_residual},
             {"fit_trusted", p.fit.trusted()},
             {"wrong", p.wrong}};
  }
  return {
      {"C_flops_per_s", c.peak_gemm.flops_per_s},
      {"M_bytes_per_s", c.memory.triad_bytes_per_s},
      {"g_s_per_element", c.reduce.s_per_elem},
      {"W_bytes_per_s", c.link.W_bytes_per_s},
      {"alpha_s", c.link.alpha_s},
      {"link_source", c.link.source},
      {"ring_probe", probe},
      {"collective_at_S",
       {{"bytes", c.collective.bytes},
        {"time_s", stats_json(c.collective.time)},
        {"iterations", c.collective.time.samples.size()}}},
      {"t_comm_measured_s", a.t_comm_measured_s},
      {"t_comm_measured_samples", a.t_comm_samples},
      {"t_comm_run_s", a.t_comm_run_s},
      {"t_comm_run_samples", a.t_comm_run_samples},
      {"t_comm_points_median_range_s", {a.t_comm_points_min_s, a.t_comm_points_max_s}},
      {"W_eff_bytes_per_s", a.W_eff_bytes_per_s},
      {"t_comm_book_s", a.t_comm_book_s},
      {"C_peak_gemm",
       {{"m", c.peak_gemm.m}, {"n", c.peak_gemm.n}, {"k", c.peak_gemm.k}, {"time_s", stats_json(c.peak_gemm.time)}}},
      {"reduction",
       {{"elements", c.reduce.count}, {"time_s", stats_json(c.reduce.time)}, {"s_per_element", c.reduce.s_per_elem}}},
      {"memory",
       {{"elements_per_array", c.memory.elements},
        {"copy_bytes_per_s", c.memory.copy_bytes_per_s},
        {"triad_bytes_per_s", c.memory.triad_bytes_per_s}}},
  };
}

nlohmann::json point_json(const sweep::PointRecord& p, const sweep::PointDerived& d) {
  nlohmann::json j = {{"D", p.D},
                      {"shard", p.shard_max},
                      {"iterations", p.iterations},
                      {"t_math_s", stats_json(p.t_math)},
                      {"t_comm_s", stats_json(p.t_comm)},
                      {"t_step_s", stats_json(p.t_step)},
                      {"flops_per_s", p.flops_per_s},
                      {"frac_peak", d.frac_peak},
                      {"step_flops_per_s", d.step_flops_per_s},
                      {"intensity", d.intensity},
                      {"bound", bound_name(d)},
                      {"check", check_json(p.check)}};
  if (p.t_overlap) {
    const auto& e = d.overlap;
    j["t_overlap_s"] = stats_json(*p.t_overlap);
    j["overlap_efficiency"] = optional_json(e.value);
    if (!e.value) j["overlap_efficiency_undefined"] = e.undefined;
    j["overlap_check"] = check_json(p.overlap_check);
  }
  return j;
}

nlohmann::json crossover_json(const sweep::SweepAnalysis& a, const SearchReport& search) {
  const auto predicted = [](const std::optional<sweep::PredictedCrossover>& p, auto field) {
    return p ? nlohmann::json((*p).*field) : nlohmann::json(nullptr);
  };
  nlohmann::json crossings = nlohmann::json::array();
  for (const auto& c : a.empirical.crossings)
    crossings.push_back({{"D", c.D}, {"direction", c.upward ? "up" : "down"}, {"between", {c.D_below, c.D_above}}});
  nlohmann::json budget = nullptr;
  if (a.budget)
    budget = {{"D_book_peak", a.budget->D_book_peak},
              {"C_at_D_empirical", a.budget->C_at_D},
              {"compute_efficiency", a.budget->compute_efficiency},
              {"comm_efficiency", a.budget->comm_efficiency},
              {"residual", a.budget->residual},
              {"formula", "D_empirical = D_book_peak x compute_efficiency / comm_efficiency x residual"}};
  nlohmann::json j = {
      {"D_empirical", optional_json(a.empirical.D)},
      {"D_empirical_ci", interval_json(a.interval)},
      {"D_empirical_ci_level", sweep::kIntervalLevel},
      {"D_predicted", predicted(a.predicted, &sweep::PredictedCrossover::D)},
      {"rel_error", optional_json(a.rel_error)},
      {"D_book", predicted(a.book_predicted, &sweep::PredictedCrossover::D)},
      {"book_rel_error", optional_json(a.book_rel_error)},
      {"D_peak", optional_json(a.D_peak)},
      {"D_roofs", optional_json(a.D_roofs)},
      {"budget", budget},
      {"kind", sweep::to_string(a.empirical.kind)},
      {"bracketed", a.empirical.D.has_value()},
      {"sign_changes", a.empirical.sign_changes()},
      {"crossings", crossings},
      {"C_at_D_predicted", predicted(a.predicted, &sweep::PredictedCrossover::C_at_D)},
      {"predicted_extrapolated", predicted(a.predicted, &sweep::PredictedCrossover::extrapolated)},
      {"C_at_D_book", predicted(a.book_predicted, &sweep::PredictedCrossover::C_at_D)},
      {"book_extrapolated", predicted(a.book_predicted, &sweep::PredictedCrossover::extrapolated)},
      {"W_eff_bytes_per_s", a.W_eff_bytes_per_s},
      {"critical_intensity",
       a.critical_intensity() > 0 ? nlohmann::json(a.critical_intensity()) : nlohmann::json(nullptr)},
      {"method",
       "D_empirical: log-log interpolation of T_math/T_comm between the neighbouring points where it first turns "
       "from below 1 to 1 or more; D_empirical_ci: percentile bootstrap of the per-iteration samples at those two "
       "points (2000 replicates of the medians); D_predicted (calibrated): the model's D* with T_comm = the "
       "collective's median at S (W_eff) and C = the per-point GEMM rate interpolated in D; D_book: the book's "
       "model with W and alpha of the link (ring probe or --link-from), g of the reduction kernel and the same "
       "C; D_peak: the calibrated model with C_peak, = (N-1)*s*critical_intensity (AllReduce; half for "
       "ReduceScatter); D_roofs: the same with the memory roof M"}};
  if (!a.empirical.extend().empty()) j["extend"] = a.empirical.extend();
  if (search.search) {
    nlohmann::json log = nlohmann::json::array();
    for (const auto& r : search.search->log())
      log.push_back({{"D", r.D}, {"iterations", r.iters}, {"wall_s", r.wall_s}, {"why", r.why}});
    j["search"] = {{"budget_s", search.search->plan().budget_s},
                   {"target_half_width", search.search->plan().target},
                   {"D_start", search.search->plan().D_start},
                   {"stop", sweep::to_string(search.stop.stop)},
                   {"why", search.stop.why},
                   {"elapsed_s", search.elapsed_s},
                   {"measurements", log}};
  }
  return j;
}

std::string sweep_csv(const std::vector<sweep::PointRecord>& points, const sweep::SweepAnalysis& a,
                      const sweep::SweepPlan& plan) {
  const bool overlap = plan.overlap > 1;
  std::string out =
      "D,shard,iterations,t_math_median_s,t_math_min_s,t_math_max_s,t_comm_median_s,t_comm_min_s,t_comm_max_s,"
      "t_step_median_s,t_step_min_s,t_step_max_s,flops_per_s,frac_peak,step_flops_per_s,intensity,bound,check";
  if (overlap) out += ",t_overlap_median_s,t_overlap_min_s,t_overlap_max_s,overlap_efficiency,overlap_check";
  out += "\n";
  for (std::size_t i = 0; i < points.size(); ++i) {
    const sweep::PointRecord& p = points[i];
    const sweep::PointDerived& d = a.points.at(i);
    out += fmt::format("{},{},{},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.6g},{:.4f},{:.6g},"
                       "{:.6g},{},{}",
                       p.D, p.shard_max, p.iterations, p.t_math.median, p.t_math.min, p.t_math.max, p.t_comm.median,
                       p.t_comm.min, p.t_comm.max, p.t_step.median, p.t_step.min, p.t_step.max, p.flops_per_s,
                       d.frac_peak, d.step_flops_per_s, d.intensity, bound_name(d), check_text(p.check));
    if (overlap && p.t_overlap) {
      // An undefined efficiency is an empty field.
      const auto& e = d.overlap;
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
  if (!plan.search && ctx.ranks < 2 && ctx.auto_D)
    out_ << fmt::format("# D = auto on one rank: no communication, so no crossover to search; the GEMM alone at D "
                        "= {} .. {}\n",
                        plan.D.front(), plan.D.back());
  if (plan.search)
    out_ << fmt::format("# D = auto: bracket the crossing on a x2 grid, then bisect in log D and add iterations at "
                        "the two points around it until its {:g}% interval is within +-{:g}% of D* or {:g} s have "
                        "passed; rows in the order measured, a D measured again shows all its iterations so far\n",
                        100 * sweep::kIntervalLevel, 100 * sweep::kTargetHalfWidth, plan.budget_s);
}

void SweepConsoleReporter::ceilings(const sweep::RunCeilings& c, const sweep::SweepAnalysis& a,
                                    const SweepContext& ctx) {
  out_ << fmt::format("# ceilings (measured now, on these {} ranks, all at once):\n", ctx.ranks);
  out_ << fmt::format("#   C_peak = {:.2f} GFLOP/s per rank ({}x{}x{} GEMM); M = {:.2f} GB/s per rank (triad); "
                      "g = {:.3f} ns per element reduced\n",
                      c.peak_gemm.flops_per_s / 1e9, c.peak_gemm.m, c.peak_gemm.n, c.peak_gemm.k,
                      c.memory.triad_bytes_per_s / 1e9, c.reduce.s_per_elem * 1e9);
  if (ctx.ranks < 2) return;
  if (c.link.probe) {
    const auto& p = *c.link.probe;
    const auto range = [](const std::vector<std::uint64_t>& v) {
      if (v.empty()) return std::string("-");
      return v.size() == 1 ? format_bytes(v.front())
                           : fmt::format("{} .. {}", format_bytes(v.front()), format_bytes(v.back()));
    };
    out_ << fmt::format("#   link, ring probe (every rank sends to its right neighbour at once, {}): W = {:.3f} GB/s "
                        "from {}, alpha = {:.2f} us from {}{}\n",
                        range(p.bytes), p.fit.W_bytes_per_s / 1e9, range(p.fit.bandwidth_sizes), p.fit.alpha_s * 1e6,
                        range(p.fit.latency_sizes),
                        !p.fit.valid ? "; NO FIT: the times do not grow with the size"
                        : p.fit.trusted()
                            ? ""
                            : fmt::format("; WARNING: alpha + m/W misses {} by {:.0f}%", format_bytes(p.fit.worst_size),
                                          100 * p.fit.max_rel_residual));
  } else {
    out_ << fmt::format("#   link from {}: W = {:.3f} GB/s, alpha = {:.2f} us\n", c.link.source,
                        c.link.W_bytes_per_s / 1e9, c.link.alpha_s * 1e6);
  }
  out_ << fmt::format("#   the collective itself at S = {}: T_comm = {:.3f} ms (median of {}, before the points; the "
                      "calibrated model takes the T_comm samples of the two points around D*)\n",
                      format_bytes(c.collective.bytes), c.collective.time.median * 1e3,
                      c.collective.time.samples.size());
  const double n = a.shape.ranks;
  const bool ar = a.shape.collective == model::Collective::AllReduce;
  const double hops = ar ? 2 * (n - 1) : n - 1;
  const double S = a.shape.B * a.shape.F * a.shape.bytes_per_elem;
  out_ << fmt::format("# book T_comm at S = {}(N-1)a + {}(N-1)/N*S/W + (N-1)/N*B*F*g = {:.3f} + {:.3f} + {:.3f} = "
                      "{:.3f} ms\n",
                      ar ? "2" : "", ar ? "2" : "", hops * a.book.latency_s * 1e3,
                      a.book.link_bytes_per_s > 0 ? hops / n * S / a.book.link_bytes_per_s * 1e3 : 0.0,
                      (n - 1) / n * a.shape.B * a.shape.F * a.book.reduce_s_per_elem * 1e3, a.t_comm_book_s * 1e3);
}

void SweepConsoleReporter::table_header(const sweep::SweepPlan& plan) {
  out_ << fmt::format("{:>8} {:>7} {:>5} {:>11} {:>11} {:>11}", "D", "D/N", "iters", "T_math(ms)", "T_comm(ms)",
                      "T_step(ms)");
  if (plan.overlap > 1) out_ << fmt::format(" {:>11} {:>6}", "T_ovlp(ms)", "eff");
  out_ << fmt::format(" {:>9} {:>6} {:>10} {:>13} {:>6}\n", "GFLOP/s", "%peak", "intensity", "bound", "check");
}

void SweepConsoleReporter::row(const sweep::PointRecord& p, const sweep::PointDerived& d) {
  out_ << fmt::format("{:>8} {:>7} {:>5} {:>11.4f} {:>11.4f} {:>11.4f}", p.D, p.shard_max, p.iterations,
                      p.t_math.median * 1e3, p.t_comm.median * 1e3, p.t_step.median * 1e3);
  if (p.t_overlap)
    out_ << fmt::format(" {:>11.4f} {:>6}", p.t_overlap->median * 1e3, efficiency_text(d.overlap));
  out_ << fmt::format(" {:>9.2f} {:>6.1f} {:>10.1f} {:>13} {:>6}\n", p.flops_per_s / 1e9, 100 * d.frac_peak,
                      d.intensity, bound_name(d), combined_check_text(p))
       << std::flush;
}

namespace {

std::string crossings_text(const std::vector<sweep::Crossing>& crossings) {
  std::string s;
  for (const auto& c : crossings)
    s += fmt::format("{}{} at {}", s.empty() ? "" : ", ", c.upward ? "up" : "down", fmt_d(c.D));
  return s;
}

// What the points say about D*, the first line of the summary.
std::string crossover_line(const std::vector<sweep::PointRecord>& points, const sweep::SweepAnalysis& a) {
  const auto& e = a.empirical;
  const std::size_t n = points.size();
  switch (e.kind) {
    case sweep::CrossingKind::Bracketed: {
      std::string s = fmt::format("D* = {}", fmt_d(*e.D));
      s += a.interval ? fmt::format(" {} ({:g}% interval)", interval_text(*a.interval), 100 * sweep::kIntervalLevel)
                      : std::string(" (no interval: a point has no samples)");
      s += fmt::format("; compute-bound above it");
      if (e.sign_changes() > 1)
        s += fmt::format(". CAUTION: T_math and T_comm cross {} times ({}): D* is the first upward crossing; the "
                         "others are noise near the crossing or a T_comm that changes with D (see the table)",
                         e.sign_changes(), crossings_text(e.crossings));
      return s;
    }
    case sweep::CrossingKind::AboveRange:
      if (n == 1)
        return fmt::format("no crossover located: the only point (D = {}) is communication-bound, so D* lies above "
                           "it; measure larger D (or --D auto)",
                           points.front().D);
      return fmt::format("no crossover in the range: every point is communication-bound (T_math < T_comm from D = {} "
                         "to {}), so D* lies above {}: extend D up",
                         points.front().D, points.back().D, points.back().D);
    case sweep::CrossingKind::BelowRange:
      if (n == 1)
        return fmt::format("no crossover located: the only point (D = {}) is compute-bound, so D* lies below it; "
                           "measure smaller D (or --D auto)",
                           points.front().D);
      return fmt::format("no crossover in the range: every point is compute-bound (T_math >= T_comm from D = {} to "
                         "{}), so D* lies below {}: extend D down",
                         points.front().D, points.back().D, points.front().D);
    case sweep::CrossingKind::OnlyDownward:
      return fmt::format("no crossover located: T_math and T_comm cross only downward ({}), from compute-bound "
                         "below to communication-bound above, the opposite of the roofline: T_comm grew or T_math "
                         "fell with D (noise or load); rerun with more --iters",
                         crossings_text(e.crossings));
    case sweep::CrossingKind::Tied:
      return fmt::format("no crossover located: T_math equals T_comm at every point ({} point{}): neither side to "
                         "extend",
                         n, n == 1 ? "" : "s");
    case sweep::CrossingKind::NoPoints:
      break;
  }
  return "no crossover located: no point was measured";
}

std::string error_text(const std::optional<double>& e) {
  return e ? fmt::format(" (error {:+.1f}%)", 100 * *e) : std::string();
}

}  // namespace

std::string interval_text(const sweep::Interval& i) {
  return fmt::format("{}{}, {}{}", i.low > 0 ? "[" : "(", i.low > 0 ? fmt_d(i.low) : std::string("0"),
                     std::isfinite(i.high) ? fmt_d(i.high) : std::string("inf"), std::isfinite(i.high) ? "]" : ")");
}

std::string sweep_summary_text(const std::vector<sweep::PointRecord>& points, const sweep::SweepAnalysis& a,
                               const sweep::RunCeilings& c, const sweep::SweepPlan& plan, const SearchReport& search) {
  std::string s;
  if (a.shape.ranks < 2) {
    s = "one rank: there is no communication, so no crossover (run with 2 or more ranks)";
  } else {
    s = crossover_line(points, a) + ".";
    // The predictions, with their errors against D_empirical where there is one.
    if (a.predicted)
      s += fmt::format("\ncalibrated D* = {}{}: T_comm(S) = {:.3f} ms ({}), W_eff = {:.3f} GB/s, and the GEMM's rate "
                       "at each D. T_comm over the whole run: {:.3f} ms ({} samples; the points' medians {:.3f} .. "
                       "{:.3f} ms).",
                       fmt_d(a.predicted->D), error_text(a.rel_error), a.t_comm_measured_s * 1e3,
                       a.empirical.D ? fmt::format("the {} samples of the two points around D*", a.t_comm_samples)
                                     : fmt::format("all {} samples at S", a.t_comm_samples),
                       a.W_eff_bytes_per_s / 1e9, a.t_comm_run_s * 1e3, a.t_comm_run_samples,
                       a.t_comm_points_min_s * 1e3, a.t_comm_points_max_s * 1e3);
    if (a.book_predicted)
      s += fmt::format("\nbook D* = {}{}: W = {:.3f} GB/s, alpha = {:.2f} us ({}), g, and the GEMM's rate at each D.",
                       fmt_d(a.book_predicted->D), error_text(a.book_rel_error), a.book.link_bytes_per_s / 1e9,
                       a.book.latency_s * 1e6, c.link.source);
    if (a.D_peak) {
      s += fmt::format("\nfrom C_peak: calibrated D* = {} (C_peak/W_eff = {:.1f} FLOP/byte", fmt_d(*a.D_peak),
                       a.critical_intensity());
      if (a.D_roofs) s += fmt::format("; with the memory roof M: {}", fmt_d(*a.D_roofs));
      s += ")";
      if (a.budget) s += fmt::format(", book D* = {}", fmt_d(a.budget->D_book_peak));
      s += ".";
    }
    if (a.budget) {
      const auto& b = *a.budget;
      s += fmt::format("\nbudget: D* = D*_book(C_peak) {} x compute {:.2f} / comm {:.2f} x residual {:.2f}: the GEMM "
                       "at D* runs at {:.0f}% of C_peak; the collective takes {:.2f}x the book's T_comm at S (the "
                       "link's W, alpha and g).",
                       fmt_d(b.D_book_peak), b.compute_efficiency, b.comm_efficiency, b.residual,
                       100 * b.compute_efficiency, 1 / b.comm_efficiency);
    }
  }
  if (!points.empty()) {
    // The largest D, whatever order the points were measured in.
    const auto last = std::max_element(points.begin(), points.end(),
                                       [](const auto& x, const auto& y) { return x.D < y.D; });
    const double peak = c.peak_gemm.flops_per_s;
    if (peak > 0)
      s += fmt::format("\nat the largest D ({}), {:.0f}% of peak ({:.0f}% for the GEMM alone).", last->D,
                       100 * a.points.at(static_cast<std::size_t>(last - points.begin())).step_flops_per_s / peak,
                       100 * last->flops_per_s / peak);
  }
  if (search.search) {
    std::size_t distinct = 0;
    for (const auto& p : points) distinct += p.iterations > 0;
    s += fmt::format("\nsearch: {} measurements at {} values of D in {:.1f} s; stopped: {}.",
                     search.search->log().size(), distinct, search.elapsed_s, search.stop.why);
  }
  if (plan.overlap > 1 && !points.empty()) {
    if (const auto& spread = a.overlap_spread) {
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
                                   const sweep::RunCeilings& c, const sweep::SweepPlan& plan,
                                   const SearchReport& search) {
  out_ << "\n" << sweep_summary_text(points, a, c, plan, search) << "\n";
  long long wrong = 0;
  for (const auto& p : points) wrong += p.check.wrong + p.overlap_check.wrong;
  if (plan.check)
    out_ << (wrong == 0 ? (plan.overlap > 1 ? "# every point's distributed Z checked, after the step and after the "
                                              "overlapped step: ok\n"
                                            : "# every point's distributed Z checked: ok\n")
                        : fmt::format("# WRONG RESULTS: {} elements/rows outside tolerance\n", wrong));
}

}  // namespace shardroof

#include "report/sweep_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace shardroof::sweep_text {

std::string check(const sweep::PointCheck& c) {
  if (!c.checked) return "off";
  if (c.method.empty() || c.method == "none") return "n/a";
  return c.wrong == 0 ? "ok" : fmt::format("FAIL({})", c.wrong);
}

std::string combined_check(const sweep::PointRecord& p) {
  if (!p.overlap_check.checked) return check(p.check);
  const long long wrong = p.check.wrong + p.overlap_check.wrong;
  if (wrong > 0) return fmt::format("FAIL({})", wrong);
  return check(p.check);
}

std::string efficiency(const sweep::OverlapEfficiency& e) {
  return e.value ? fmt::format("{:.2f}", *e.value) : std::string("undef");
}

std::string d(double D) { return D >= 100 ? fmt::format("{:.0f}", D) : fmt::format("{:.1f}", D); }

std::string bound(const sweep::PointDerived& p) { return model::to_string(p.regime.bound); }

std::string overlap_run(const sweep::OverlapRun& run, const sweep::OverlapRunAnalysis& a) {
  const auto m = [](double s) { return fmt::format("{:+.3f}", s * 1e3); };
  const model::PipelinePrediction& p = a.model;
  std::string out =
      fmt::format("K={}{}: T_overlap {:.4f} ms, predicted {:.4f} ms ({:+.1f}%; pure pipeline {:.4f} ms, {:+.1f}%), "
                  "ideal {:.4f} ms, pipe {}",
                  run.chunks, run.growth != 1 ? fmt::format(" (graded x{:.2f})", run.growth) : "",
                  run.t_overlap.median * 1e3, p.t_predicted * 1e3, 100 * a.predicted_error,
                  p.t_model * 1e3, 100 * a.model_error, p.t_ideal * 1e3,
                  a.efficiency ? fmt::format("{:.2f}", *a.efficiency) : "undef");
  const char* source = a.interference_source == "cpu"        ? "from the transport's CPU"
                       : a.interference_source == "measured" ? "from the unchunked step run together"
                                                             : "none known";
  const std::string comm_source =
      a.comm_source == "busy cores" ? " (the collectives timed beside busy cores, chunk by chunk)" : "";
  out += fmt::format("; model - ideal: thinner GEMMs {}, chunk latency {}, link model {}; predicted - ideal adds "
                     "the chunks' collectives alone {} and the interference x{:.2f} GEMM ({}), x{:.2f} "
                     "collective{} {}",
                     m(p.thinner_gemms), m(p.chunk_latency), m(p.link_model), m(p.chunk_collectives),
                     a.interference.gemm, source, a.interference.comm, comm_source, m(p.interference));
  if (run.transport_cpu) {
    const sweep::TransportCpu& t = *run.transport_cpu;
    out += fmt::format("; transport CPU alone {:.2f} cores per rank (its thread {:.2f}, process {:.2f}", t.cores(),
                       t.thread, t.process);
    if (t.node >= 0) out += fmt::format(", node {:.2f} of which softirq {:.2f}", t.node, t.softirq);
    out += fmt::format("; {} CPUs for {} ranks x {} GEMM thread{})", t.node_cpus, t.node_ranks, t.gemm_threads,
                       t.gemm_threads == 1 ? "" : "s");
  }
  if (a.measured_interference)
    out += fmt::format("; measured beside the unchunked collective: GEMM x{:.2f}, collective x{:.2f} (predicted "
                       "with it {:.4f} ms)",
                       a.measured_interference->gemm, a.measured_interference->comm,
                       a.t_predicted_measured.value_or(0) * 1e3);
  if (a.hidden && a.hidden_predicted)
    out += fmt::format("; hidden {:.0f}% of T_step - max(T_math, T_comm), predicted {:.0f}%", 100 * *a.hidden,
                       100 * *a.hidden_predicted);
  if (!a.bound.empty()) out += fmt::format("; the longer side: the {}s", a.bound == "gemm" ? "GEMM" : a.bound);
  if (!a.limit.empty())
    out += fmt::format("; most lost to: {}",
                       a.limit == "cpu" ? "the CPU (the cores the transport shares with the GEMM)" : a.limit);
  if (a.stamped) {
    const model::GapParts& g = a.gap;
    out += fmt::format("; measured - model: collectives alone {}, GEMM interference {}, collective interference "
                       "{}, hand-over {}, rest {}; GEMM x{:.2f} beside a collective, collective x{:.2f} beside a "
                       "GEMM",
                       m(g.collectives_alone), m(g.gemm_interference), m(g.comm_interference), m(g.hand_over),
                       m(g.other), g.gemm_slowdown, g.comm_slowdown);
  }
  if (run.check.checked && run.check.wrong > 0) out += fmt::format("; check FAIL({})", run.check.wrong);
  return out;
}

std::string overlap_model_summary(const std::vector<sweep::PointRecord>& points, const sweep::SweepAnalysis& a) {
  std::vector<double> errors, pure;
  double worst = 0;
  for (std::size_t i = 0; i < points.size() && i < a.points.size(); ++i)
    for (const auto& r : a.points[i].overlap_runs)
      if (r.model.t_model > 0) {
        errors.push_back(std::abs(r.predicted_error));
        worst = std::max(worst, std::abs(r.predicted_error));
        pure.push_back(std::abs(r.model_error));
      }
  if (errors.empty()) return "";
  std::sort(errors.begin(), errors.end());
  std::sort(pure.begin(), pure.end());
  return fmt::format("\nthe pipeline model predicted T_overlap within a median {:.1f}% (worst {:.1f}%) over {} "
                     "chunked step{} (the pure pipeline of the link model: a median {:.1f}%).",
                     100 * errors[errors.size() / 2], 100 * worst, errors.size(), errors.size() == 1 ? "" : "s",
                     100 * pure[pure.size() / 2]);
}

std::string outlook(const model::OverlapOutlook& o) {
  const auto D = [](const std::optional<double>& v) { return v ? fmt::format("{:.0f}", *v) : std::string("never"); };
  return fmt::format("step efficiency at the book's D* = {:.0f}: {:.0f}% of C_peak without overlap, {:.0f}% with "
                     "{} chunks; {:.0f}% of C_peak from D = {} without overlap ({:.1f} x D*), D = {} with it ({} "
                     "chunks there).",
                     o.d_star, 100 * o.efficiency_no_overlap, 100 * o.efficiency_overlap, o.chunks_at_d_star,
                     100 * o.target, D(o.D_target_no_overlap),
                     o.D_target_no_overlap && o.d_star > 0 ? *o.D_target_no_overlap / o.d_star : 0.0,
                     D(o.D_target_overlap), o.chunks_at_D_target);
}

std::string ms(double seconds) { return fmt::format("{:.3f} ms", seconds * 1e3); }

}  // namespace shardroof::sweep_text

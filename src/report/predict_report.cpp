#include "report/predict_report.h"

#include <fmt/format.h>

#include <cmath>
#include <string_view>

#include "report/gate_report.h"
#include "util/units.h"

namespace shardroof {
namespace {

std::string si(double v, std::string_view unit) {
  if (v == 0) return fmt::format("0 {}", unit);
  return fmt::format("{:.4g} {}", v, unit);
}

std::string seconds_text(double s) {
  if (s == 0) return "0";
  if (s < 1e-6) return fmt::format("{:.3g} ns", s * 1e9);
  if (s < 1e-3) return fmt::format("{:.4g} us", s * 1e6);
  if (s < 1) return fmt::format("{:.4g} ms", s * 1e3);
  return fmt::format("{:.4g} s", s);
}

std::string collective_title(model::Collective c) {
  switch (c) {
    case model::Collective::AllReduce: return "ring AllReduce";
    case model::Collective::ReduceScatter: return "ring ReduceScatter";
    case model::Collective::AllGather: return "ring AllGather";
  }
  return "?";
}

// The conditioning as one clause.
std::string conditioning_text(const model::Conditioning& c, const std::string& x) {
  const std::string moves = std::isfinite(c.sensitivity) ? fmt::format("{:.0f}%", 10 * c.sensitivity) : "without bound";
  return fmt::format("slope of T_math k = {:.2f}: a 10% change of T_comm moves {}* by about {}{}", c.slope, x, moves,
                     c.ill_conditioned ? " (ILL-CONDITIONED: near the GEMM's floor)" : "");
}

// predict --sharding fsdp: the book's rule, and every link's crossover of both cases.
void print_fsdp_rule(std::ostream& out, const PredictView& v) {
  const auto& s = v.shape;
  out << fmt::format("# the book's rule (fsdp): the step is compute-bound when the batch per rank exceeds\n"
                     "#   B*/N = C*s*(N-1)/(2*N*W) + (N-1)*a*C/(2*D*F)\n"
                     "# (T_math = 2*(B/N)*D*F/C against the ring AllGather's T_comm = (N-1)*a + (N-1)/N*D*F*s/W;\n"
                     "# for bf16 (s = 2) and many ranks: B/N > C/W, the book's \"tokens per device\").\n"
                     "# inputs: C = {} ({}), s = {:g}, N = {}, D = {:g}, F = {:g}; each link's W and a below\n",
                     si(v.ceilings.flops_per_s, "FLOP/s"), v.datatype, s.bytes_per_elem, s.ranks, s.B, s.F);
  out << fmt::format("# {:<22} {:>12} {:>10} {:>10} {:>16} {:>14} {:>22}\n", "link", "W (one way)", "a", "C/W",
                     "B*/N bandwidth", "B*/N (all)", "D* contracting (AR)");
  for (const auto& l : v.links)
    out << fmt::format("  {:<22} {:>12} {:>10} {:>10.1f} {:>16.1f} {:>14.1f} {:>22.1f}\n", l.link,
                       si(l.W_bytes_per_s, "B/s"), seconds_text(l.latency_s), l.critical_intensity,
                       l.b_star_per_rank_bandwidth, l.b_star_per_rank, l.d_star_bandwidth);
  out << "# B*/N: the batch per rank above which fsdp's step is compute-bound; D* contracting: the contracting\n"
         "# dimension above which the contracting AllReduce's step is, (N-1)*s*C/W (B and F cancel). One rule each:\n"
         "# gather the weights when B/N > B*/N; reduce the partial sums when D > D*.\n#\n";
}


}  // namespace

void print_predict_report(std::ostream& out, const PredictView& plan) {
  const model::Prediction& p = plan.prediction;
    const auto& c = plan.ceilings;
    const auto& s = plan.shape;
    out << "# shardroof predict: analytic inter-chip roofline (README: The model); nothing is measured\n";
    if (plan.hw) {
      const auto& link = plan.hw->link(plan.link_name);
      out << fmt::format("# hardware   {} ({}), link {}: {}\n", plan.hw->name, plan.hw->origin, link.name,
                         link.description);
      if (!plan.overridden.empty()) {
        std::string flags;
        for (const auto& f : plan.overridden) flags += (flags.empty() ? "" : ", ") + f;
        out << fmt::format("#            preset values replaced by {}\n", flags);
      }
    } else {
      out << "# hardware   given by flags\n";
    }
    out << fmt::format("# ceilings   C = {} ({})   W = {} one way   a = {}   M = {}   g = {}\n",
                       si(c.flops_per_s, "FLOP/s"), plan.datatype, si(c.link_bytes_per_s, "B/s"),
                       seconds_text(c.latency_s), c.memory_bytes_per_s > 0 ? si(c.memory_bytes_per_s, "B/s") : "off",
                       c.reduce_s_per_elem > 0 ? fmt::format("{:.4g} s/elem", c.reduce_s_per_elem) : "0");
    const bool fsdp = s.sharding == model::Sharding::Fsdp;
    const std::string x = model::swept_name(s.sharding), w = model::whole_name(s.sharding);
    out << fmt::format("# shape      {} over N = {} ranks, {} = {}, F = {}, s = {} bytes ({}){}\n",
                       collective_title(s.collective), s.ranks, w, s.B, s.F, s.bytes_per_elem, plan.datatype,
                       fsdp ? "; the batch B split over the ranks, the D x F weight gathered (--sharding fsdp)" : "");
    out << "#\n";
    if (fsdp) print_fsdp_rule(out, plan);
    const bool ar = s.collective == model::Collective::AllReduce;
    // One "label = value  (how)" line per result, labels aligned.
    auto line = [&](const std::string& label, const std::string& value) {
      out << fmt::format("{:<40} = {}\n", label, value);
    };
    line("critical intensity C/W", fmt::format("{:.1f} FLOPs/byte  (compute-bound iff {} > C/W)",
                                              p.critical_intensity, ar ? "D/((N-1)*s)" : "2" + x + "/((N-1)*s)"));
    if (p.memory_critical_intensity > 0)
      line("memory critical intensity C/M",
           fmt::format("{:.1f} FLOPs/byte  (the local GEMM's roof)", p.memory_critical_intensity));
    line(x + "* (bandwidth term)", fmt::format("{:.1f}  ({})", p.d_star_bandwidth, ar ? "(N-1)*s*C/W" : "(N-1)*s*C/(2W)"));
    line(fmt::format("{}* (with latency, {}={}, F={})", x, w, s.B, s.F),
         fmt::format("{:.1f}  (+ {})", p.d_star,
                     ar     ? "N(N-1)*a*C/(B*F) + (N-1)*g*C/2"
                     : fsdp ? "N(N-1)*a*C/(2*D*F)"
                            : "N(N-1)*a*C/(2*B*F) + (N-1)*g*C/2"));
    if (fsdp)
      line("B*/N per rank (the book's rule)",
           fmt::format("{:.1f}  (C*s*(N-1)/(2*N*W) = {:.1f}, + (N-1)*a*C/(2*D*F) = {:.1f})", p.d_star / s.ranks,
                       p.d_star_bandwidth / s.ranks, (p.d_star - p.d_star_bandwidth) / s.ranks));
    if (c.memory_bytes_per_s > 0)
      line(x + "* (with the memory roof)",
           fmt::format("{:.1f}  (T_math = max(compute, bytes_local/M))", p.d_star_memory));
    line(fsdp ? "GEMM floor (one row per rank)" : "GEMM floor (a shard of one column)",
         fmt::format("{}  ({}: {})", seconds_text(plan.floor.time_s), model::to_string(plan.floor.cause()),
                     plan.floor.cause() == model::Roof::Memory
                         ? (fsdp ? "reading the D x F weight at M" : "writing the B x F partial sum at M")
                         : fmt::format("the per-call overhead --overhead, above {} at M ({})",
                                       fsdp ? "reading the weight" : "writing the partial sum",
                                       seconds_text(plan.floor.memory_s))));
    switch (plan.roofline.kind) {
      case model::CrossoverKind::Crossing:
      case model::CrossoverKind::AboveRange:
        line(x + "* (every roof: compute, memory, floor)",
             fmt::format("{:.1f}  on the {} roof; {}", plan.roofline.D, model::to_string(plan.roofline.roof),
                         conditioning_text(plan.roofline.conditioning, x)));
        break;
      case model::CrossoverKind::BelowFloor:
        line(x + "* (every roof: compute, memory, floor)",
             fmt::format("none: T_comm ({}) lies below the GEMM's floor ({}): communication never bounds this step",
                         seconds_text(p.t_comm), seconds_text(plan.roofline.floor_s)));
        break;
      case model::CrossoverKind::NoModel:
        break;
    }
    line("T_comm", fmt::format("{}  (the same for every {})", seconds_text(p.t_comm), x));
    line(x + " for 90% of peak without overlap", fmt::format("{:.0f}  (9*{}*)", 9 * p.d_star, x));
    if (const auto& ov = plan.overlap) {
      const model::OverlapOutlook& o = ov->outlook;
      const std::string how = ov->choice.automatic ? "auto" : fmt::format("K = {}", ov->choice.chunks);
      const auto D = [](const std::optional<double>& v) { return v ? fmt::format("{:.0f}", *v) : std::string("never"); };
      line(fmt::format("overlap ({})", how),
           fmt::format("{} chunks at D*; T_overlap {} against {} without overlap", o.chunks_at_d_star,
                       seconds_text(ov->t_overlap_at_d_star_s), seconds_text(ov->t_no_overlap_at_d_star_s)));
      line("step efficiency at D*", fmt::format("{:.0f}% of C without overlap, {:.0f}% with", 100 * o.efficiency_no_overlap,
                                                100 * o.efficiency_overlap));
      line("D for 90% of peak, each way",
           fmt::format("{} without overlap ({:.1f} x D*), {} with it ({} chunks there)", D(o.D_target_no_overlap),
                       o.D_target_no_overlap && o.d_star > 0 ? *o.D_target_no_overlap / o.d_star : 0.0,
                       D(o.D_target_overlap), o.chunks_at_D_target));
    }
    out << "#\n";
    out << fmt::format("# {:>10} {:>9} {:>12} {:>12} {:>13} {:>11} {:>9} {:>9}", x, x + "/N", "T_math(us)",
                       "T_comm(us)", "bound", "I(FLOP/B)", "peak%max", "peak%sum");
    if (plan.overlap) out << fmt::format(" {:>4} {:>12} {:>9}", "K", "T_ovlp(us)", "peak%ovlp");
    out << "\n";
    for (std::size_t i = 0; i < p.points.size(); ++i) {
      const auto& pt = p.points[i];
      const auto& r = plan.regimes.at(i);
      out << fmt::format("  {:>10.0f} {:>9.0f} {:>12.3f} {:>12.3f} {:>13} {:>11.1f} {:>9.1f} {:>9.1f}", pt.D,
                         model::slowest_shard(pt.D, s.ranks), r.roofs.max_s() * 1e6, pt.t_comm * 1e6,
                         model::to_string(r.bound), model::intensity(s, pt.D), 100 * pt.frac_peak_overlap,
                         100 * pt.frac_peak_no_overlap);
      if (const auto& ov = plan.overlap) {
        const double useful = model::t_math_compute_only(s, c, pt.D);
        out << fmt::format(" {:>4} {:>12.3f} {:>9.1f}", ov->chunks.at(i), ov->t_overlap_s.at(i) * 1e6,
                           ov->t_overlap_s.at(i) > 0 ? 100 * useful / ov->t_overlap_s.at(i) : 0.0);
      }
      out << "\n";
    }
    if (fsdp)
      out << "# T_math = the largest of the GEMM's roofs: compute 2*(B/N)*D*F/C, memory s*(B/N*D + D*F + B/N*F)/M and\n"
             "# the floor; bound: communication where T_comm > T_math, else the binding roof.\n"
             "# B/N is each rank's rows of the batch. peak%max: perfect overlap of compute and\n";
    else
      out << "# T_math = the largest of the GEMM's roofs: compute 2*B*(D/N)*F/C, memory s*(B*D/N + D/N*F + B*F)/M and\n"
             "# the floor; bound: communication where T_comm > T_math, else the binding roof.\n"
             "# D/N is the slowest rank's shard, ceil(D/N). peak%max: perfect overlap of compute and\n";
    out << 
           "# communication (T_step = max); peak%sum: none (T_step = T_math + T_comm). I = FLOPs per\n"
           "# byte sent per rank; the step is compute-bound iff I > C/W.\n";
    if (plan.overlap)
      out << "# K, T_ovlp, peak%ovlp: the step in K chunks of rows, chunk k's collective beside chunk k+1's GEMM:\n"
             "# T = g + (K-1)*max(g, c) + c, g the GEMM of B/K rows (both roofs), c the ring formula on B*F/K\n"
             "# elements with its latency paid again; auto: the fewest chunks within " +
                 fmt::format("{:g}", 100 * model::kAutoMargin) +
                 "% of the best K\n# (powers of two up to 64). No interference and no hand-over: a bound.\n";
  }


nlohmann::json predict_json(const PredictView& plan) {
  const model::Prediction& p = plan.prediction;
    const auto& c = plan.ceilings;
    const auto& s = plan.shape;
    nlohmann::json doc;
    doc["settings"] = {{"hw", plan.hw_arg},
                       {"link", plan.link_name},
                       {"datatype", plan.datatype},
                       {"bytes_per_elem", s.bytes_per_elem},
                       {"collective", model::to_string(s.collective)},
                       {"ranks", s.ranks},
                       {"sharding", model::to_string(s.sharding)},
                       // The table's values and the D_* fields are the swept dimension's.
                       {"swept", model::swept_name(s.sharding)},
                       {model::whole_name(s.sharding), s.B},
                       {"F", s.F},
                       {"overridden", plan.overridden}};
    if (s.sharding == model::Sharding::Fsdp) {
      nlohmann::json links = nlohmann::json::array();
      for (const auto& l : plan.links)
        links.push_back({{"link", l.link},
                         {"W_bytes_per_s", l.W_bytes_per_s},
                         {"latency_s", l.latency_s},
                         {"critical_intensity", l.critical_intensity},
                         {"B_star_per_rank_bandwidth", l.b_star_per_rank_bandwidth},
                         {"B_star_per_rank", l.b_star_per_rank},
                         {"D_star_contracting_bandwidth", l.d_star_bandwidth}});
      doc["fsdp"] = {{"B_star_per_rank", p.d_star / s.ranks},
                     {"B_star_per_rank_bandwidth", p.d_star_bandwidth / s.ranks},
                     {"rule", "B*/N = C*s*(N-1)/(2*N*W) + (N-1)*a*C/(2*D*F); D* contracting (AllReduce) = "
                              "(N-1)*s*C/W"},
                     {"links", links}};
    }
    if (plan.hw) {
      const auto& link = plan.hw->link(plan.link_name);
      doc["hardware"] = {{"name", plan.hw->name},
                         {"description", plan.hw->description},
                         {"origin", plan.hw->origin},
                         {"link", link.name},
                         {"link_description", link.description}};
    } else {
      doc["hardware"] = nullptr;
    }
    doc["ceilings"] = {{"flops_per_s", c.flops_per_s},
                       {"overhead_s", plan.floor.call_s},
                       {"link_bytes_per_s", c.link_bytes_per_s},
                       {"latency_s", c.latency_s},
                       {"memory_bytes_per_s", c.memory_bytes_per_s},
                       {"reduce_s_per_elem", c.reduce_s_per_elem}};
    doc["critical_intensity"] = p.critical_intensity;
    doc["memory_critical_intensity"] = p.memory_critical_intensity;
    doc["D_star_bandwidth"] = p.d_star_bandwidth;
    doc["D_star"] = p.d_star;
    doc["D_star_memory"] = p.d_star_memory;
    doc["D_90_no_overlap"] = 9 * p.d_star;
    doc["T_comm_s"] = p.t_comm;
    doc["floor"] = {{"time_s", plan.floor.time_s},
                    {"memory_s", plan.floor.memory_s},
                    {"overhead_s", plan.floor.call_s},
                    {"cause", model::to_string(plan.floor.cause())}};
    const bool crossing = plan.roofline.kind == model::CrossoverKind::Crossing ||
                          plan.roofline.kind == model::CrossoverKind::AboveRange;
    doc["roofline"] = {
        {"kind", model::to_string(plan.roofline.kind)},
        {"D", crossing ? nlohmann::json(plan.roofline.D) : nlohmann::json(nullptr)},
        {"roof", crossing ? nlohmann::json(model::to_string(plan.roofline.roof)) : nlohmann::json(nullptr)},
        {"floor_s", plan.roofline.floor_s},
        {"conditioning",
         crossing ? nlohmann::json{{"slope", plan.roofline.conditioning.slope},
                                   {"sensitivity", plan.roofline.conditioning.sensitivity},
                                   {"ill_conditioned", plan.roofline.conditioning.ill_conditioned}}
                  : nlohmann::json(nullptr)},
        {"method", "T_math_model(D) = max(2*B*(D/N)*F/C, s*(B*D/N + D/N*F + B*F)/M, floor) against T_comm; none "
                   "when T_comm <= the floor; conditioning: the model's slope d ln T_math / d ln D at D*"}};
    doc["points"] = nlohmann::json::array();
    for (std::size_t i = 0; i < p.points.size(); ++i) {
      const auto& pt = p.points[i];
      const auto& r = plan.regimes.at(i);
      doc["points"].push_back({{"D", pt.D},
                               {"D_per_rank", model::slowest_shard(pt.D, s.ranks)},
                               {"T_math_s", r.roofs.max_s()},
                               {"T_math_compute_s", r.roofs.compute_s},
                               {"T_math_memory_s", r.roofs.memory_s},
                               {"T_math_floor_s", r.roofs.floor_s},
                               {"T_comm_s", pt.t_comm},
                               {"bound", model::to_string(r.bound)},
                               {"regime", model::to_string(r.bound)},
                               {"intensity", model::intensity(s, pt.D)},
                               {"frac_peak_overlap", pt.frac_peak_overlap},
                               {"frac_peak_no_overlap", pt.frac_peak_no_overlap}});
    }
    if (const auto& ov = plan.overlap) {
      const model::OverlapOutlook& o = ov->outlook;
      const auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
      nlohmann::json pts = nlohmann::json::array();
      for (std::size_t i = 0; i < p.points.size(); ++i)
        pts.push_back({{"D", p.points[i].D}, {"chunks", ov->chunks.at(i)}, {"T_overlap_s", ov->t_overlap_s.at(i)}});
      doc["overlap"] = {{"chunks", ov->choice.automatic ? nlohmann::json("auto") : nlohmann::json(ov->choice.chunks)},
                        {"auto_margin", model::kAutoMargin},
                        {"max_chunks", ov->choice.max_chunks},
                        {"d_star", o.d_star},
                        {"chunks_at_d_star", o.chunks_at_d_star},
                        {"T_overlap_at_d_star_s", ov->t_overlap_at_d_star_s},
                        {"T_no_overlap_at_d_star_s", ov->t_no_overlap_at_d_star_s},
                        {"efficiency_no_overlap", o.efficiency_no_overlap},
                        {"efficiency_overlap", o.efficiency_overlap},
                        {"target", o.target},
                        {"D_90_no_overlap", opt(o.D_target_no_overlap)},
                        {"D_90_overlap", opt(o.D_target_overlap)},
                        {"chunks_at_D_90", o.chunks_at_D_target},
                        {"points", pts}};
    }
    return doc;
  }


PredictView::Overlap predict_overlap(const model::Shape& shape, const model::Ceilings& c,
                                     const model::ChunkChoice& choice, const std::vector<double>& D_values) {
  PredictView::Overlap o;
  o.choice = choice;
  o.outlook = model::overlap_outlook(shape, c, choice);
  for (const double D : D_values) {
    const int K = model::chunks_at(shape, c, D, choice);
    o.chunks.push_back(K);
    o.t_overlap_s.push_back(model::modelled_step_time(shape, c, D, K));
  }
  o.t_overlap_at_d_star_s = model::modelled_step_time(shape, c, o.outlook.d_star, o.outlook.chunks_at_d_star);
  o.t_no_overlap_at_d_star_s = model::modelled_step_time(shape, c, o.outlook.d_star, 1);
  return o;
}


void print_preset_list(std::ostream& out, const std::vector<model::HardwarePreset>& presets) {
    out << "# Hardware presets (--hw NAME; FLOP/s dense peak per rank, links one way per rank)\n";
    for (const auto& hw : presets) {
      out << fmt::format("\n{}  {}\n", hw.name, hw.description);
      out << fmt::format("  from      {}\n", hw.origin);
      std::string flops;
      for (const auto& [type, size] : model::preset_datatypes()) {
        const auto it = hw.flops.find(type);
        if (it != hw.flops.end()) flops += fmt::format("{}{} {:.4g}", flops.empty() ? "" : ", ", type, it->second);
      }
      out << fmt::format("  flops     {}\n", flops);
      out << fmt::format("  memory    {:.4g} B/s\n", hw.memory_bytes_per_s);
      for (const auto& [name, link] : hw.links) {
        out << fmt::format("  --link {:<11} {:>9.4g} B/s  {:>8}  {}{}\n", name, link.bytes_per_s,
                           seconds_text(link.latency_s), link.description,
                           name == hw.default_link ? " (default)" : "");
      }
    }
  }


void print_coll_busbw(std::ostream& out, const CollBusbwView& v) {
  out << fmt::format("# shardroof predict: the busbw our implementations' cost formulas expect for {} on {} ranks\n",
                     v.collective, v.ranks);
  out << fmt::format("# link: {}\n", v.link_text);
  out << "# model/collective_cost.h; busbw = S/time x the nccl-tests bus factor; no reduction time (g = 0)\n";
  out << fmt::format("# {:>10} {:>10} {:>12} {:>10} {:>7}  {}\n", "impl", "size", "time (us)", "busbw", "of W",
                     "formula");
  for (const auto& r : v.rows)
    out << fmt::format("  {:>10} {:>10} {:>12.2f} {:>10} {:>6.0f}%  {}\n", r.impl, format_bytes(r.bytes),
                       r.cost.time_s * 1e6, format_metric_value(r.cost.busbw_bytes_per_s, "B/s"),
                       v.W_bytes_per_s > 0 ? 100 * r.cost.busbw_bytes_per_s / v.W_bytes_per_s : 0.0, r.cost.formula);
  if (v.published.empty()) {
    out << "# published: none for this collective and rank count in the preset\n";
    return;
  }
  for (const auto& p : v.published)
    out << fmt::format("# published: {} ({} ranks over {}): {} busbw, {:.0f}% of W; {}\n", p.algorithm, p.ranks,
                       p.link, format_metric_value(p.busbw_bytes_per_s, "B/s"),
                       v.W_bytes_per_s > 0 ? 100 * p.busbw_bytes_per_s / v.W_bytes_per_s : 0.0, p.source);
}

nlohmann::json coll_busbw_document(const CollBusbwView& v) { return {{"coll", coll_busbw_json(v)}}; }

nlohmann::json coll_busbw_json(const CollBusbwView& v) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : v.rows)
    rows.push_back({{"impl", r.impl},
                    {"bytes", r.bytes},
                    {"time_s", r.cost.time_s},
                    {"busbw_GBps", r.cost.busbw_bytes_per_s / 1e9},
                    {"formula", r.cost.formula}});
  nlohmann::json published = nlohmann::json::array();
  for (const auto& p : v.published)
    published.push_back({{"algorithm", p.algorithm},
                         {"ranks", p.ranks},
                         {"link", p.link},
                         {"busbw_GBps", p.busbw_bytes_per_s / 1e9},
                         {"source", p.source}});
  return {{"collective", v.collective}, {"ranks", v.ranks}, {"link", v.link_text},
          {"W_bytes_per_s", v.W_bytes_per_s}, {"expected", rows}, {"published", published}};
}

}  // namespace shardroof

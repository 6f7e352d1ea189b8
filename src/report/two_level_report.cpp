#include "report/two_level_report.h"

#include <fmt/format.h>

#include "report/time_stats_json.h"
#include "util/units.h"

namespace shardroof {
namespace {

std::string link_text(const model::LinkLevel& l) {
  return fmt::format("W = {:.4g} B/s, a = {}", l.bytes_per_s, format_seconds(l.latency_s));
}

nlohmann::json link_json(const model::LinkLevel& l, const std::string& source) {
  return {{"bytes_per_s", l.bytes_per_s}, {"latency_s", l.latency_s}, {"source", source}};
}

// The prediction a measured D* of `impl` is compared with.
const std::optional<sweep::PredictedCrossover>& prediction_for(const sweep::TwoLevelAnalysis& two,
                                                               const std::string& impl) {
  return impl == "hier" ? two.hier : two.ring;
}

}  // namespace

void print_ring_probe(std::ostream& out, const std::string& level, const link::RingProbeResult& r) {
  for (std::size_t i = 0; i < r.bytes.size() && i < r.step_time.size(); ++i) {
    const TimeStats& t = r.step_time[i];
    std::string transfers;
    for (const auto& p : r.transfers)
      if (i < p.times.size())
        transfers += fmt::format(" {}->{} {}", p.pair.src, p.pair.dst, format_seconds(p.times[i].one_way.median));
    out << fmt::format("#   probe {} {:>9}: step {} ({} .. {}); transfers{}\n", level, format_bytes(r.bytes[i]),
                       format_seconds(t.median), format_seconds(t.min), format_seconds(t.max), transfers);
  }
}

nlohmann::json ring_probe_json(const link::RingProbeResult& r) {
  nlohmann::json sizes = nlohmann::json::array();
  for (std::size_t i = 0; i < r.bytes.size() && i < r.step_time.size(); ++i) {
    const TimeStats& t = r.step_time[i];
    nlohmann::json transfers = nlohmann::json::array();
    for (const auto& p : r.transfers)
      if (i < p.times.size())
        transfers.push_back({{"src", p.pair.src}, {"dst", p.pair.dst}, {"median_s", p.times[i].one_way.median}});
    sizes.push_back({{"bytes", r.bytes[i]},
                     {"step_s", time_stats_json(t)},
                     {"transfers", transfers}});
  }
  return {{"sizes", sizes}, {"fit_sizes", r.fit.bandwidth_sizes}};
}

void print_two_level_probes(std::ostream& out, const sweep::TwoLevelProbes& probes) {
  print_ring_probe(out, "inside a node", probes.intra);
  print_ring_probe(out, "between nodes", probes.inter);
  print_ring_probe(out, "between nodes, this ring alone", probes.inter_alone);
  std::string alone;
  for (const auto& f : probes.inter_alone_fits) alone += fmt::format(" {:.4g}", f.W_bytes_per_s);
  out << fmt::format("#   probe between nodes, each ring alone (by local index): W ={} B/s\n", alone);
}

nlohmann::json two_level_probes_json(const sweep::TwoLevelProbes& probes) {
  return {{"intra", ring_probe_json(probes.intra)},
          {"inter", ring_probe_json(probes.inter)},
          {"inter_alone", ring_probe_json(probes.inter_alone)},
          {"inter_alone_W_bytes_per_s", [&] {
             std::vector<double> w;
             for (const auto& f : probes.inter_alone_fits) w.push_back(f.W_bytes_per_s);
             return w;
           }()}};
}

void print_two_level(std::ostream& out, const model::TwoLevelShape& shape, const model::TwoLevelCeilings& c,
                     const model::TwoLevelPrediction& p, const model::TwoLevelSources& sources) {
  const bool ar = shape.collective == model::Collective::AllReduce;
  out << fmt::format("# two-level model (docs/hierarchy.md): {} nodes x {} ranks, N = {}; {} rank{} per link "
                     "out of a node\n",
                     shape.nodes, shape.ranks_per_node, shape.ranks(), c.ranks_per_inter_link,
                     c.ranks_per_inter_link == 1 ? "" : "s");
  out << fmt::format("#   inside a node   {}  ({})\n", link_text(c.intra), sources.intra);
  out << fmt::format("#   between nodes   {}  ({})\n", link_text(c.inter), sources.inter);
  out << fmt::format("{:<22} {:>12} {:>14}  {}\n", "algorithm", "T_comm", "D*", "runs at");
  out << fmt::format("{:<22} {:>12} {:>14.1f}  {}{}\n", ar ? "ring AllReduce" : "ring ReduceScatter",
                     format_seconds(p.t_comm_flat), p.d_star_flat, link_text(p.flat_link),
                     sources.flat.empty() ? " (the slower level)" : " (" + sources.flat + ")");
  out << fmt::format("{:<22} {:>12} {:>14.1f}  inside, then W_o/R = {:.4g} B/s per cross-node ring\n",
                     ar ? "hier AllReduce" : "hier ReduceScatter", format_seconds(p.t_comm_hier), p.d_star_hier,
                     p.inter_flow_bytes_per_s);
  const double ratio = p.faster == "hier" ? p.t_comm_flat / p.t_comm_hier : p.t_comm_hier / p.t_comm_flat;
  out << fmt::format("model expects {} to win (T_comm {:.2f}x smaller{})\n", p.faster, ratio,
                     shape.nodes > 1 && shape.ranks_per_node > 1 ? "" : "; on one level hier is the ring");
}

nlohmann::json two_level_json(const model::TwoLevelShape& shape, const model::TwoLevelCeilings& c,
                              const model::TwoLevelPrediction& p, const model::TwoLevelSources& sources) {
  return {{"nodes", shape.nodes},
          {"ranks_per_node", shape.ranks_per_node},
          {"ranks_per_inter_link", c.ranks_per_inter_link},
          {"intra", link_json(c.intra, sources.intra)},
          {"inter", link_json(c.inter, sources.inter)},
          {"flat_link", link_json(p.flat_link, sources.flat.empty() ? "the slower level" : sources.flat)},
          {"inter_flow_bytes_per_s", p.inter_flow_bytes_per_s},
          {"T_comm_ring_s", p.t_comm_flat},
          {"T_comm_hier_s", p.t_comm_hier},
          {"D_star_ring", p.d_star_flat},
          {"D_star_hier", p.d_star_hier},
          {"faster", p.faster}};
}

void print_two_level_crossovers(std::ostream& out, const sweep::TwoLevelAnalysis& two,
                                const sweep::SweepAnalysis& analysis, const std::string& impl) {
  const auto text = [](const std::optional<sweep::PredictedCrossover>& p) {
    return p ? fmt::format("{:.1f}", p->D) + (p->extrapolated ? " (beyond the measured D)" : "") : std::string("-");
  };
  out << fmt::format("two-level D* with the GEMM's rate at each D: ring {}, hier {}; the model expects {} to win\n",
                     text(two.ring), text(two.hier), two.prediction.faster);
  const auto& predicted = prediction_for(two, impl);
  if (analysis.empirical.D && predicted) {
    const double measured = *analysis.empirical.D;
    out << fmt::format("measured D* ({}) = {:.1f} against the two-level {} prediction {:.1f}: {:+.1f}%\n", impl,
                       measured, impl == "hier" ? "hier" : "ring", predicted->D,
                       100 * (predicted->D - measured) / measured);
  }
}

nlohmann::json two_level_sweep_json(const sweep::TwoLevelAnalysis& two, const sweep::SweepAnalysis& analysis,
                                    const std::string& impl) {
  nlohmann::json j = two_level_json(two.shape, two.ceilings, two.prediction, two.sources);
  const auto value = [](const std::optional<sweep::PredictedCrossover>& p) {
    return p ? nlohmann::json(p->D) : nlohmann::json(nullptr);
  };
  j["D_star_ring_at_measured_C"] = value(two.ring);
  j["D_star_hier_at_measured_C"] = value(two.hier);
  j["compared_with"] = impl == "hier" ? "hier" : "ring";
  const auto& predicted = prediction_for(two, impl);
  j["rel_error"] = analysis.empirical.D && predicted
                       ? nlohmann::json((predicted->D - *analysis.empirical.D) / *analysis.empirical.D)
                       : nlohmann::json(nullptr);
  return j;
}

void add_two_level_json(nlohmann::json& doc, const model::TwoLevelShape& shape, const model::TwoLevelCeilings& c,
                        const model::TwoLevelPrediction& p, const model::TwoLevelSources& sources) {
  doc["two_level"] = two_level_json(shape, c, p, sources);
}

}  // namespace shardroof

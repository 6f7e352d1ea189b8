#include "report/levels_report.h"

#include <fmt/format.h>

#include "util/units.h"

namespace shardroof {
namespace {

std::string rate_text(double bytes_per_s) { return fmt::format("{:.4g} B/s", bytes_per_s); }

// "hier 3.21x" / "ring 1.10x" / "same": the faster and by how much.
std::string verdict(const std::string& faster, double ring, double hier) {
  if (faster == "same") return "same (one level: hier is the ring)";
  const double ratio = faster == "hier" ? ring / hier : hier / ring;
  return fmt::format("{} {:.2f}x", faster, ratio);
}

}  // namespace

void print_levels(std::ostream& out, const LevelsView& v) {
  const auto& t = v.topology;
  const auto& s = v.shape;
  const bool ar = s.contracting == model::Collective::AllReduce;
  out << fmt::format("# shardroof predict: the roofline model over {} levels (docs/hierarchy.md); nothing is measured\n",
                     t.levels.size());
  out << fmt::format("# topology   {} ({}){}\n", t.name, t.origin, t.description.empty() ? "" : ": " + t.description);
  out << fmt::format("# chip       {}: C = {:.4g} FLOP/s ({}), s = {:g}, g = {:g} s per element\n", v.chip,
                     s.flops_per_s, v.datatype, s.bytes_per_elem, s.reduce_s_per_elem);
  out << "# levels, innermost first: g groups of the level below; W and a per link, one way; oversub: the share of a\n"
         "# group's links that leave it; ring flow: W*min(1, oversub*ranks below), hier flow: W*oversub\n";
  out << fmt::format("# {:>5}  {:<12} {:>6} {:>10} {:>14} {:>10} {:>8} {:>14} {:>14}  {}\n", "level", "name", "g",
                     "ranks", "W", "a", "oversub", "ring flow", "hier flow", "link");
  for (std::size_t i = 0; i < t.levels.size(); ++i) {
    const auto& l = t.levels[i];
    out << fmt::format("# {:>5}  {:<12} {:>6} {:>10} {:>14} {:>10} {:>8.4g} {:>14} {:>14}  {}\n", i, l.name,
                       l.group_size, t.ranks_up_to(static_cast<int>(i)), rate_text(l.bytes_per_s),
                       format_seconds(l.latency_s), l.oversubscription,
                       rate_text(model::ring_flow_bytes_per_s(t, static_cast<int>(i))),
                       rate_text(model::hier_flow_bytes_per_s(l)), l.link.empty() ? "given" : l.link);
  }
  out << "# each row: the shard's ranks span up to that level (one group of it); ring: a flat ring over them, at\n"
         "# its slowest flow and largest latency; hier: a ring per level, reduce-scatter going up on S/P_(l-1),\n"
         "# all-gather going down\n";
  out << fmt::format("# contracting: D sharded, the {} of the B x F partial sum (B = {:g}, F = {:g}); "
                     "D* = N*C*T_comm/(2*B*F)\n",
                     ar ? "AllReduce" : "ReduceScatter", s.B, s.F);
  // One table per sharding: each level's ring and hier time, the crossover
  // each gives, and which is faster.
  using P = model::LevelPrediction;
  const auto table = [&](const char* star, double P::*t_ring, double P::*t_hier, double P::*x_ring,
                         double P::*x_hier, std::string P::*faster) {
    out << fmt::format("{:<14} {:>10} {:>12} {:>12} {:>14} {:>14}  {}\n", "up to", "ranks", "T ring", "T hier",
                       fmt::format("{} ring", star), fmt::format("{} hier", star), "faster");
    for (const auto& p : v.levels)
      out << fmt::format("{:<14} {:>10} {:>12} {:>12} {:>14.1f} {:>14.1f}  {}\n",
                         t.levels[static_cast<std::size_t>(p.level)].name, p.ranks, format_seconds(p.*t_ring),
                         format_seconds(p.*t_hier), p.*x_ring, p.*x_hier, verdict(p.*faster, p.*t_ring, p.*t_hier));
  };
  table("D*", &P::t_ring_contracting, &P::t_hier_contracting, &P::d_star_ring, &P::d_star_hier,
        &P::faster_contracting);
  out << fmt::format("# fsdp: the batch sharded, the AllGather of the D x F weight (D = {:g}, F = {:g}); "
                     "B*/N = C*T_comm/(2*D*F) per rank\n",
                     s.D, s.F);
  table("B*/N", &P::t_ring_fsdp, &P::t_hier_fsdp, &P::b_star_per_rank_ring, &P::b_star_per_rank_hier,
        &P::faster_fsdp);
}

nlohmann::json levels_document(const LevelsView& v) {
  const auto& t = v.topology;
  nlohmann::json levels = nlohmann::json::array();
  for (std::size_t i = 0; i < t.levels.size(); ++i) {
    const auto& l = t.levels[i];
    levels.push_back({{"name", l.name},
                      {"group_size", l.group_size},
                      {"ranks", t.ranks_up_to(static_cast<int>(i))},
                      {"bytes_per_s", l.bytes_per_s},
                      {"latency_s", l.latency_s},
                      {"oversubscription", l.oversubscription},
                      {"link", l.link.empty() ? nlohmann::json(nullptr) : nlohmann::json(l.link)},
                      {"ring_flow_bytes_per_s", model::ring_flow_bytes_per_s(t, static_cast<int>(i))},
                      {"hier_flow_bytes_per_s", model::hier_flow_bytes_per_s(l)}});
  }
  nlohmann::json predictions = nlohmann::json::array();
  for (const auto& p : v.levels)
    predictions.push_back({{"level", p.level},
                           {"name", t.levels[static_cast<std::size_t>(p.level)].name},
                           {"ranks", p.ranks},
                           {"ring_link", {{"bytes_per_s", p.ring_link.bytes_per_s}, {"latency_s", p.ring_link.latency_s}}},
                           {"T_comm_ring_s", p.t_ring_contracting},
                           {"T_comm_hier_s", p.t_hier_contracting},
                           {"D_star_ring", p.d_star_ring},
                           {"D_star_hier", p.d_star_hier},
                           {"faster", p.faster_contracting},
                           {"fsdp",
                            {{"T_comm_ring_s", p.t_ring_fsdp},
                             {"T_comm_hier_s", p.t_hier_fsdp},
                             {"B_star_per_rank_ring", p.b_star_per_rank_ring},
                             {"B_star_per_rank_hier", p.b_star_per_rank_hier},
                             {"faster", p.faster_fsdp}}}});
  const auto& s = v.shape;
  return {{"settings",
           {{"datatype", v.datatype},
            {"bytes_per_elem", s.bytes_per_elem},
            {"collective", model::to_string(s.contracting)},
            {"B", s.B},
            {"F", s.F},
            {"D", s.D},
            {"flops_per_s", s.flops_per_s},
            {"reduce_s_per_elem", s.reduce_s_per_elem},
            {"chip", v.chip}}},
          {"topology",
           {{"name", t.name},
            {"origin", t.origin},
            {"description", t.description},
            {"hardware", t.hardware.empty() ? nlohmann::json(nullptr) : nlohmann::json(t.hardware)},
            {"ranks", t.ranks()},
            {"levels", levels}}},
          {"levels", predictions}};
}

}  // namespace shardroof

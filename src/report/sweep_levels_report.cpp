#include "report/sweep_levels_report.h"

#include <fmt/format.h>

#include <string>

#include "report/two_level_report.h"

namespace shardroof {
namespace {

constexpr const char* kMethod =
    "per level l with more than one unit: every group of that level at once, T_comm at S the median over "
    "iterations of the slowest rank, our ring over the group's P_l ranks and hier over the levels 0..l, timed "
    "interleaved; model: the ring from the flat ring probe over each group, hier the sum over levels 0..l with "
    "each level's W and alpha from hier's ring probe of that level (every ring at once); D*: where the run's "
    "measured T_math curve, its shards put on P_l ranks, reaches each T_comm (log-log between the bracketing "
    "points)";

std::string level_us(const std::optional<double>& t) { return t ? fmt::format("{:.1f}", *t * 1e6) : std::string("-"); }

std::string level_ratio(double measured, const std::optional<double>& model) {
  return model && *model > 0 && measured > 0 ? fmt::format("{:.2f}", measured / *model) : std::string("-");
}

std::string level_d_text(const sweep::LevelCrossing& c) {
  if (c.below_floor) return "floor";
  if (!c.D) return "-";
  return fmt::format("{:.0f}{}", *c.D, c.extrapolated ? "~" : "");
}

nlohmann::json level_crossing_json(const sweep::LevelCrossing& c) {
  return {{"D", c.D ? nlohmann::json(*c.D) : nlohmann::json(nullptr)},
          {"extrapolated", c.extrapolated},
          {"below_floor", c.below_floor}};
}

nlohmann::json level_optional_json(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json level_link_json(const model::LinkLevel& l) {
  if (!(l.bytes_per_s > 0)) return nullptr;
  return {{"W_bytes_per_s", l.bytes_per_s}, {"alpha_s", l.latency_s}};
}

}  // namespace

void print_sweep_levels(std::ostream& out, const sweep::LevelsAnalysis& levels) {
  std::string sizes;
  for (std::size_t i = 0; i < levels.sizes.size(); ++i) sizes += (i ? " x " : "") + std::to_string(levels.sizes[i]);
  out << fmt::format(
      "D* per level ({} ranks per unit, innermost first): T_comm at S over every group of the level at once, "
      "measured and modelled from the level probes; D* where the measured T_math curve reaches it "
      "(~ extrapolated past the measured D)\n",
      sizes);
  constexpr const char* row =
      "{:>5} {:>4} {:>5} {:>9} {:>9} {:>10} {:>10} {:>5} {:>10} {:>10} {:>5} {:>8} {:>8} {:>8} {:>8}\n";
  out << fmt::format(row, "level", "g", "P", "W GB/s", "a us", "ring us", "model us", "x", "hier us", "model us", "x",
                     "D* ring", "model", "D* hier", "model");
  for (const auto& l : levels.levels) {
    const bool probed = l.phase_link.bytes_per_s > 0;
    out << fmt::format(row, l.level, l.group_size, l.ranks,
                       probed ? fmt::format("{:.4g}", l.phase_link.bytes_per_s / 1e9) : "-",
                       probed ? fmt::format("{:.1f}", l.phase_link.latency_s * 1e6) : "-", level_us(l.t_ring_s),
                       level_us(l.t_ring_model_s), level_ratio(l.t_ring_s, l.t_ring_model_s), level_us(l.t_hier_s),
                       level_us(l.t_hier_model_s), l.t_hier_s ? level_ratio(*l.t_hier_s, l.t_hier_model_s) : "-",
                       level_d_text(l.d_ring), level_d_text(l.d_ring_model), level_d_text(l.d_hier),
                       level_d_text(l.d_hier_model));
  }
  out << "  (W and a: hier's ring at that level, every ring at once; x: measured over model; where no level below "
         "moves data, hier is the ring)\n";
}

nlohmann::json sweep_levels_json(const sweep::LevelsAnalysis& levels, const sweep::LevelMeasurements& measured) {
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t i = 0; i < levels.levels.size(); ++i) {
    const auto& l = levels.levels[i];
    nlohmann::json r = {{"level", l.level},
                        {"group_size", l.group_size},
                        {"ranks", l.ranks},
                        {"phase_link", level_link_json(l.phase_link)},
                        {"span_link", level_link_json(l.span_link)},
                        {"t_ring_s", l.t_ring_s},
                        {"t_hier_s", level_optional_json(l.t_hier_s)},
                        {"t_ring_model_s", level_optional_json(l.t_ring_model_s)},
                        {"t_hier_model_s", level_optional_json(l.t_hier_model_s)},
                        {"D_ring", level_crossing_json(l.d_ring)},
                        {"D_hier", level_crossing_json(l.d_hier)},
                        {"D_ring_model", level_crossing_json(l.d_ring_model)},
                        {"D_hier_model", level_crossing_json(l.d_hier_model)}};
    if (i < measured.probes.levels.size()) {
      r["phase_probe"] = ring_probe_json(measured.probes.levels[i].phase);
      r["span_probe"] = ring_probe_json(measured.probes.levels[i].span);
    }
    if (i < measured.comm.size()) {
      const auto& c = measured.comm[i];
      r["t_ring_samples_s"] = c.ring.samples;
      r["t_hier_samples_s"] = c.hier ? nlohmann::json(c.hier->samples) : nlohmann::json(nullptr);
      r["wrong"] = c.wrong;
    }
    rows.push_back(std::move(r));
  }
  return {{"sizes", levels.sizes}, {"method", kMethod}, {"levels", std::move(rows)}};
}

}  // namespace shardroof

namespace shardroof {

void print_sweep_level_probes(std::ostream& out, const sweep::LevelMeasurements& measured) {
  for (const auto& l : measured.probes.levels) {
    print_ring_probe(out, fmt::format("level {} hier's ring", l.level), l.phase);
    if (l.ranks > l.group_size) print_ring_probe(out, fmt::format("level {} flat ring", l.level), l.span);
  }
}

}  // namespace shardroof

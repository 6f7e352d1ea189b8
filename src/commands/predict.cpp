// `shardroof predict`: the analytic roofline model alone (README, "The model").
// Ceilings come from a hardware preset (--hw, --link) and/or explicit flags
// (--flops, --bw, --latency, --memory-bw, --reduce-rate; flags win). Nothing
// is measured, so it runs without a launcher; under mpirun every rank
// computes the same thing and rank 0 prints.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>

#include "cli/command.h"
#include "cli/common_flags.h"
#include "cli/values.h"
#include "commands/run_output.h"
#include "model/checked_prediction.h"
#include "model/hardware.h"
#include "model/roofline.h"
#include "model/two_level.h"
#include "report/two_level_report.h"
#include "util/agreement.h"
#include "util/error.h"

namespace shardroof {
namespace {

struct PredictFlags {
  std::string hw;
  std::string link;
  std::string flops;
  std::string bw;
  std::string latency;
  std::string memory_bw;
  std::string reduce_rate;
  int ranks = 2;
  std::string datatype = "bfloat16";
  std::string collective = "all_reduce";
  std::string B = "1024";
  std::string F = "1024";
  std::string D;
  OutputFlags output;
  bool list = false;
  int nodes = 0;
  int ranks_per_node = 0;
  std::string link_intra;
  std::string link_inter;
  int ranks_per_inter_link = 1;
};

// The two-level model's inputs (--nodes/--ranks-per-node with the preset's
// --link-intra and --link-inter).
struct TwoLevelPlan {
  model::TwoLevelShape shape;
  model::TwoLevelCeilings ceilings;
  model::TwoLevelSources sources;
  model::TwoLevelPrediction prediction;
};

// Everything the model needs, resolved from the flags and the preset.
struct PredictPlan {
  model::Shape shape;
  model::Ceilings ceilings;
  std::string datatype;
  std::optional<model::HardwarePreset> hw;
  std::string link_name;               // of the preset, when there is one
  std::vector<std::string> overridden; // flags that replaced preset values
  std::vector<double> D_values;        // empty: choose around D*
  model::Prediction prediction;        // checked: every number finite, D* within 2^53
  std::optional<TwoLevelPlan> two_level;
};

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
  return c == model::Collective::AllReduce ? "ring AllReduce" : "ring ReduceScatter";
}

// Which roof bounds a point: the link, the local memory or the compute.
std::string bound_of(const model::Shape& shape, const model::Ceilings& c, const model::Point& p) {
  if (!p.compute_bound) return "comm";
  return p.t_math > model::t_math_compute_only(shape, c, p.D) ? "memory" : "compute";
}

class PredictCommand final : public Command {
 public:
  std::string name() const override { return "predict"; }
  std::string description() const override {
    return "the roofline model alone: D*, T_math and T_comm from a hardware preset or given ceilings";
  }

  void add_options(CLI::App& app) override {
    app.add_option("--hw", f_.hw, "Hardware preset name (see --list) or a preset TOML file");
    app.add_option("--link", f_.link, "Link of the preset (default: the preset's default_link)");
    app.add_option("--flops", f_.flops, "C: FLOP/s of one rank (overrides the preset), e.g. 1.97e14");
    app.add_option("--bw", f_.bw, "W: one-way link bandwidth per rank in bytes/s (overrides the preset)");
    app.add_option("--latency", f_.latency, "a: per-message latency in seconds (overrides the preset; default 0)");
    app.add_option("--memory-bw", f_.memory_bw,
                   "M: local memory bandwidth in bytes/s for the on-chip roof (overrides the preset; 0 = off)");
    app.add_option("--reduce-rate", f_.reduce_rate,
                   "Elements per second one rank reduces (g = 1/rate; default: ignore the reduction)");
    ranks_opt_ = app.add_option("--ranks", f_.ranks, "N: number of ranks the matmul is sharded over")->capture_default_str();
    add_datatype_flag(app, f_.datatype, "double | float | bfloat16 | half | int8 (sets s)");
    app.add_option("--collective", f_.collective, "all_reduce | reduce_scatter")->capture_default_str();
    app.add_option("--B", f_.B, "Rows of X and Z (K/M suffixes)")->capture_default_str();
    app.add_option("--F", f_.F, "Columns of Y and Z (K/M suffixes)")->capture_default_str();
    app.add_option("--D", f_.D, "D values for the table: 1024,4096 or lo:hi:xK or lo:hi:+K (default: around D*)");
    add_json_flag(app, f_.output);
    app.add_flag("--list", f_.list, "List the hardware presets and their links, then exit");
    app.add_option("--nodes", f_.nodes,
                   "M: nodes of --ranks-per-node ranks each (N = M*K): the two-level model, flat ring against "
                   "hier; needs --hw with --link-intra and --link-inter");
    app.add_option("--ranks-per-node", f_.ranks_per_node, "K: ranks per node of the two-level model");
    app.add_option("--link-intra", f_.link_intra, "The preset's link inside a node (two-level model)");
    app.add_option("--link-inter", f_.link_inter, "The preset's link between nodes (two-level model)");
    app.add_option("--ranks-per-inter-link", f_.ranks_per_inter_link,
                   "R: ranks of a node that share one link out of it (1: a NIC per rank; K: one per node)")
        ->capture_default_str();
  }

  int run(RunContext& ctx) override {
    if (f_.list) {
      std::vector<model::HardwarePreset> presets;
      run_agreed(ctx.mpi.world(), [&] {
        for (const auto& name : model::builtin_preset_names()) presets.push_back(model::load_hardware_preset(name));
      });
      print_list(ctx.out, presets);
      return 0;
    }
    PredictPlan plan;
    run_agreed(ctx.mpi.world(), [&] { plan = make_plan(); });
    RunOutput out = RunOutput::agree(ctx, "predict", "predictions", {f_.output.json, "", "", false});
    print_report(ctx.out, plan, plan.prediction);
    nlohmann::json doc = to_json(plan, plan.prediction);
    if (const auto& t = plan.two_level) {
      ctx.out << "#\n";
      print_two_level(ctx.out, t->shape, t->ceilings, t->prediction, t->sources);
      doc["two_level"] = two_level_json(t->shape, t->ceilings, t->prediction, t->sources);
    }
    out.begin_document(doc);
    out.finish();
    out.print_written_files();
    return out.exit_status();
  }

 private:
  PredictPlan make_plan() const {
    PredictPlan plan;
    const int size = model::datatype_size(f_.datatype);
    if (size == 0) throw_usage("--datatype: '{}' is not one of double, float, bfloat16, half, int8", f_.datatype);
    plan.datatype = f_.datatype;
    plan.shape.bytes_per_elem = size;
    if (f_.collective == "all_reduce") {
      plan.shape.collective = model::Collective::AllReduce;
    } else if (f_.collective == "reduce_scatter") {
      plan.shape.collective = model::Collective::ReduceScatter;
    } else {
      throw_usage("--collective: unknown '{}' (all_reduce, reduce_scatter)", f_.collective);
    }
    const bool two_level = f_.nodes != 0 || f_.ranks_per_node != 0 || !f_.link_intra.empty() || !f_.link_inter.empty();
    if (two_level) {
      if (f_.nodes < 1 || f_.ranks_per_node < 1)
        throw_usage("the two-level model needs --nodes M and --ranks-per-node K (at least 1 each), got {} and {}",
                    f_.nodes, f_.ranks_per_node);
      if (ranks_opt_->count() > 0 && f_.ranks != f_.nodes * f_.ranks_per_node)
        throw_usage("--ranks {} is not --nodes {} x --ranks-per-node {}", f_.ranks, f_.nodes, f_.ranks_per_node);
      if (f_.hw.empty() || f_.link_intra.empty() || f_.link_inter.empty())
        throw_usage("the two-level model needs --hw with --link-intra and --link-inter (see --list)");
      if (!f_.link.empty()) throw_usage("--link: the two-level model takes --link-intra and --link-inter instead");
      if (f_.ranks_per_inter_link < 1 || f_.ranks_per_inter_link > f_.ranks_per_node)
        throw_usage("--ranks-per-inter-link: must be 1 to --ranks-per-node ({}), got {}", f_.ranks_per_node,
                    f_.ranks_per_inter_link);
    } else if (f_.ranks_per_inter_link != 1) {
      throw_usage("--ranks-per-inter-link: needs the two-level model (--nodes, --ranks-per-node)");
    }
    const int ranks = two_level ? f_.nodes * f_.ranks_per_node : f_.ranks;
    if (ranks < 2) throw_usage("--ranks: needs at least 2 ranks (one rank communicates nothing), got {}", ranks);
    plan.shape.ranks = ranks;
    plan.shape.B = static_cast<double>(parse_count(f_.B, "--B"));
    plan.shape.F = static_cast<double>(parse_count(f_.F, "--F"));
    if (!f_.D.empty()) {
      for (auto d : parse_int_list(f_.D, "--D")) plan.D_values.push_back(static_cast<double>(d));
    }

    model::Ceilings& c = plan.ceilings;
    const model::CeilingFlags flags{f_.flops, f_.bw, f_.latency, f_.memory_bw, f_.reduce_rate};
    if (!f_.hw.empty()) {
      plan.hw = model::load_hardware_preset(f_.hw);
      if (two_level) plan.two_level = two_level_plan(*plan.hw, plan.shape);
      // Two levels: the flat table runs at the slower link.
      plan.link_name = two_level ? slower_link(*plan.hw) : plan.hw->link(f_.link).name;
      const auto& link = plan.hw->link(plan.link_name);
      c.link_bytes_per_s = link.bytes_per_s;
      c.latency_s = link.latency_s;
      // The flat ring waits for the slowest hop: the larger latency too.
      if (plan.two_level)
        c.latency_s = std::max(plan.two_level->ceilings.intra.latency_s, plan.two_level->ceilings.inter.latency_s);
      c.memory_bytes_per_s = plan.hw->memory_bytes_per_s;
      // The preset's FLOP/s for this datatype is only needed when --flops
      // does not replace it.
      if (f_.flops.empty()) {
        try {
          c.flops_per_s = plan.hw->flops_for(f_.datatype);
        } catch (const UsageError& e) {
          throw UsageError(fmt::format("{}; choose one of those, or give --flops C for {}", e.what(), f_.datatype));
        }
      }
    } else {
      if (!f_.link.empty()) throw_usage("--link: needs --hw (a preset whose links it names)");
      if (f_.flops.empty() || f_.bw.empty())
        throw_usage("give --hw PRESET (see --list), or both --flops C and --bw W (with --latency a if known)");
    }
    const auto given = model::apply_ceiling_flags(flags, c);
    // Only values that replaced a preset's are "overridden"; --reduce-rate has no preset value.
    if (plan.hw)
      for (const auto& flag : given)
        if (flag != "--reduce-rate") plan.overridden.push_back(flag);
    // Absurd numbers end here, with a usage error, before anything is printed.
    plan.prediction = model::checked_predict(plan.shape, c, plan.D_values);
    if (plan.two_level) {
      TwoLevelPlan& t = *plan.two_level;
      t.ceilings.flops_per_s = c.flops_per_s;
      t.ceilings.reduce_s_per_elem = c.reduce_s_per_elem;
      for (const auto& flag : given)
        if (flag == "--bw" || flag == "--latency")
          throw_usage("the two-level model takes W and a from --link-intra and --link-inter; {} cannot replace "
                      "them",
                      flag);
      t.prediction = model::predict_two_level(t.shape, t.ceilings);
    }
    return plan;
  }

  TwoLevelPlan two_level_plan(const model::HardwarePreset& hw, const model::Shape& flat) const {
    TwoLevelPlan t;
    t.shape = {flat.B, flat.F, f_.nodes, f_.ranks_per_node, flat.bytes_per_elem, flat.collective};
    const auto& intra = hw.link(f_.link_intra);
    const auto& inter = hw.link(f_.link_inter);
    t.ceilings.intra = {intra.bytes_per_s, intra.latency_s};
    t.ceilings.inter = {inter.bytes_per_s, inter.latency_s};
    t.ceilings.ranks_per_inter_link = f_.ranks_per_inter_link;
    t.sources = {fmt::format("{} {}", hw.name, intra.name), fmt::format("{} {}", hw.name, inter.name), ""};
    return t;
  }

  // The link the flat ring runs at: the slower of the two (the lower W).
  std::string slower_link(const model::HardwarePreset& hw) const {
    const auto& intra = hw.link(f_.link_intra);
    const auto& inter = hw.link(f_.link_inter);
    return inter.bytes_per_s <= intra.bytes_per_s ? inter.name : intra.name;
  }

  void print_list(std::ostream& out, const std::vector<model::HardwarePreset>& presets) const {
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

  void print_report(std::ostream& out, const PredictPlan& plan, const model::Prediction& p) const {
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
    out << fmt::format("# shape      {} over N = {} ranks, B = {}, F = {}, s = {} bytes ({})\n",
                       collective_title(s.collective), s.ranks, s.B, s.F, s.bytes_per_elem, plan.datatype);
    out << "#\n";
    const bool ar = s.collective == model::Collective::AllReduce;
    // One "label = value  (how)" line per result, labels aligned.
    auto line = [&](const std::string& label, const std::string& value) {
      out << fmt::format("{:<36} = {}\n", label, value);
    };
    line("critical intensity C/W", fmt::format("{:.1f} FLOPs/byte  (compute-bound iff {} > C/W)",
                                              p.critical_intensity, ar ? "D/((N-1)*s)" : "2D/((N-1)*s)"));
    if (p.memory_critical_intensity > 0)
      line("memory critical intensity C/M",
           fmt::format("{:.1f} FLOPs/byte  (the local GEMM's roof)", p.memory_critical_intensity));
    line("D* (bandwidth term)", fmt::format("{:.1f}  ({})", p.d_star_bandwidth, ar ? "(N-1)*s*C/W" : "(N-1)*s*C/(2W)"));
    line(fmt::format("D* (with latency, B={}, F={})", s.B, s.F),
         fmt::format("{:.1f}  (+ {})", p.d_star,
                     ar ? "N(N-1)*a*C/(B*F) + (N-1)*g*C/2" : "N(N-1)*a*C/(2*B*F) + (N-1)*g*C/2"));
    if (c.memory_bytes_per_s > 0)
      line("D* (with the memory roof)",
           fmt::format("{:.1f}  (T_math = max(compute, bytes_local/M))", p.d_star_memory));
    line("T_comm", fmt::format("{}  (the same for every D)", seconds_text(p.t_comm)));
    line("D for 90% of peak without overlap", fmt::format("{:.0f}  (9*D*)", 9 * p.d_star));
    out << "#\n";
    out << fmt::format("# {:>10} {:>9} {:>12} {:>12} {:>8} {:>11} {:>9} {:>9}\n", "D", "D/N", "T_math(us)",
                       "T_comm(us)", "bound", "I(FLOP/B)", "peak%max", "peak%sum");
    for (const auto& pt : p.points) {
      out << fmt::format("  {:>10.0f} {:>9.0f} {:>12.3f} {:>12.3f} {:>8} {:>11.1f} {:>9.1f} {:>9.1f}\n", pt.D,
                         model::slowest_shard(pt.D, s.ranks), pt.t_math * 1e6, pt.t_comm * 1e6,
                         bound_of(s, c, pt), model::intensity(s, pt.D), 100 * pt.frac_peak_overlap,
                         100 * pt.frac_peak_no_overlap);
    }
    out << "# D/N is the slowest rank's shard, ceil(D/N). peak%max: perfect overlap of compute and\n"
           "# communication (T_step = max); peak%sum: none (T_step = T_math + T_comm). I = FLOPs per\n"
           "# byte sent per rank; the step is compute-bound iff I > C/W.\n";
  }

  nlohmann::json to_json(const PredictPlan& plan, const model::Prediction& p) const {
    const auto& c = plan.ceilings;
    const auto& s = plan.shape;
    nlohmann::json doc;
    doc["settings"] = {{"hw", f_.hw},
                       {"link", plan.link_name},
                       {"datatype", plan.datatype},
                       {"bytes_per_elem", s.bytes_per_elem},
                       {"collective", model::to_string(s.collective)},
                       {"ranks", s.ranks},
                       {"B", s.B},
                       {"F", s.F},
                       {"overridden", plan.overridden}};
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
    doc["points"] = nlohmann::json::array();
    for (const auto& pt : p.points) {
      doc["points"].push_back({{"D", pt.D},
                               {"D_per_rank", model::slowest_shard(pt.D, s.ranks)},
                               {"T_math_s", pt.t_math},
                               {"T_math_compute_s", model::t_math_compute_only(s, c, pt.D)},
                               {"T_comm_s", pt.t_comm},
                               {"bound", bound_of(s, c, pt)},
                               {"intensity", model::intensity(s, pt.D)},
                               {"frac_peak_overlap", pt.frac_peak_overlap},
                               {"frac_peak_no_overlap", pt.frac_peak_no_overlap}});
    }
    return doc;
  }

  PredictFlags f_;
  CLI::Option* ranks_opt_ = nullptr;
};

}  // namespace

std::unique_ptr<Command> make_predict_command() { return std::make_unique<PredictCommand>(); }

}  // namespace shardroof

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
#include "cli/ceiling_flags.h"
#include "cli/level_flags.h"
#include "cli/common_flags.h"
#include "cli/values.h"
#include "commands/run_output.h"
#include "model/checked_prediction.h"
#include "collectives/traits.h"
#include "util/comm_kinds.h"
#include "model/collective_cost.h"
#include "model/hardware.h"
#include "model/roofline.h"
#include "model/sharding_links.h"
#include "model/topology.h"
#include "model/two_level.h"
#include "report/answer.h"
#include "report/bringup.h"
#include "report/levels_report.h"
#include "report/predict_report.h"
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
  std::string overhead = "0";
  int ranks = 2;
  std::string datatype = "bfloat16";
  std::string collective = "all_reduce";
  std::string sharding = "contracting";
  std::string coll;
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
  std::string overlap;  // --overlap K | auto (empty: not asked)
  std::string topology;              // --topology NAME|FILE: the L-level model
  std::vector<std::string> levels;   // --level SPEC, innermost first
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
  double overhead_s = 0;               // o: the per-call overhead of the GEMM
  std::optional<TwoLevelPlan> two_level;
  std::optional<model::ChunkChoice> overlap;  // predict --overlap
};

// The report's record: the prediction with its regimes.
PredictView view_of(const PredictPlan& plan, const std::string& hw_arg) {
  PredictView v;
  v.shape = plan.shape;
  v.ceilings = plan.ceilings;
  v.datatype = plan.datatype;
  v.hw_arg = hw_arg;
  v.hw = plan.hw;
  v.link_name = plan.link_name;
  v.overridden = plan.overridden;
  v.prediction = plan.prediction;
  v.floor = model::model_floor(plan.shape, plan.ceilings, plan.overhead_s);
  v.roofline = model::solve_roof_crossover(plan.shape, plan.ceilings, v.floor, plan.prediction.t_comm);
  for (const auto& pt : plan.prediction.points) {
    const model::Roofs roofs = model::roofs_at(plan.shape, plan.ceilings, v.floor, pt.D);
    v.regimes.push_back(model::classify(roofs, roofs.max_s(), pt.t_comm, pt.t_comm));
  }
  // fsdp: both cases on every link of the preset, unless flags replaced its link.
  const bool link_given = std::any_of(plan.overridden.begin(), plan.overridden.end(),
                                      [](const std::string& f) { return f == "--bw" || f == "--latency"; });
  if (plan.shape.sharding == model::Sharding::Fsdp)
    v.links = model::link_crossovers(plan.shape, plan.ceilings, plan.hw ? &*plan.hw : nullptr,
                                     plan.hw ? plan.link_name : "given", link_given);
  if (plan.overlap) {
    std::vector<double> Ds;
    for (const auto& pt : plan.prediction.points) Ds.push_back(pt.D);
    v.overlap = predict_overlap(plan.shape, plan.ceilings, *plan.overlap, Ds);
  }
  return v;
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
    app.add_option("--overhead", f_.overhead,
                   "o: seconds a GEMM call costs whatever its size (a launch and a synchronisation on a GPU); the "
                   "GEMM's floor is the larger of it and writing the B x F partial sum at M")
        ->capture_default_str();
    ranks_opt_ = app.add_option("--ranks", f_.ranks, "N: number of ranks the matmul is sharded over")->capture_default_str();
    add_datatype_flag(app, f_.datatype, "double | float | bfloat16 | half | int8 (sets s)");
    app.add_option("--sharding", f_.sharding,
                   "contracting: D split, partial sums reduced after the matmul (D*); fsdp: the batch split, the "
                   "weights gathered before it (B* per rank, beside D* on every link of the preset)")
        ->capture_default_str();
    collective_opt_ = app.add_option("--collective", f_.collective, "all_reduce | reduce_scatter (contracting)")->capture_default_str();
    B_opt_ = app.add_option("--B", f_.B,
                   "Rows of X and Z (K/M suffixes). Fsdp: the batch values for the table (a list or lo:hi:xK; "
                   "default: around B*)")
        ->capture_default_str();
    app.add_option("--F", f_.F, "Columns of Y and Z (K/M suffixes)")->capture_default_str();
    app.add_option("--D", f_.D,
                   "D values for the table: 1024,4096 or lo:hi:xK or lo:hi:+K (default: around D*). Fsdp: one number, "
                   "whole on every rank (default 1024)");
    add_json_flag(app, f_.output);
    app.add_option("--coll", f_.coll,
                   "Print the busbw each of our implementations' cost formulas expects for this collective (all_reduce, "
                   "reduce_scatter, all_gather, broadcast, all_to_all) on --ranks ranks over the link (--hw/--link "
                   "or --bw/--latency), beside the preset's published figures, and exit");
    app.add_flag("--list", f_.list, "List the hardware presets and their links, then exit");
    app.add_option("--nodes", f_.nodes,
                   "Nodes of --ranks-per-node ranks each (N = nodes x ranks per node): the two-level model, flat ring against "
                   "hier; needs --hw with --link-intra and --link-inter");
    app.add_option("--ranks-per-node", f_.ranks_per_node, "Ranks per node of the two-level model");
    app.add_option("--link-intra", f_.link_intra,
                   "The preset's link inside a node (two-level model; default: the preset's default link)");
    app.add_option("--link-inter", f_.link_inter,
                   "The preset's link between nodes (two-level model; default: the preset's slowest other link)");
    app.add_option("--overlap", f_.overlap,
                   "K | auto: also the step in K chunks of rows, each chunk's collective beside the next chunk's "
                   "GEMM (the pipeline model), K chosen by it with auto: T_overlap, the step's efficiency at D* "
                   "and the D for 90% of peak, with and without overlap");
    app.add_option("--ranks-per-inter-link", f_.ranks_per_inter_link,
                   "R: ranks of a node that share one link out of it (1: a NIC per rank; K: one per node)")
        ->capture_default_str();
    app.add_option("--topology", f_.topology,
                   "The L-level model (docs/hierarchy.md): a topology preset (h100-superpod, tpu-v5e-pods) or a "
                   "topology TOML file; prints, for the ranks spanning up to each level, D* (contracting) and B*/N "
                   "(fsdp) of the flat ring and of hier, and which is faster, then exits");
    app.add_option("--level", f_.levels,
                   "One level of the L-level model instead of --topology, innermost first (repeat, or a comma "
                   "list): G:LINK[:O] (G groups of the level below over LINK of --hw, O the oversubscription, the "
                   "share of a group's links that leave it) or G:W:A[:O] (W bytes/s one way per link, A seconds)")
        ->delimiter(',');
  }

  int run(RunContext& ctx) override {
    if (f_.list) {
      std::vector<model::HardwarePreset> presets;
      run_agreed(ctx.mpi.world(), [&] {
        for (const auto& name : model::builtin_preset_names()) presets.push_back(model::load_hardware_preset(name));
      });
      print_preset_list(ctx.out, presets);
      return 0;
    }
    if (!f_.coll.empty()) return predict_coll_busbw(ctx);
    if (!f_.topology.empty() || !f_.levels.empty()) return predict_topology(ctx);
    PredictPlan plan;
    run_agreed(ctx.mpi.world(), [&] { plan = make_plan(); });
    RunOutput out = RunOutput::agree(ctx, "predict", "predictions", {f_.output.json, "", "", false});
    const PredictView view = view_of(plan, f_.hw);
    // The tables behind -v, then the answer.
    print_predict_report(ctx.detail, view);
    nlohmann::json doc = predict_json(view);
    if (const auto& t = plan.two_level) {
      ctx.detail << "#\n";
      print_two_level(ctx.detail, t->shape, t->ceilings, t->prediction, t->sources);
      add_two_level_json(doc, t->shape, t->ceilings, t->prediction, t->sources);
    }
    out.begin_document(doc);
    out.finish();
    if (ctx.mpi.is_root()) print_answer(ctx.out, answer_of(bringup::read_record(out.document())));
    out.print_written_files();
    return out.exit_status();
  }

 private:
  // --coll NAME: the cost formulas alone, no matmul.
  int predict_coll_busbw(RunContext& ctx) {
    CollBusbwView v;
    run_agreed(ctx.mpi.world(), [&] { v = coll_busbw_view(); });
    RunOutput out = RunOutput::agree(ctx, "predict", "predictions", {f_.output.json, "", "", false});
    print_coll_busbw(ctx.out, v);
    out.begin_document(coll_busbw_document(v));
    out.finish();
    out.print_written_files();
    return out.exit_status();
  }

  CollBusbwView coll_busbw_view() const {
    const auto kind = coll::parse_collective(f_.coll);
    if (!kind) throw_usage("--coll: unknown '{}' ({})", f_.coll, coll::collective_names());
    if (f_.ranks < 2) throw_usage("--ranks: needs at least 2 ranks, got {}", f_.ranks);
    CollBusbwView v;
    v.collective = std::string(coll::to_string(*kind));
    v.ranks = f_.ranks;
    model::CollLink link;
    if (!f_.hw.empty()) {
      const model::HardwarePreset hw = model::load_hardware_preset(f_.hw);
      const model::LinkPreset& l = hw.link(f_.link);
      link.W_bytes_per_s = l.bytes_per_s;
      link.alpha_s = l.latency_s;
      v.link_text = fmt::format("{} {}", hw.name, l.name);
      for (const auto& p : hw.published)
        if (p.collective == v.collective && p.ranks == f_.ranks && p.link == l.name) v.published.push_back(p);
    } else {
      if (!f_.link.empty()) throw_usage("--link: needs --hw (a preset whose links it names)");
      if (f_.bw.empty()) throw_usage("--coll: give --hw PRESET (see --list), or --bw W (with --latency a if known)");
      v.link_text = "given";
    }
    if (!f_.bw.empty()) link.W_bytes_per_s = parse_number(f_.bw, "--bw");
    if (!f_.latency.empty()) link.alpha_s = parse_number(f_.latency, "--latency");
    if (!(link.W_bytes_per_s > 0)) throw_usage("--bw: must be a positive rate in bytes/s");
    if (!(link.alpha_s >= 0)) throw_usage("--latency: must be 0 or more seconds");
    v.W_bytes_per_s = link.W_bytes_per_s;
    v.link_text += fmt::format(": W {:g} B/s, a {:g} s", link.W_bytes_per_s, link.alpha_s);
    // Sizes where nccl-tests' tables are read: latency-bound to bandwidth-bound.
    constexpr std::uint64_t kSizes[] = {std::uint64_t{1} << 20, std::uint64_t{1} << 24, std::uint64_t{1} << 28,
                                        std::uint64_t{1} << 32};
    for (const coll::Algorithm impl : {coll::Algorithm::Ring, coll::Algorithm::Pairwise, coll::Algorithm::Direct})
      for (const auto bytes : kSizes) {
        // Broadcast's chain in segments of 1 MiB, as the ring's automatic
        // segments on a GPU (one segment on two ranks).
        const std::uint64_t segments = f_.ranks == 2 ? 1 : std::max<std::uint64_t>(bytes >> 20, 1);
        if (const auto c = model::collective_cost({*kind, impl, f_.ranks, bytes, false, 0, segments}, link))
          v.rows.push_back({std::string(to_string(impl)), bytes, *c});
      }
    return v;
  }

  // --topology / --level: the L-level model alone.
  int predict_topology(RunContext& ctx) {
    LevelsView v;
    run_agreed(ctx.mpi.world(), [&] { v = levels_view(); });
    RunOutput out = RunOutput::agree(ctx, "predict", "predictions", {f_.output.json, "", "", false});
    print_levels(ctx.out, v);
    out.begin_document(levels_document(v));
    out.finish();
    out.print_written_files();
    return out.exit_status();
  }

  LevelsView levels_view() const {
    if (!f_.topology.empty() && !f_.levels.empty())
      throw_usage("--topology and --level: give one (a topology preset or file, or its levels as flags)");
    if (f_.nodes != 0 || f_.ranks_per_node != 0 || !f_.link_intra.empty() || !f_.link_inter.empty() ||
        f_.ranks_per_inter_link != 1)
      throw_usage("--topology/--level: the L-level model replaces the two-level flags (--nodes, --ranks-per-node, "
                  "--link-intra, --link-inter, --ranks-per-inter-link); a two-level cluster is two levels");
    if (ranks_opt_->count() > 0) throw_usage("--ranks: with --topology/--level N is the product of the group sizes");
    if (!f_.link.empty() || !f_.bw.empty() || !f_.latency.empty())
      throw_usage("--topology/--level: each level has its own link (its W and latency); --link, --bw and --latency "
                  "cannot replace them");
    if (!f_.memory_bw.empty() || f_.overhead != "0")
      throw_usage("--memory-bw, --overhead: the L-level model's D* and B* are on the compute roof alone");
    if (!f_.overlap.empty()) throw_usage("--overlap: not with --topology/--level");
    if (f_.sharding != "contracting")
      throw_usage("--sharding: --topology/--level prints both cases (contracting D* and fsdp B*/N) at every level");
    LevelsView v;
    v.topology = f_.topology.empty() ? topology_of_level_flags(f_.levels) : model::load_topology(f_.topology);
    const std::string hw_name = !f_.hw.empty() ? f_.hw : v.topology.hardware;
    std::optional<model::HardwarePreset> hw;
    if (!hw_name.empty()) hw = model::load_hardware_preset(hw_name);
    model::resolve_links(v.topology, hw ? &*hw : nullptr);
    const int size = model::datatype_size(f_.datatype);
    if (size == 0) throw_usage("--datatype: '{}' is not one of double, float, bfloat16, half, int8", f_.datatype);
    v.datatype = f_.datatype;
    model::LevelShape& s = v.shape;
    s.bytes_per_elem = size;
    if (f_.collective == "all_reduce")
      s.contracting = model::Collective::AllReduce;
    else if (f_.collective == "reduce_scatter")
      s.contracting = model::Collective::ReduceScatter;
    else
      throw_usage("--collective: unknown '{}' (all_reduce, reduce_scatter)", f_.collective);
    s.B = static_cast<double>(parse_count(f_.B, "--B"));
    s.F = static_cast<double>(parse_count(f_.F, "--F"));
    if (f_.D.find_first_of(",:") != std::string::npos)
      throw_usage("--D: with --topology/--level D is one number, the fsdp weight's rows (default 1024); got '{}'",
                  f_.D);
    s.D = static_cast<double>(parse_count(f_.D.empty() ? "1024" : f_.D, "--D"));
    if (!(s.B >= 1 && s.F >= 1 && s.D >= 1)) throw_usage("--B, --F and --D: at least 1 each");
    model::Ceilings c;
    if (hw) {
      c.memory_bytes_per_s = hw->memory_bytes_per_s;
      if (f_.flops.empty()) {
        try {
          c.flops_per_s = hw->flops_for(f_.datatype);
        } catch (const UsageError& e) {
          throw UsageError(fmt::format("{}; choose one of those, or give --flops C for {}", e.what(), f_.datatype));
        }
      }
      v.chip = fmt::format("{} ({})", hw->name, hw->origin);
    } else {
      if (f_.flops.empty())
        throw_usage("--topology/--level: give --hw PRESET (the chip), 'hardware' in the topology, or --flops C");
      v.chip = "--flops";
    }
    apply_ceiling_flags({f_.flops, "", "", "", f_.reduce_rate}, c);
    if (!(c.flops_per_s >= 1)) throw_usage("--flops: {} FLOP/s is less than one per second", c.flops_per_s);
    if (hw && !f_.flops.empty()) v.chip += ", --flops";
    s.flops_per_s = c.flops_per_s;
    s.reduce_s_per_elem = c.reduce_s_per_elem;
    v.levels = model::predict_levels(v.topology, s);
    return v;
  }

  // --sharding fsdp: the flags that only the contracting case has.
  void refuse_contracting_flags() const {
    if (collective_opt_->count() > 0 && f_.collective != "all_gather")
      throw_usage("--collective {}: reduces partial sums after the matmul, which only the contracting case has; with "
                  "--sharding fsdp the exchange is the AllGather of the weights",
                  f_.collective);
    if (!f_.overlap.empty())
      throw_usage("--overlap: chunks of rows of Z are the contracting case's; for fsdp's prefetch, `shardroof sweep "
                  "--sharding fsdp --overlap prefetch` measures it beside its pipeline model");
    if (f_.nodes != 0 || f_.ranks_per_node != 0 || !f_.link_intra.empty() || !f_.link_inter.empty())
      throw_usage("the two-level model (--nodes, --ranks-per-node, --link-intra, --link-inter) is the contracting "
                  "case's (hier's AllReduce and ReduceScatter)");
  }

  PredictPlan make_plan() const {
    PredictPlan plan;
    const int size = model::datatype_size(f_.datatype);
    if (size == 0) throw_usage("--datatype: '{}' is not one of double, float, bfloat16, half, int8", f_.datatype);
    plan.datatype = f_.datatype;
    plan.shape.bytes_per_elem = size;
    if (f_.sharding != "contracting" && f_.sharding != "fsdp")
      throw_usage("--sharding: '{}' is not one of contracting, fsdp", f_.sharding);
    const bool fsdp = f_.sharding == "fsdp";
    if (fsdp) {
      refuse_contracting_flags();
      plan.shape.sharding = model::Sharding::Fsdp;
      plan.shape.collective = model::Collective::AllGather;
    } else if (f_.collective == "all_reduce") {
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
      if (f_.hw.empty())
        throw_usage("the two-level model needs --hw (see --list); --link-intra and --link-inter default to the "
                    "preset's default link and its slowest other link");
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
    plan.shape.F = static_cast<double>(parse_count(f_.F, "--F"));
    // fsdp: D stays whole (the model's Shape::B) and the table's values are batches.
    const std::string& swept = fsdp ? (B_opt_->count() > 0 ? f_.B : std::string()) : f_.D;
    if (fsdp && f_.D.find_first_of(",:") != std::string::npos)
      throw_usage("--D: with --sharding fsdp D is one number, whole on every rank (--B lists the batches); got '{}'",
                  f_.D);
    plan.shape.B = static_cast<double>(fsdp ? parse_count(f_.D.empty() ? "1024" : f_.D, "--D") : parse_count(f_.B, "--B"));
    if (!swept.empty()) {
      for (auto v : parse_int_list(swept, fsdp ? "--B" : "--D")) {
        if (fsdp && v % static_cast<std::uint64_t>(ranks) != 0)
          throw_usage("--B: {} does not split over {} ranks: with --sharding fsdp every batch is a multiple of the "
                      "ranks (each rank holds B/N rows)",
                      v, ranks);
        plan.D_values.push_back(static_cast<double>(v));
      }
    }

    model::Ceilings& c = plan.ceilings;
    const CeilingFlags flags{f_.flops, f_.bw, f_.latency, f_.memory_bw, f_.reduce_rate};
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
    const auto given = apply_ceiling_flags(flags, c);
    // Only values that replaced a preset's are "overridden"; --reduce-rate has no preset value.
    if (plan.hw)
      for (const auto& flag : given)
        if (flag != "--reduce-rate") plan.overridden.push_back(flag);
    if (!f_.overlap.empty()) {
      model::ChunkChoice choice;
      // Chunks are rows of Z (AllReduce) or pieces of every rank's block
      // (ReduceScatter), as in sweep --overlap.
      const double most = plan.shape.collective == model::Collective::AllReduce
                              ? plan.shape.B
                              : std::floor(plan.shape.B * plan.shape.F / ranks);
      choice.max_chunks = static_cast<std::uint64_t>(std::clamp(most, 1.0, double{model::kAutoMaxChunks}));
      if (f_.overlap == "auto") {
        choice.automatic = true;
      } else {
        const double k = parse_number(f_.overlap, "--overlap");
        if (!(k >= 1 && k == std::floor(k) && k <= most && k <= 2147483647.0))
          throw_usage("--overlap: a whole number of chunks from 1 to {:.0f} (rows of Z for all_reduce, the "
                      "smallest rank's block for reduce_scatter), or auto; got '{}'",
                      std::min(most, 2147483647.0), f_.overlap);
        choice.chunks = static_cast<int>(k);
      }
      plan.overlap = choice;
    }
    plan.overhead_s = parse_number(f_.overhead, "--overhead");
    if (!(plan.overhead_s >= 0)) throw_usage("--overhead: must be 0 or more seconds, got '{}'", f_.overhead);
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
    const auto& intra = hw.link(intra_link_name());
    const auto& inter = hw.link(inter_link_name(hw));
    t.ceilings.intra = {intra.bytes_per_s, intra.latency_s};
    t.ceilings.inter = {inter.bytes_per_s, inter.latency_s};
    t.ceilings.ranks_per_inter_link = f_.ranks_per_inter_link;
    t.sources = {fmt::format("{} {}", hw.name, intra.name), fmt::format("{} {}", hw.name, inter.name), ""};
    return t;
  }

  // The two-level model's links: as named, else the preset's default link
  // inside a node and its slowest other link between nodes.
  std::string intra_link_name() const { return f_.link_intra; }  // "" names the default link
  std::string inter_link_name(const model::HardwarePreset& hw) const {
    return f_.link_inter.empty() ? hw.default_inter_link() : f_.link_inter;
  }

  // The link the flat ring runs at: the slower of the two (the lower W).
  std::string slower_link(const model::HardwarePreset& hw) const {
    const auto& intra = hw.link(intra_link_name());
    const auto& inter = hw.link(inter_link_name(hw));
    return inter.bytes_per_s <= intra.bytes_per_s ? inter.name : intra.name;
  }

  PredictFlags f_;
  CLI::Option* ranks_opt_ = nullptr;
  CLI::Option* collective_opt_ = nullptr;
  CLI::Option* B_opt_ = nullptr;
};

}  // namespace

std::unique_ptr<Command> make_predict_command() { return std::make_unique<PredictCommand>(); }

}  // namespace shardroof

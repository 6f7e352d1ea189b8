// `shardroof sweep`: the main job. Sweeps the contracting dimension D of a
// D-sharded matmul, times compute and communication separately and
// together, and puts the measured crossover D* beside the roofline
// prediction from ceilings measured in the same run.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <optional>
#include <nlohmann/json.hpp>
#include <sstream>

#define TOML_EXCEPTIONS 1
#include <toml++/toml.h>

#include "cli/command.h"
#include "cli/common_flags.h"
#include "cli/values.h"
#include "commands/gate_run.h"
#include "commands/run_output.h"
#include "collectives/mpi_transport.h"
#include "compute/compute_backend.h"
#include "link/link_summary.h"
#include "measure/comm_setup.h"
#include "report/preset_report.h"
#include "report/sweep_report.h"
#include "report/two_level_report.h"
#include "shardroof/default_config.h"
#include "sweep/analysis.h"
#include "sweep/overlap.h"
#include "sweep/overlap_model.h"
#include "sweep/plan.h"
#include "sweep/runner.h"
#include "sweep/search.h"
#include "sweep/two_level.h"
#include "util/agreement.h"
#include "util/error.h"
#include "util/memory_budget.h"
#include "util/mpi_session.h"
#include "util/topology.h"

namespace shardroof {
namespace {

// The flags as typed; their defaults are configs/default.toml's (built in,
// and set again from it by apply_builtin_defaults).
struct SweepFlags {
  std::uint64_t B = 1024;
  std::uint64_t F = 1024;
  std::string D = "auto";
  std::string budget_s = "60";
  std::string min_span_s = "30";
  int min_rounds = static_cast<int>(sweep::kMinRounds);
  ComputeFlags compute;
  std::string collective = "all_reduce";
  std::string impl = "ring";
  std::string transport = "mpi";
  TimingFlags timing{2, 10};
  int check = 1;
  std::uint64_t seed = 20240601;
  std::string segment_bytes = "auto";
  std::string overlap = "1";
  int ranks_per_node = 0;
  OutputFlags output;
  BaselineFlags baseline;
  std::string model_hw;
  std::string model_link;
  std::string link_from;
};

std::string toml_value_text(const toml::node& node) {
  if (node.is_string()) return *node.value<std::string>();
  if (node.is_integer()) return std::to_string(*node.value<long long>());
  if (node.is_floating_point()) return fmt::format("{}", *node.value<double>());
  if (node.is_boolean()) return *node.value<bool>() ? "1" : "0";
  if (const auto* arr = node.as_array()) {
    std::string out;
    for (const auto& item : *arr) out += (out.empty() ? "" : ",") + toml_value_text(item);
    return out;
  }
  throw RuntimeError("built-in default config: unsupported value");
}

// Makes the built-in config the flags' defaults (shown by --help).
void apply_builtin_defaults(CLI::App& app) {
  const toml::table root = toml::parse(std::string_view(kDefaultSweepToml), std::string_view("configs/default.toml (built in)"));
  for (const auto& [key, value] : root) {
    CLI::Option* opt = app.get_option_no_throw("--" + std::string(key.str()));
    if (!opt) throw RuntimeError(fmt::format("built-in default config: unknown key '{}'", key.str()));
    opt->run_callback_for_default()->default_val(toml_value_text(value));
  }
}

// What --datatype takes: the types with a GEMM.
constexpr std::initializer_list<coll::DataType> kSweepDataTypes = {coll::DataType::Float, coll::DataType::Double,
                                                              coll::DataType::BFloat16};

// What `--D auto` times on one rank.
constexpr const char* kOneRankD = "16:1024:x2";

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Rank 0's search step to every rank (only rank 0 keeps the reason).
void share_step(MPI_Comm comm, sweep::SearchStep& step) {
  long long v[5] = {static_cast<long long>(step.stop), static_cast<long long>(step.D),
                    static_cast<long long>(step.D2), step.round ? 1 : 0, step.iters};
  broadcast_from_root(comm, v);
  step.stop = static_cast<sweep::SearchStop>(v[0]);
  step.D = static_cast<std::uint64_t>(v[1]);
  step.D2 = static_cast<std::uint64_t>(v[2]);
  step.round = v[3] != 0;
  step.iters = static_cast<int>(v[4]);
}

class SweepCommand final : public Command {
 public:
  std::string name() const override { return "sweep"; }
  std::string description() const override {
    return "The main job: sweep D, time compute vs communication, locate the crossover D* beside the prediction";
  }

  void add_options(CLI::App& app) override {
    app.add_option("--B", f_.B, "Rows of X and Z (batch)")->capture_default_str();
    app.add_option("--F", f_.F, "Columns of Y and Z")->capture_default_str();
    app.add_option("--D", f_.D,
                   "Contracting dimensions: auto (search the crossover and its 95% interval), a list 64,128,1000 "
                   "or a range lo:hi:xK (or lo:hi:+K)")
        ->capture_default_str();
    app.add_option("--budget-s", f_.budget_s,
                   "With --D auto: seconds the whole run may take; the search starts no measurement that would "
                   "end later")
        ->capture_default_str();
    app.add_option("--min-span-s", f_.min_span_s,
                   "With --D auto: the rounds at the crossing must spread over at least this many seconds before "
                   "the search may stop (one short window is one sample of the machine's state)")
        ->capture_default_str();
    app.add_option("--min-rounds", f_.min_rounds,
                   "With --D auto: rounds (measurements of the two points around D* with the ceilings) before the "
                   "search may stop")
        ->capture_default_str();
    add_datatype_flag(app, f_.compute.datatype, kSweepDataTypes);
    app.add_option("--collective", f_.collective, "all_reduce | reduce_scatter")->capture_default_str();
    app.add_option("--impl", f_.impl,
                   "ring (ours) | hier (ours, two levels: ring inside each node, rings across nodes) | native (the "
                   "library's) | auto | pairwise | direct")
        ->capture_default_str();
    add_ranks_per_node_flag(app, f_.ranks_per_node);
    add_backend_flag(app, f_.compute.backend);
    app.add_option("--transport", f_.transport, "What the collective runs over: mpi | nccl (cuda only)")
        ->capture_default_str();
    add_gemm_flags(app, f_.compute);
    add_timing_flags(app, f_.timing);
    add_check_flag(app, f_.check);
    app.add_option("--seed", f_.seed, "Seed of the operands X and Y")->capture_default_str();
    add_segment_bytes_flag(app, f_.segment_bytes);
    app.add_option("--overlap", f_.overlap,
                   "Also time the step in K chunks of rows of Z, each chunk's collective overlapping the next "
                   "chunk's GEMM (T_overlap, the pipeline model's prediction and the parts of its gap); a list "
                   "2,4,8 times each K; auto: the model picks K at each point; 1: not")
        ->capture_default_str();
    add_json_flag(app, f_.output);
    app.add_option("--link-from", f_.link_from,
                   "Take the book model's W and alpha from a `shardroof link --json` FILE instead of the ring probe");
    add_csv_flag(app, f_.output);
    add_trace_flag(app, f_.output);
    app.add_option("--model-hw", f_.model_hw,
                   "Also predict the same shapes on a hardware preset (see `predict --list`), and a hybrid: "
                   "this machine's GEMM with the preset's link");
    app.add_option("--model-link", f_.model_link, "Link of --model-hw (default: the preset's default link)");
    add_baseline_flags(app, f_.baseline);
    apply_builtin_defaults(app);
  }

  int run(RunContext& ctx) override {
    const auto run_start = std::chrono::steady_clock::now();
    const int ranks = ctx.mpi.size();
    sweep::SweepPlan plan;
    std::optional<ModelHardware> model_hw;
    std::optional<link::ModelLink> link_from;
    const NodeMemory node = node_memory(ctx.mpi.world());
    Topology topology = discover_topology(ctx.mpi.world());
    run_agreed(ctx.mpi.world(), [&] {
      plan = make_plan(ranks, node);
      topology = with_ranks_per_node(topology, f_.ranks_per_node);
      plan.ring.hier.node_of_rank = topology.node_of_rank;
      if (plan.impl == coll::Algorithm::Hier)
        if (const std::string why = hier_unavailable_reason(topology, plan.kind == coll::CollectiveKind::ReduceScatter);
            !why.empty())
          throw_usage("--impl hier: {}", why);
      if (plan.overlap.enabled()) sweep::require_thread_support(ctx.mpi.thread_level());
      model_hw = resolve_model_hardware(f_.model_hw, f_.model_link, std::string(coll::to_string(plan.type)));
      if (!f_.link_from.empty()) link_from = link::load_link_fit(f_.link_from);
    });
    RunOutput out = RunOutput::agree(ctx, "sweep", "points", {f_.output.json, f_.output.csv, f_.output.trace, true});
    std::unique_ptr<ComputeBackend> backend;
    std::unique_ptr<CommSetup> setup;
    run_agreed(ctx.mpi.world(), [&] {
      backend = make_compute_backend(plan.backend, {plan.threads, f_.compute.tf32 == 1}, ctx.mpi.world());
      if (!backend->supports(plan.type))
        throw_usage("--datatype {}: the {} backend has no GEMM for it", coll::to_string(plan.type), f_.compute.backend);
      if (plan.check && !backend->computes_values())
        throw_usage("--check 1: the backend computes no product to check ({}); give --check 0", backend->describe());
      // Device memory: each rank's GPU (one rank per GPU; ranks that share
      // one with SHARDROOF_ALLOW_SHARED_GPU are checked as if alone).
      if (plan.backend != Backend::Cpu) {
        const std::size_t free = backend->free_memory_bytes();
        budget_memory(plan, ranks,
                      {free > 0 ? std::optional<std::uint64_t>(free) : std::nullopt, 1});
      }
      setup = make_comm_setup(plan.backend, plan.transport, ctx.mpi.world());
    });

    sweep::SweepRunner runner(plan, *backend, *setup, ctx.mpi.world(), out.start_trace());
    SweepContext sc;
    sc.ranks = ranks;
    sc.backend = backend->describe();
    sc.arithmetic = backend->arithmetic(plan.type);
    sc.timed_gemm = runner.timed_gemm_work();
    sc.collective = setup->describe(plan.impl);
    sc.auto_D = f_.D == "auto";

    SweepConsoleReporter console(ctx.out);
    console.header(plan, sc);
    out.begin_document(
        {{"ranks", ranks},
         {"settings", sweep_settings_json(plan, sc)},
         {"aggregation", kAggregationNote},
         {"topology", topology_json(topology)}});
    nlohmann::json& doc = out.document();
    RunGate gate(ctx, f_.baseline, {}, doc);
    const std::vector<std::string> rank_hosts = doc["environment"]["hosts"];

    ctx.progress << fmt::format("sweep: measuring the ceilings (C_peak, g, M, T_comm at S{})\n",
                                link_from ? "" : ", the ring probe")
                 << std::flush;
    sweep::RunCeilings ceilings = runner.measure_ceilings(!link_from && ranks >= 2);
    if (link_from) {
      // The link file's W is the link in its pattern (ping-pong: the pure
      // link; shift, ring: under load); the local reduction g stays a
      // separate term of the model.
      ceilings.link.W_bytes_per_s = link_from->W_bytes_per_s;
      ceilings.link.alpha_s = link_from->alpha_s;
      ceilings.link.source =
          fmt::format("--link-from {} (pattern {}, medians over {} {} pairs)", f_.link_from, link_from->pattern,
                      link_from->pairs, link_from->source == "cross_node" ? "cross-node" : "same-node");
      ceilings.link.pattern = link_from->pattern;
    }
    if (ceilings.link.probe && ceilings.link.probe->wrong > 0)
      return out.exit_status(fmt::format("the ring probe received {} wrong bytes", ceilings.link.probe->wrong));
    // Two levels (several nodes of several ranks): each level's link as
    // hier's phases see it, beside the whole ring's.
    std::optional<sweep::TwoLevelProbes> levels;
    if (!link_from) {
      ctx.progress << "sweep: the ring probe inside the nodes and across them\n" << std::flush;
      levels = runner.measure_two_level_probes();
    }
    if (levels && (levels->intra.wrong > 0 || levels->inter.wrong > 0 || levels->inter_alone_wrong > 0))
      return out.exit_status(fmt::format("the two-level ring probe received {} wrong bytes",
                                         levels->intra.wrong + levels->inter.wrong + levels->inter_alone_wrong));
    std::vector<sweep::PointRecord> points;
    // Every rank holds the same samples and stamps, so every rank's analysis agrees.
    const sweep::AnalysisOptions analysis_options;
    sweep::SweepAnalysis analysis = sweep::analyze(plan, ranks, ceilings, points, analysis_options);
    // --overlap auto weighs each K with the book's link (W, alpha, g).
    runner.set_overlap_link(analysis.book);
    // --model-hw needs only the ceilings: the same shapes on the preset and
    // the hybrid, at the D list (with --D auto: around the calibrated D_peak).
    std::optional<model::PresetComparison> model_hw_cmp;
    if (model_hw) {
      std::vector<std::uint64_t> Ds = plan.D;
      if (plan.search)
        for (const double d : model::default_D_values(analysis.shape, analysis.D_peak.value_or(0)))
          if (d >= 1 && d <= static_cast<double>(plan.D_max)) Ds.push_back(static_cast<std::uint64_t>(d));
      model_hw_cmp = compare_sweep_with_preset(analysis.shape, analysis.book, *model_hw, Ds);
      doc["model_hw"] = preset_comparison_json(*model_hw, *model_hw_cmp);
    }
    console.ceilings(ceilings, analysis, sc);
    if (const auto two = sweep::analyze_two_level(plan, ceilings, levels, points)) {
      print_two_level(ctx.out, two->shape, two->ceilings, two->prediction, two->sources);
      print_two_level_probes(ctx.out, *levels);
    }
    console.table_header(plan);

    std::optional<sweep::CrossoverSearch> search;
    if (plan.search) {
      sweep::SearchPlan sp;
      sp.D_max = plan.D_max;
      sp.D_min = std::min<std::uint64_t>(static_cast<std::uint64_t>(ranks), plan.D_max);
      // Start where the roof model puts the crossing with the collective's
      // own T_comm at S; at the floor (a shard of one column) when T_comm
      // lies below it, rather than walking D down to it.
      const model::RoofCrossover& start = analysis.roofs_measured;
      const double guess = start.kind == model::CrossoverKind::BelowFloor ? static_cast<double>(sp.D_min)
                           : start.D > 0                                   ? start.D
                                                                           : analysis.D_peak.value_or(64);
      sp.D_start = sweep::nearest_power_of_two(guess, sp.D_min, sp.D_max);
      if (start.kind == model::CrossoverKind::BelowFloor) sp.D_start = sp.D_min;
      sp.timing = plan.timing;
      sp.budget_s = plan.budget_s;
      sp.min_span_s = plan.min_span_s;
      sp.min_rounds = plan.min_rounds;
      search.emplace(sp);
    }
    SearchReport search_report;
    search_report.search = search ? &*search : nullptr;
    // The document from the points so far (rank 0 writes it), then the files.
    const auto update_document = [&] {
      if (!ctx.mpi.is_root()) return;
      doc["ceilings"] = ceilings_json(ceilings, analysis);
      doc["points"] = nlohmann::json::array();
      for (std::size_t i = 0; i < points.size(); ++i) {
        nlohmann::json point = point_json(points[i], analysis.points[i]);
        point.update(point_ranks_json(analysis.points[i], rank_hosts));
        doc["points"].push_back(std::move(point));
      }
      doc["crossover"] = crossover_json(analysis, search_report);
      doc["stability"] = sweep_stability_json(analysis);
      if (const auto two = sweep::analyze_two_level(plan, ceilings, levels, points)) {
        doc["two_level"] = two_level_sweep_json(*two, analysis, std::string(to_string(plan.impl)));
        doc["two_level"]["probes"] = two_level_probes_json(*levels);
      }
      doc["summary"] = points.empty() ? "" : sweep_summary_text(points, analysis, ceilings, plan, search_report);
      doc["complete"] = plan.search ? search_report.stop.stop != sweep::SearchStop::None
                                    : points.size() == plan.D.size();
    };
    const auto csv_text = [&] { return sweep_csv(points, analysis, plan); };
    const std::optional<std::size_t> total = plan.search ? std::nullopt : std::optional(plan.D.size());
    const auto publish = [&] {
      update_document();
      out.publish(points.size(), total, csv_text);
    };
    publish();

    // One measurement: into the points (merged with an earlier one at the
    // same D), the analysis, the table and the files.
    // A round's rows are shown when a point's measurements reach a power of
    // two (and at the end): the table shows the rounds converge without a
    // row for each.
    const auto measure = [&](std::uint64_t D, const TimingPlan& timing, bool in_round = false) {
      sweep::PointRecord rec = runner.measure_point(D, timing);
      auto it = std::lower_bound(points.begin(), points.end(), D,
                                 [](const sweep::PointRecord& p, std::uint64_t d) { return p.D < d; });
      if (it != points.end() && it->D == D)
        sweep::merge_point(*it, rec);
      else
        it = points.insert(it, std::move(rec));
      const auto shown = static_cast<std::size_t>(it - points.begin());
      analysis = sweep::analyze(plan, ranks, ceilings, points, analysis_options);
      const std::size_t n = points[shown].windows.size();
      if (!in_round || (n & (n - 1)) == 0) {
        console.row(points[shown], analysis.points[shown]);
        console.straggler(points[shown], analysis.points[shown], rank_hosts);
      }
    };

    if (!plan.search) {
      for (std::size_t i = 0; i < plan.D.size(); ++i) {
        // Every rank stops at the same point when any rank got SIGINT/SIGTERM.
        if (out.stop_requested(points.size())) break;
        ctx.progress << fmt::format("sweep: D = {} ({}/{})\n", plan.D[i], i + 1, plan.D.size()) << std::flush;
        measure(plan.D[i], plan.timing);
        // Each point reaches the files as soon as it is measured.
        publish();
      }
    } else {
      while (!out.stop_requested(search->log().size())) {
        // Rank 0 decides (its clock is the budget's) and every rank follows.
        const double elapsed = seconds_since(run_start);
        sweep::SearchStep step;
        if (ctx.mpi.is_root()) step = search->next(points, analysis, elapsed);
        share_step(ctx.mpi.world(), step);
        search_report.elapsed_s = elapsed;
        if (step.stop != sweep::SearchStop::None) {
          search_report.stop = step;
          break;
        }
        ctx.progress << fmt::format("sweep: D = {}{}, {} iterations ({}; {:.1f} s)\n", step.D,
                                    step.D2 ? fmt::format(" and {}", step.D2) : std::string(), step.iters, step.why,
                                    elapsed)
                     << std::flush;
        const double t0 = seconds_since(run_start);
        measure(step.D, {plan.timing.warmup, step.iters}, step.round);
        if (step.D2) measure(step.D2, {plan.timing.warmup, step.iters}, step.round);
        if (step.round) {
          // The ceilings the book prediction uses, in the same round as the points.
          sweep::merge_ceilings(ceilings, runner.measure_ceiling_round(ceilings));
          analysis = sweep::analyze(plan, ranks, ceilings, points, analysis_options);
        }
        search->record(step, seconds_since(run_start) - t0);
        search_report.elapsed_s = seconds_since(run_start);
        publish();
      }
      search_report.elapsed_s = seconds_since(run_start);
      // The last round's points as they ended, where their rows were not the last shown.
      if (!search->log().empty() && search->log().back().round)
        for (const std::uint64_t D : {search->log().back().D, search->log().back().D2})
          for (std::size_t i = 0; i < points.size(); ++i)
            if (D != 0 && points[i].D == D && (points[i].windows.size() & (points[i].windows.size() - 1)) != 0)
              console.row(points[i], analysis.points[i]);
    }
    // Every rank gets here, interrupted or not: the traced points are kept.
    out.finish_trace(std::string("the last timed iteration of T_math, T_comm") +
                         (plan.overlap.enabled() ? ", T_step and T_overlap" : " and T_step") +
                         " at each D; warm-up, the other timed iterations and the ceilings (C_peak, g, M, T_comm "
                         "at S, the ring probe) are not traced",
                     plan.backend == Backend::Cuda);
    update_document();
    long long wrong = 0;
    for (const auto& p : points) wrong += p.check.wrong + p.overlap_check.wrong;
    return end_run(out, gate, doc,
                   {csv_text,
                    [&] {
                      console.summary(points, analysis, ceilings, plan, search_report);
                      if (const auto two = sweep::analyze_two_level(plan, ceilings, levels, points))
                        print_two_level_crossovers(ctx.out, *two, analysis, std::string(to_string(plan.impl)));
                      if (model_hw_cmp) print_preset_comparison(ctx.out, *model_hw, *model_hw_cmp);
                    },
                    false, wrong > 0 ? "the distributed product is wrong (see check)" : "", ""});
  }

 private:
  sweep::SweepPlan make_plan(int ranks, const NodeMemory& node) const {
    sweep::SweepPlan plan;
    if (f_.B < 1 || f_.B > INT_MAX) throw_usage("--B: must be between 1 and {}, got {}", INT_MAX, f_.B);
    if (f_.F < 1 || f_.F > INT_MAX) throw_usage("--F: must be between 1 and {}, got {}", INT_MAX, f_.F);
    plan.B = f_.B;
    plan.F = f_.F;
    plan.budget_s = parse_number(f_.budget_s, "--budget-s");
    if (!(plan.budget_s > 0)) throw_usage("--budget-s: must be a positive number of seconds, got '{}'", f_.budget_s);
    plan.min_span_s = parse_number(f_.min_span_s, "--min-span-s");
    if (!(plan.min_span_s >= 0))
      throw_usage("--min-span-s: must be a number of seconds, 0 or more, got '{}'", f_.min_span_s);
    if (f_.min_rounds < 1) throw_usage("--min-rounds: must be at least 1, got {}", f_.min_rounds);
    plan.min_rounds = static_cast<std::size_t>(f_.min_rounds);
    // One rank communicates nothing, so there is no crossover to search:
    // --D auto times the GEMM over a fixed grid instead.
    plan.search = f_.D == "auto" && ranks >= 2;
    if (!plan.search) {
      plan.D = parse_int_list(f_.D == "auto" ? kOneRankD : f_.D, "--D");
      for (const auto d : plan.D)
        if (d / static_cast<std::uint64_t>(ranks) + 1 > INT_MAX) throw_usage("--D: {} is too large", d);
    }
    plan.type = datatype_flag(f_.compute.datatype, kSweepDataTypes);
    const auto kind = coll::parse_collective(f_.collective);
    if (!kind || (*kind != coll::CollectiveKind::AllReduce && *kind != coll::CollectiveKind::ReduceScatter))
      throw_usage("--collective: '{}' is not one of all_reduce, reduce_scatter", f_.collective);
    plan.kind = *kind;
    const auto impl = coll::parse_algorithm(f_.impl);
    if (!impl) throw_usage("--impl: '{}' is not one of ring, hier, native, auto, pairwise, direct", f_.impl);
    plan.impl = *impl;
    plan.backend = backend_flag(f_.compute.backend);
    const auto transport = parse_transport(f_.transport);
    if (!transport) throw_usage("--transport: '{}' is not one of mpi, nccl", f_.transport);
    plan.transport = *transport;
    check_gemm_flags(f_.compute, plan.backend);
    plan.threads = f_.compute.threads;
    plan.timing = timing_plan(f_.timing);
    plan.check = check_enabled(f_.check);
    plan.seed = f_.seed;
    plan.ring.segment_bytes = parse_segment_bytes(f_.segment_bytes, "--segment-bytes");
    plan.overlap = sweep::parse_overlap(f_.overlap, plan.B, plan.F, ranks, plan.kind);
    // On a GPU the operands live in device memory: checked once the
    // backend can say how much is free (run()).
    if (plan.backend == Backend::Cpu) budget_memory(plan, ranks, node);
    return plan;
  }

  // Memory per rank: the two shards, the partial sum and its result, and
  // the buffers of T_comm at S (2 x 2*B*F), with --overlap on a CPU the second
  // partial sum and result of the interference measurement (2*B*F more);
  // refuse what cannot fit rather than die. --D auto stays below the
  // largest D that fits.
  void budget_memory(sweep::SweepPlan& plan, int ranks, const NodeMemory& node) const {
    const std::uint64_t es = coll::size_of(plan.type);
    const std::uint64_t buffers = plan.overlap.enabled() && plan.backend == Backend::Cpu ? 8 : 6;
    const std::uint64_t fixed = saturating_mul(saturating_mul(buffers * es, plan.B), plan.F);
    if (plan.search) {
      require_memory(node, fixed, fmt::format("--B {} and --F {}", plan.B, plan.F));
      const std::optional<std::uint64_t> usable = usable_bytes_per_rank(node);
      // Unknown memory: only MPI's int counts bound the search.
      std::uint64_t shard = static_cast<std::uint64_t>(INT_MAX) - 1;
      if (usable) shard = std::min(shard, (*usable - fixed) / (es * (plan.B + plan.F)));
      if (shard < 1) throw_usage("--B {} and --F {} leave no memory for a shard of X and Y", plan.B, plan.F);
      plan.D_max = shard * static_cast<std::uint64_t>(ranks);
      return;
    }
    const std::uint64_t dmax = (plan.D.back() + static_cast<std::uint64_t>(ranks) - 1) / static_cast<std::uint64_t>(ranks);
    require_memory(node, saturating_add(saturating_mul(es * (plan.B + plan.F), dmax), fixed),
                   fmt::format("--D {} with --B {} and --F {}", plan.D.back(), plan.B, plan.F));
  }

  SweepFlags f_;
};

}  // namespace

std::unique_ptr<Command> make_sweep_command() { return std::make_unique<SweepCommand>(); }

}  // namespace shardroof

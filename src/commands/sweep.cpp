// `shardroof sweep`: the main job. Sweeps the contracting dimension D of a
// D-sharded matmul (or, with --sharding fsdp, the batch B of a matmul whose
// weights are gathered first), times compute and communication separately
// and together, and puts the measured crossover D* (B*) beside the
// roofline prediction from ceilings measured in the same run.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/common_flags.h"
#include "cli/config_file.h"
#include "commands/backends.h"
#include "commands/gate_run.h"
#include "commands/run_output.h"
#include "collectives/mpi_transport.h"
#include "compute/compute_backend.h"
#include "ceilings/hardware_limits.h"
#include "launches/records.h"
#include "report/hardware_report.h"
#include "link/link_summary.h"
#include "measure/comm_setup.h"
#include "report/answer.h"
#include "report/bringup.h"
#include "report/preset_report.h"
#include "report/sweep_report.h"
#include "report/sweep_levels_report.h"
#include "report/two_level_report.h"
#include "shardroof/default_config.h"
#include "sweep/analysis.h"
#include "sweep/flags.h"
#include "sweep/overlap.h"
#include "sweep/overlap_model.h"
#include "sweep/plan.h"
#include "sweep/runner.h"
#include "sweep/search.h"
#include "sweep/levels.h"
#include "sweep/two_level.h"
#include "util/agreement.h"
#include "util/error.h"
#include "util/memory_budget.h"
#include "util/mpi_session.h"
#include "util/topology.h"

namespace shardroof {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

class SweepCommand final : public Command {
 public:
  std::string name() const override { return "sweep"; }
  std::string description() const override {
    return "The main job: sweep D (or the batch B with --sharding fsdp), time compute vs communication, locate the "
           "crossover D* (B*) beside the prediction";
  }

  void add_options(CLI::App& app) override {
    app_ = &app;
    sweep::add_sweep_flags(app, f_);
    // configs/default.toml, built in, makes the flags' defaults (shown by --help).
    apply_config_defaults(app, kDefaultSweepToml, "configs/default.toml (built in)");
  }

  int run(RunContext& ctx) override {
    const auto run_start = std::chrono::steady_clock::now();
    const int ranks = ctx.mpi.size();
    sweep::SweepPlan plan;
    std::optional<ModelHardware> model_hw;
    std::vector<GateExpectation> expectations;
    std::optional<link::ModelLink> link_from;
    const NodeMemory node = node_memory(ctx.mpi.world());
    Topology topology = discover_topology(ctx.mpi.world());
    run_agreed(ctx.mpi.world(), [&] {
      plan = sweep::make_sweep_plan(f_, *app_, ranks, node);
      topology = with_levels(with_ranks_per_node(topology, f_.ranks_per_node), f_.levels);
      plan.ring.hier.node_of_rank = topology.node_of_rank;
      plan.ring.hier.group_of_rank = topology.group_of_rank;
      if (plan.impl == coll::Algorithm::Hier)
        if (const std::string why = hier_unavailable_reason(topology, plan.kind == coll::CollectiveKind::ReduceScatter);
            !why.empty())
          throw_usage("--impl hier: {}", why);
      if (plan.overlap.enabled() || plan.prefetch.enabled) sweep::require_thread_support(ctx.mpi.thread_level());
      model_hw = resolve_model_hardware(f_.model_hw, f_.model_link, std::string(coll::to_string(plan.type)));
      if (!f_.link_from.empty()) link_from = link::load_link_fit(f_.link_from);
      expectations = expect_c_gate(f_.expect_C, "C, the reference GEMM's rate (C_peak)");
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
        sweep::budget_memory(plan, ranks,
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
    sc.auto_D = plan.swept_auto;

    // The hardware's own limits first (a second): the header names the BLAS kernel and any shortfall.
    ctx.progress << "sweep: the hardware's own peak (register-only loops) and the links' line rates\n" << std::flush;
    HardwareLimits hardware =
        measure_hardware_limits(*backend, ctx.mpi.world(), {plan.type}, plan.threads, f_.compute.tf32 == 1);
    const hw::RingLineRate line_rate = hw::ring_line_rate(gather_host_nets(ctx.mpi.world()));

    sweep::AnalysisOptions analysis_options;  // --history: the launch-to-launch spread of earlier launches
    run_agreed(ctx.mpi.world(), [&] {
      if (!f_.history.empty())
        analysis_options.history = launches::read_history(f_.history, sweep_settings_json(plan, sc), ranks);
    });

    // The header, ceilings, rows and diagnostics: behind -v (the JSON keeps them).
    SweepConsoleReporter console(ctx.detail);
    console.header(plan, sc);
    ctx.detail << hardware_header_text(hardware, {plan.type});
    out.begin_document(
        {{"ranks", ranks},
         {"settings", sweep_settings_json(plan, sc)},
         {"aggregation", kAggregationNote},
         {"topology", topology_json(topology)}});
    nlohmann::json& doc = out.document();
    add_hardware_json(doc, hardware, {plan.type});
    RunGate gate(ctx, f_.baseline, std::move(expectations), doc);
    const std::vector<std::string> rank_hosts = doc["environment"]["hosts"];

    ctx.progress << fmt::format("sweep: measuring the ceilings (C_peak, g, M, T_comm at S{})\n",
                                link_from ? "" : ", the ring probe")
                 << std::flush;
    sweep::RunCeilings ceilings = runner.measure_ceilings(!link_from && ranks >= 2);
    read_gpu_clocks(*backend, ctx.mpi.world(), hardware);
    add_hardware_json(doc, hardware, {plan.type});
    ceilings.hardware = hardware;
    ceilings.line_rate = line_rate;
    if (link_from) sweep::use_link_from(ceilings, *link_from, f_.link_from);
    if (ceilings.link.probe && ceilings.link.probe->wrong > 0)
      return out.exit_status(fmt::format("the ring probe received {} wrong bytes", ceilings.link.probe->wrong));
    // Two levels (several nodes of several ranks): each level's link as
    // hier's phases see it, beside the whole ring's.
    // Past two levels (levels above the nodes): every level's probes and
    // T_comm at S over its groups instead; hier runs over all of them.
    const bool past_two_levels = !topology.group_of_rank.empty();
    std::optional<sweep::TwoLevelProbes> levels;
    if (!link_from && !plan.fsdp() && !past_two_levels) {
      ctx.progress << "sweep: the ring probe inside the nodes and across them\n" << std::flush;
      levels = runner.measure_two_level_probes();
    }
    if (levels && (levels->intra.wrong > 0 || levels->inter.wrong > 0 || levels->inter_alone_wrong > 0))
      return out.exit_status(fmt::format("the two-level ring probe received {} wrong bytes",
                                         levels->intra.wrong + levels->inter.wrong + levels->inter_alone_wrong));
    std::optional<sweep::LevelMeasurements> per_level;
    if (!plan.fsdp() && past_two_levels) {
      ctx.progress << fmt::format("sweep: the ring probes and T_comm at S on each level ({})\n", describe(topology))
                   << std::flush;
      per_level = runner.measure_levels(hierarchy_layout(topology));
    }
    if (per_level) {
      long long wrong = per_level->probes.wrong();
      for (const auto& c : per_level->comm) wrong += c.wrong;
      if (wrong > 0)
        return out.exit_status(fmt::format("the per-level probes and collectives received {} wrong elements or bytes",
                                           wrong));
    }
    std::vector<sweep::PointRecord> points;
    // Every rank holds the same samples and stamps, so every rank's analysis agrees.
    sweep::SweepAnalysis analysis = sweep::analyze(plan, ranks, ceilings, points, analysis_options);
    // --overlap auto weighs each K with the book's link (W, alpha, g).
    runner.set_overlap_link(analysis.book);
    // --model-hw needs only the ceilings: the same shapes on the preset and
    // the hybrid, at the D list (with --D auto: around the calibrated D_peak).
    std::optional<model::PresetComparison> model_hw_cmp;
    if (model_hw) {
      model_hw_cmp = compare_sweep_with_preset(analysis.shape, analysis.book, *model_hw, sweep::model_D_values(plan, analysis));
      doc["model_hw"] = preset_comparison_json(*model_hw, *model_hw_cmp);
    }
    console.ceilings(ceilings, analysis, sc);
    if (const auto two = sweep::analyze_two_level(plan, ceilings, levels, points)) {
      print_two_level(ctx.detail, two->shape, two->ceilings, two->prediction, two->sources);
      print_two_level_probes(ctx.detail, *levels);
    }
    if (per_level) print_sweep_level_probes(ctx.detail, *per_level);
    console.table_header(plan);

    std::optional<sweep::CrossoverSearch> search;
    if (plan.search) search.emplace(sweep::search_plan(plan, ranks, analysis));
    SearchReport search_report;
    search_report.search = search ? &*search : nullptr;
    // The document from the points so far (rank 0 writes it), then the files.
    const auto update_document = [&] {
      if (ctx.mpi.is_root())
        add_sweep_results_json(doc, plan, ceilings, analysis, points, search_report, levels,
                               sweep::analyze_two_level(plan, ceilings, levels, points), rank_hosts);
      if (ctx.mpi.is_root() && per_level)
        if (const auto l = sweep::analyze_levels(plan, ceilings, per_level, points))
          doc["levels"] = sweep_levels_json(*l, *per_level);
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
        ctx.progress << fmt::format("sweep: {} = {} ({}/{})\n", sweep::swept_name(plan), plan.D[i], i + 1,
                                    plan.D.size())
                     << std::flush;
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
        sweep::share_step(ctx.mpi.world(), step);
        search_report.elapsed_s = elapsed;
        if (step.stop != sweep::SearchStop::None) {
          search_report.stop = step;
          break;
        }
        ctx.progress << fmt::format("sweep: {} = {}{}, {} iterations ({}; {:.1f} s)\n", sweep::swept_name(plan), step.D,
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
    // What follows the last measurement must stay small beside it:
    // scripts/bench-analysis.sh times it from this line.
    ctx.progress << fmt::format("sweep: measured in {:.1f} s; analysing\n", seconds_since(run_start)) << std::flush;
    // Every rank gets here, interrupted or not: the traced points are kept.
    out.finish_trace(std::string("the last timed iteration of T_math, T_comm") +
                         (plan.overlap.enabled()    ? ", T_step and T_overlap"
                          : plan.prefetch.enabled ? ", T_step, T_serial and T_prefetch"
                                                  : " and T_step") +
                         " at each " + sweep::swept_name(plan) +
                         "; warm-up, the other timed iterations and the ceilings (C_peak, g, M, T_comm "
                         "at S, the ring probe) are not traced",
                     plan.backend == Backend::Cuda);
    // The final analysis adds the book's interval (its inputs drawn again).
    sweep::AnalysisOptions final_options = analysis_options;
    final_options.book_interval = true;
    analysis = sweep::analyze(plan, ranks, ceilings, points, final_options);
    update_document();
    // --history with states: this launch's own levels say which state it ran in.
    if (ctx.mpi.is_root() && analysis_options.history && doc.contains("crossover"))
      doc["crossover"]["history_state"] = history_state_json(
          *analysis_options.history, launches::place_launch(launches::sweep_readings(doc), *analysis_options.history));
    long long wrong = 0;
    for (const auto& p : points) wrong += p.check.wrong + p.overlap_check.wrong;
    return end_run(out, gate, doc,
                   {csv_text,
                    [&] {
                      console.summary(points, analysis, ceilings, plan, search_report);
                      if (const auto two = sweep::analyze_two_level(plan, ceilings, levels, points))
                        print_two_level_crossovers(ctx.detail, *two, analysis, std::string(to_string(plan.impl)));
                      // The answer block has one line of it.
                      if (const auto l = sweep::analyze_levels(plan, ceilings, per_level, points))
                        print_sweep_levels(ctx.detail, *l);
                      if (model_hw_cmp) print_preset_comparison(ctx.detail, *model_hw, *model_hw_cmp);
                      // A BLAS kernel below the CPU is said by default: it changes every number above.
                      for (const auto& w : hardware_warnings(hardware, {plan.type})) ctx.out << w << "\n";
                      if (ctx.mpi.is_root()) print_answer(ctx.out, answer_of(bringup::read_record(doc)));
                    },
                    false, wrong > 0 ? "the distributed product is wrong (see check)" : "", ""});
  }

 private:
  sweep::SweepFlags f_;
  const CLI::App* app_ = nullptr;
};

}  // namespace

std::unique_ptr<Command> make_sweep_command() { return std::make_unique<SweepCommand>(); }

}  // namespace shardroof

#include <fmt/format.h>

#include <cmath>

#include "report/stability_report.h"
#include "report/straggler_report.h"
#include "report/sweep_report.h"
#include "launches/records.h"
#include "report/hardware_report.h"
#include "report/two_level_report.h"
#include "report/sweep_text.h"
#include "report/time_stats_json.h"

namespace shardroof {

std::string crossover_method(int bootstrap_replicates) {
  return fmt::format(
      "D_empirical: log-log interpolation of T_math/T_comm between the neighbouring points where it first turns "
      "from below 1 to 1 or more; D_empirical_ci: two-stage percentile bootstrap ({} replicates) of those two "
      "points' measurements (rounds) and of the samples within each, widened to hold the crossover of every "
      "state the machine was in (stability); D_empirical_ci_samples: the bootstrap alone; D_book: the book's "
      "model with W and alpha of the link (ring probe or --link-from), g of the reduction kernel, all measured "
      "in the same rounds, and C = the per-point GEMM rate interpolated in D; D_roofline: the roof model "
      "(C_peak, M and the GEMM's floor) against the book's T_comm, with the roof it falls on; D_predicted "
      "(calibrated, a consistency check): the model with T_comm = the collective's median at S (W_eff) and the "
      "per-point C; D_peak: the calibrated model with C_peak, = (N-1)*s*critical_intensity (AllReduce; half for "
      "ReduceScatter); D_roofs: the same with the memory roof M",
      bootstrap_replicates);
}
namespace {

nlohmann::json interval_json(const std::optional<sweep::Interval>& i) {
  if (!i) return nullptr;
  return nlohmann::json::array({i->low > 0 ? nlohmann::json(i->low) : nlohmann::json(nullptr),
                                std::isfinite(i->high) ? nlohmann::json(i->high) : nlohmann::json(nullptr)});
}

nlohmann::json optional_json(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json check_json(const sweep::PointCheck& c) {
  if (!c.checked) return {{"passed", nullptr}, {"method", "off"}};
  return {{"passed", c.passed()},
          {"method", c.method},
          {"wrong", c.wrong},
          {"tested", c.tested},
          {"worst_error_over_tolerance", c.worst_ratio}};
}

nlohmann::json gemm_json(const GemmRate& g) {
  return {{"m", g.m}, {"n", g.n}, {"k", g.k}, {"time_s", time_stats_json(g.time)}, {"iterations", g.time.samples.size()}};
}

nlohmann::json finite_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

nlohmann::json conditioning_json(const model::Conditioning& c) {
  return {{"slope", c.slope}, {"sensitivity", finite_or_null(c.sensitivity)}, {"ill_conditioned", c.ill_conditioned}};
}

nlohmann::json roof_crossover_json(const model::RoofCrossover& x) {
  const bool crossing = x.kind == model::CrossoverKind::Crossing || x.kind == model::CrossoverKind::AboveRange;
  return {{"kind", model::to_string(x.kind)},
          {"D", crossing ? nlohmann::json(x.D) : nlohmann::json(nullptr)},
          {"roof", crossing ? nlohmann::json(model::to_string(x.roof)) : nlohmann::json(nullptr)},
          {"t_comm_s", x.t_comm_s},
          {"floor_s", x.floor_s},
          {"floor_cause", model::to_string(x.floor_cause)},
          {"conditioning", crossing ? conditioning_json(x.conditioning) : nlohmann::json(nullptr)}};
}

}  // namespace

nlohmann::json sweep_settings_json(const sweep::SweepPlan& plan, const SweepContext& ctx) {
  const nlohmann::json swept = plan.search ? nlohmann::json("auto") : nlohmann::json(plan.D);
  const bool fsdp = plan.fsdp();
  nlohmann::json j = {
      {"sharding", model::to_string(plan.sharding)},
      // The dimension the sweep varies: the points' "D" field holds its values.
      {"swept", sweep::swept_name(plan)},
      {"B", fsdp ? swept : nlohmann::json(plan.B)},
      {"F", plan.F},
      {"D", fsdp ? nlohmann::json(plan.fsdp_D) : swept},
      {"budget_s", plan.search ? nlohmann::json(plan.budget_s) : nlohmann::json(nullptr)},
      {"min_span_s", plan.search ? nlohmann::json(plan.min_span_s) : nlohmann::json(nullptr)},
      {"min_rounds", plan.search ? nlohmann::json(plan.min_rounds) : nlohmann::json(nullptr)},
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
      {"redraw_buffers", plan.redraw_buffers},
      {"segment_bytes", plan.ring.segment_bytes},
      // One K as a number (1: none), a list, or "auto"; with fsdp "prefetch" or 1.
      {"overlap", plan.prefetch.enabled           ? nlohmann::json("prefetch")
                  : plan.overlap.automatic        ? nlohmann::json("auto")
                  : plan.overlap.chunks.size() == 1 ? nlohmann::json(plan.overlap.chunks.front())
                  : plan.overlap.chunks.empty()     ? nlohmann::json(1)
                                                    : nlohmann::json(plan.overlap.chunks)},
      {"overlap_auto_margin", model::kAutoMargin},
      {"overlap_chunks", plan.overlap.graded ? "graded" : "even"},
      {"overlap_wait", plan.overlap.sleeping_waits ? "sleep" : "mpi"},
      {"sharding_detail",
       fsdp ? "the batch B split in equal contiguous blocks of rows (N divides B); each rank holds X[B/N, D] and "
              "1/N of the weight W[D, F] (balanced blocks of its elements), gathered whole before the GEMM"
            : "D split in balanced contiguous blocks; the first D % N ranks hold one more"}};
  if (plan.prefetch.enabled) j["layers"] = plan.prefetch.layers;
  return j;
}

namespace {

// C beside the hardware's own peak per rank (null where it is not known).
nlohmann::json hardware_peak_json(const sweep::RunCeilings& c) {
  if (!c.hardware) return nullptr;
  const auto lim = c.hardware->compute_limit(c.peak_gemm.type);
  if (!lim) return nullptr;
  return {{"flops_per_s_per_rank", lim->flops_per_s},
          {"name", lim->name},
          {"formula", lim->formula},
          {"C_share", c.peak_gemm.flops_per_s / lim->flops_per_s}};
}

}  // namespace

nlohmann::json ceilings_json(const sweep::RunCeilings& c, const sweep::SweepAnalysis& a) {
  nlohmann::json round_starts = nlohmann::json::array();
  for (const double t : c.round_starts) round_starts.push_back(t - c.origin_s);
  nlohmann::json probe = nullptr;
  if (c.link.probe) {
    const auto& p = *c.link.probe;
    nlohmann::json times = nlohmann::json::array();
    for (const auto& t : p.step_time) times.push_back(time_stats_json(t));
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
      {"C_flops_per_s", a.C_peak},
      {"C_reference_median_flops_per_s", c.peak_gemm.flops_per_s},
      {"M_bytes_per_s", c.memory.triad_bytes_per_s},
      {"g_s_per_element", c.reduce.s_per_elem},
      {"W_bytes_per_s", c.link.W_bytes_per_s},
      {"alpha_s", c.link.alpha_s},
      {"link_source", c.link.source},
      {"link_pattern", c.link.pattern.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.link.pattern)},
      {"ring_probe", probe},
      {"collective_at_S",
       {{"bytes", c.collective.bytes},
        {"time_s", time_stats_json(c.collective.time)},
        {"iterations", c.collective.time.samples.size()}}},
      {"t_comm_measured_s", a.t_comm_measured_s},
      {"t_comm_measured_samples", a.t_comm_samples},
      {"t_comm_run_s", a.t_comm_run_s},
      {"t_comm_run_samples", a.t_comm_run_samples},
      {"t_comm_points_median_range_s", {a.t_comm_points_min_s, a.t_comm_points_max_s}},
      {"W_eff_bytes_per_s", a.W_eff_bytes_per_s},
      {"t_comm_book_s", a.t_comm_book_s},
      {"C_peak_gemm", gemm_json(c.peak_gemm)},
      {"hardware_peak", hardware_peak_json(c)},
      {"line_rate", ring_line_rate_json(c.line_rate, c.link.W_bytes_per_s)},
      {"floor_gemm", gemm_json(c.floor_gemm)},
      {"call_gemm", gemm_json(c.call_gemm)},
      {"floor",
       {{"time_s", a.floor.time_s},
        {"memory_s", a.floor.memory_s},
        {"call_s", a.floor.call_s},
        {"cause", model::to_string(a.floor.cause())},
        {"method",
         "time_s: the GEMM at B x F with a shard of one column (k = 1); memory_s: its memory roof, s*(B + F + "
         "B*F)/M; call_s: a 1x1x1 GEMM on the host clock with the device synchronised; cause: memory when "
         "memory_s >= time_s/2, else overhead"}}},
      {"rounds", c.rounds},
      {"round_starts_s", round_starts},
      {"reduction",
       {{"elements", c.reduce.count}, {"time_s", time_stats_json(c.reduce.time)}, {"s_per_element", c.reduce.s_per_elem}}},
      {"memory",
       {{"elements_per_array", c.memory.elements},
        {"copy_bytes_per_s", c.memory.copy_bytes_per_s},
        {"triad_bytes_per_s", c.memory.triad_bytes_per_s}}},
  };
}

namespace {

nlohmann::json overlap_runs_json(const sweep::PointRecord& p, const sweep::PointDerived& d) {
  nlohmann::json runs = nlohmann::json::array();
  for (std::size_t i = 0; i < p.overlap_runs.size(); ++i) {
    const sweep::OverlapRun& r = p.overlap_runs[i];
    nlohmann::json run = {{"chunks", r.chunks},
                          {"growth", r.growth},
                          {"t_overlap_s", time_stats_json(r.t_overlap)},
                          {"check", check_json(r.check)},
                          {"elements", r.elements},
                          {"gemm_alone_s", r.gemm_alone_s},
                          {"comm_alone_s", r.comm_alone_s},
                          {"comm_busy_s", r.comm_busy_s},
                          {"gemm_in_step_s", r.gemm_in_step_s},
                          {"comm_in_step_s", r.comm_in_step_s},
                          {"stamped_step_s", r.stamped_step_s}};
    if (r.transport_cpu) {
      const sweep::TransportCpu& t = *r.transport_cpu;
      const auto known = [](double v) { return v >= 0 ? nlohmann::json(v) : nlohmann::json(nullptr); };
      run["transport_cpu"] = {{"wall_s", t.wall_s},         {"thread_cores", t.thread},
                              {"process_cores", t.process}, {"node_cores", known(t.node)},
                              {"softirq_cores", known(t.softirq)}, {"cores", t.cores()},
                              {"node_cpus", t.node_cpus},   {"node_ranks", t.node_ranks},
                              {"gemm_threads", t.gemm_threads}};
    }
    if (i < d.overlap_runs.size()) {
      const sweep::OverlapRunAnalysis& a = d.overlap_runs[i];
      run["model"] = {{"t_predicted_s", a.model.t_predicted},
                      {"predicted_error", a.predicted_error},
                      {"interference_s", a.model.interference},
                      {"chunk_collectives_s", a.model.chunk_collectives},
                      {"interference", {{"gemm_slowdown", a.interference.gemm}, {"comm_slowdown", a.interference.comm}}},
                      {"interference_source", a.interference_source},
                      {"comm_slowdown_source", a.comm_source},
                      {"measured_interference",
                       a.measured_interference
                           ? nlohmann::json{{"gemm_slowdown", a.measured_interference->gemm},
                                            {"comm_slowdown", a.measured_interference->comm}}
                           : nlohmann::json(nullptr)},
                      {"t_predicted_measured_interference_s", optional_json(a.t_predicted_measured)},
                      {"hidden_share", optional_json(a.hidden)},
                      {"hidden_share_predicted", optional_json(a.hidden_predicted)},
                      {"bound", a.bound},
                      {"limit", a.limit},
                      {"t_model_s", a.model.t_model},
                      {"t_ideal_s", a.model.t_ideal},
                      {"t_perfect_s", a.model.t_perfect},
                      {"t_no_overlap_s", a.model.t_no_overlap},
                      {"model_error", a.model_error},
                      {"parts_s",
                       {{"thinner_gemms", a.model.thinner_gemms},
                        {"chunk_latency", a.model.chunk_latency},
                        {"link_model", a.model.link_model}}}};
      run["pipeline_efficiency"] = optional_json(a.efficiency);
      run["gap"] = a.stamped ? nlohmann::json{{"parts_s",
                                               {{"collectives_alone", a.gap.collectives_alone},
                                                {"gemm_interference", a.gap.gemm_interference},
                                                {"comm_interference", a.gap.comm_interference},
                                                {"hand_over", a.gap.hand_over},
                                                {"other", a.gap.other}}},
                                              {"gemm_slowdown", a.gap.gemm_slowdown},
                                              {"comm_slowdown", a.gap.comm_slowdown}}
                             : nlohmann::json(nullptr);
    }
    runs.push_back(std::move(run));
  }
  return runs;
}

}  // namespace

nlohmann::json point_json(const sweep::PointRecord& p, const sweep::PointDerived& d) {
  nlohmann::json j = {{"D", p.D},
                      {"shard", p.shard_max},
                      {"iterations", p.iterations},
                      {"t_math_s", time_stats_json(p.t_math)},
                      {"t_comm_s", time_stats_json(p.t_comm)},
                      {"t_step_s", time_stats_json(p.t_step)},
                      {"flops_per_s", p.flops_per_s},
                      {"frac_peak", d.frac_peak},
                      {"step_flops_per_s", d.step_flops_per_s},
                      {"intensity", d.intensity},
                      {"bound", sweep_text::bound(d)},
                      {"regime", sweep_text::bound(d)},
                      {"roof_fraction", d.regime.roof_fraction},
                      {"roofs",
                       {{"compute_s", d.regime.roofs.compute_s},
                        {"memory_s", d.regime.roofs.memory_s},
                        {"floor_s", d.regime.roofs.floor_s},
                        {"floor_cause", model::to_string(d.regime.roofs.floor_cause)}}},
                      {"windows", p.windows},
                      {"check", check_json(p.check)}};
  if (p.t_overlap) {
    const auto& e = d.overlap;
    j["t_overlap_s"] = time_stats_json(*p.t_overlap);
    j["overlap_efficiency"] = optional_json(e.value);
    if (!e.value) j["overlap_efficiency_undefined"] = e.undefined;
    j["overlap_check"] = check_json(p.overlap_check);
  }
  if (!p.overlap_runs.empty() || p.overlap_choice) j["overlap_runs"] = overlap_runs_json(p, d);
  if (p.concurrent) j["concurrent_step"] = {{"gemm_s", p.concurrent->gemm_s}, {"comm_s", p.concurrent->comm_s}};
  if (p.prefetch) {
    const sweep::PrefetchRun& r = *p.prefetch;
    nlohmann::json pre = {{"layers", r.layers},
                          {"t_serial_s", time_stats_json(r.t_serial)},
                          {"t_prefetch_s", time_stats_json(r.t_prefetch)},
                          {"gather_alone_s", r.gather_alone_s},
                          {"gemm_alone_s", r.gemm_alone_s},
                          {"check", check_json(r.check)}};
    if (d.prefetch) {
      pre["model"] = {{"t_predicted_s", d.prefetch->model.t_predicted},
                      {"predicted_error", d.prefetch->predicted_error},
                      {"t_ideal_s", d.prefetch->model.t_ideal},
                      {"t_no_overlap_s", d.prefetch->model.t_no_overlap},
                      {"formula",
                       "gather_end(l) = max(gather_end(l-1), gemm_end(l-2)) + c_l; gemm_end(l) = max(gemm_end(l-1), "
                       "gather_end(l)) + g_l; T = gemm_end(L)"}};
      pre["efficiency"] = optional_json(d.prefetch->efficiency.value);
      if (!d.prefetch->efficiency.value) pre["efficiency_undefined"] = d.prefetch->efficiency.undefined;
    }
    j["prefetch"] = std::move(pre);
  }
  if (p.overlap_choice) {
    nlohmann::json candidates = nlohmann::json::array();
    for (const auto& c : p.overlap_choice->candidates)
      candidates.push_back({{"chunks", c.chunks}, {"gemm_s", c.gemm_s}, {"t_predicted_s", c.t_predicted}});
    j["overlap_choice"] = {{"chosen", p.overlap_choice->chosen},
                           {"margin", model::kAutoMargin},
                           {"candidates", candidates},
                           {"rule", "the fewest chunks whose predicted T_overlap is within margin of the best"}};
  }
  return j;
}

nlohmann::json point_ranks_json(const sweep::PointDerived& d, const std::vector<std::string>& hosts) {
  nlohmann::json ranks = nlohmann::json::array();
  for (const auto& [name, summaries] : d.ranks) {
    for (std::size_t r = 0; r < summaries.size(); ++r) {
      if (ranks.size() <= r) ranks.push_back({{"rank", summaries[r].rank}, {"host", host_of(hosts, summaries[r].rank)}});
      nlohmann::json one = rank_summary_json(summaries[r], hosts, kSeconds);
      one.erase("rank");
      one.erase("host");
      ranks[r][name + "_s"] = std::move(one);
    }
  }
  nlohmann::json straggler = nullptr;
  if (d.straggler) {
    straggler = straggler_json(d.straggler->straggler, hosts, kSeconds);
    straggler["measurement"] = d.straggler->measurement;
  }
  return {{"ranks", std::move(ranks)}, {"straggler", std::move(straggler)}};
}

namespace {
nlohmann::json overlap_outlook_json(const std::optional<model::OverlapOutlook>& o) {
  if (!o) return nullptr;
  return {{"d_star", o->d_star},
          {"target", o->target},
          {"efficiency_no_overlap", o->efficiency_no_overlap},
          {"efficiency_overlap", o->efficiency_overlap},
          {"chunks_at_d_star", o->chunks_at_d_star},
          {"D_target_no_overlap", optional_json(o->D_target_no_overlap)},
          {"D_target_overlap", optional_json(o->D_target_overlap)},
          {"chunks_at_D_target", o->chunks_at_D_target},
          {"source", "the book's ceilings (C_peak, M, W, alpha, g): each chunk's GEMM from the roofs at B/K rows, "
                     "its collective from the link"}};
}
}  // namespace

namespace {

// Each input of the book's prediction and how wide the interval is with it
// alone drawn again (high/low), the widest first.
nlohmann::json book_widths_json(const sweep::SweepAnalysis& a) {
  if (!a.book_interval) return nullptr;
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [input, ratio] : a.book_interval->widths) out.push_back({{"input", input}, {"high_over_low", ratio}});
  return out;
}

}  // namespace

namespace {

// fsdp: the book's rule is stated per rank, B*/N = C s (N-1)/(2 N W) + (N-1) a C/(2 D F).
nlohmann::json fsdp_per_rank_json(const sweep::SweepAnalysis& a) {
  const double n = a.shape.ranks;
  const auto per_rank = [&](const std::optional<double>& v) { return v ? nlohmann::json(*v / n) : nlohmann::json(nullptr); };
  nlohmann::json ci = nullptr;
  if (a.interval)
    ci = interval_json(sweep::Interval{a.interval->low / n, a.interval->high / n});
  nlohmann::json book = nullptr;
  if (a.book_predicted && a.book.link_bytes_per_s > 0) {
    const double C = a.book_predicted->C_at_D, W = a.book.link_bytes_per_s;
    book = {{"B_per_rank", a.book_predicted->D / n},
            {"bandwidth_term", C * a.shape.bytes_per_elem * (n - 1) / (2 * n * W)},
            {"latency_term", (n - 1) * a.book.latency_s * C / (2 * a.shape.B * a.shape.F)},
            {"C_flops_per_s", C},
            {"C_peak_bandwidth_term", a.C_peak * a.shape.bytes_per_elem * (n - 1) / (2 * n * W)},
            {"W_bytes_per_s", W},
            {"alpha_s", a.book.latency_s},
            {"s", a.shape.bytes_per_elem},
            {"N", a.shape.ranks},
            {"D", a.shape.B},
            {"F", a.shape.F},
            {"formula", "B*/N = C*s*(N-1)/(2*N*W) + (N-1)*alpha*C/(2*D*F), C the GEMM's rate at B*"}};
  }
  return {{"B_empirical", per_rank(a.empirical.D)},
          {"B_empirical_ci", ci},
          {"B_book", a.book_predicted ? nlohmann::json(a.book_predicted->D / n) : nlohmann::json(nullptr)},
          {"book", book}};
}

}  // namespace

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
  nlohmann::json conditioning = nullptr;
  if (a.crossing_regime)
    conditioning = {{"measured", conditioning_json(a.crossing_regime->measured)},
                    {"model", conditioning_json(a.crossing_regime->model)},
                    {"ill_conditioned_below_slope", model::kIllConditionedSlope},
                    {"method",
                     "slope k = d ln T_math / d ln D at D*: measured between the two points around it, model from "
                     "the roofs (1 on the compute roof, below 1 on the memory roof, 0 on the floor); a change of "
                     "T_comm by x moves D* by about x/k"}};
  nlohmann::json no_crossover = nullptr;
  if (a.no_crossover)
    no_crossover = {{"t_comm_s", a.no_crossover->t_comm_s},
                    {"floor_s", a.no_crossover->floor_s},
                    {"floor_model_s", a.no_crossover->floor_model_s},
                    {"cause", model::to_string(a.no_crossover->cause)}};
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
      {"D_roofline", a.roofs_book.kind == model::CrossoverKind::NoModel ? nlohmann::json(nullptr)
                                                                        : roof_crossover_json(a.roofs_book)},
      {"roofline_measured_t_comm", a.roofs_measured.kind == model::CrossoverKind::NoModel
                                       ? nlohmann::json(nullptr)
                                       : roof_crossover_json(a.roofs_measured)},
      {"roof", a.crossing_regime ? nlohmann::json(model::to_string(a.crossing_regime->roof)) : nlohmann::json(nullptr)},
      {"on_floor", a.crossing_regime ? nlohmann::json(a.crossing_regime->on_floor) : nlohmann::json(nullptr)},
      {"conditioning", conditioning},
      {"no_crossover", no_crossover},
      {"D_empirical_ci_samples", interval_json(a.sample_interval)},
      {"D_empirical_ci_covers",
       "within this launch: its iterations, its rounds and the states it saw, and the uncertainty of T_comm's level over the run "
       "carried to D* at 1/k; not what stays fixed for a launch (placement, addresses, the MPI library's segments)"},
      {"D_empirical_replicates", launches::percentiles_json(a.replicate_percentiles)},
      {"t_comm_spread_log", a.t_comm_spread_log},
      {"conditioning_half_width_log", a.conditioning_half_width_log},
      {"D_next_launch_ci", interval_json(a.next_launch_interval)},
      {"history", a.history ? nlohmann::json{{"path", a.history->path},
                                             {"launches", a.history->launches},
                                             {"between_sd_log", a.history->between_sd_log},
                                             {"within_sd_log", a.history->within_sd_log},
                                             {"median", a.history->median}}
                            : nlohmann::json()},
      {"D_book_ci", a.book_interval ? interval_json(a.book_interval->interval) : nlohmann::json()},
      {"D_book_replicates",
       a.book_interval ? launches::percentiles_json(a.book_interval->percentiles) : nlohmann::json()},
      {"D_book_ci_widths", book_widths_json(a)},
      {"book_holds_measured", a.book_interval && a.empirical.D
                                  ? nlohmann::json(a.book_interval->interval.low <= *a.empirical.D &&
                                                   *a.empirical.D <= a.book_interval->interval.high)
                                  : nlohmann::json()},
      {"overlap_outlook", overlap_outlook_json(a.overlap_outlook)},
      {"D_predicted_is", "a consistency check (the collective's own T_comm at S from the points around D*), not a "
                         "prediction"},
      {"D_book_is", "the prediction: ceilings measured apart from the collective, in the same rounds"},
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
      {"method", crossover_method()}};
  if (!a.empirical.extend().empty()) j["extend"] = a.empirical.extend();
  // The fields named D_* hold the swept dimension's values, which `swept` names.
  j["sharding"] = model::to_string(a.shape.sharding);
  j["swept"] = model::swept_name(a.shape.sharding);
  if (a.shape.sharding == model::Sharding::Fsdp) j["per_rank"] = fsdp_per_rank_json(a);
  if (search.search) {
    nlohmann::json log = nlohmann::json::array();
    for (const auto& r : search.search->log())
      log.push_back({{"D", r.D},
                     {"D2", r.D2 ? nlohmann::json(r.D2) : nlohmann::json(nullptr)},
                     {"round", r.round},
                     {"iterations", r.iters},
                     {"wall_s", r.wall_s},
                     {"why", r.why}});
    j["search"] = {{"budget_s", search.search->plan().budget_s},
                   {"min_span_s", search.search->plan().min_span_s},
                   {"min_rounds", search.search->plan().min_rounds},
                   {"target_half_width", search.search->plan().target},
                   {"D_start", search.search->plan().D_start},
                   {"stop", sweep::to_string(search.stop.stop)},
                   {"why", search.stop.why},
                   {"elapsed_s", search.elapsed_s},
                   {"measurements", log}};
  }
  return j;
}


nlohmann::json history_state_json(const launches::LaunchHistory& h, const std::vector<launches::PlacedPart>& parts) {
  if (!h.has_states)
    return {{"path", h.path},
            {"has_states", false},
            {"note", "the history record has no states (made before combine recorded them): only its "
                     "launch-to-launch spread is used"}};
  nlohmann::json each = nlohmann::json::array();
  for (const auto& p : parts) {
    nlohmann::json x = {{"share", p.share}, {"D", p.value > 0 ? nlohmann::json(p.value) : nlohmann::json()}};
    if (p.placement.state) {
      const auto& k = h.states[*p.placement.state];
      x["state"] = k.name;
      x["seen_in"] = k.launches_seen;
      x["of"] = k.launches;
      x["tentative"] = k.tentative;
      if (k.no_crossover.empty())
        x["expected"] = {k.predict_low, std::isfinite(k.predict_high) ? nlohmann::json(k.predict_high) : nlohmann::json()};
      else
        x["expected"] = nullptr;
      // Its launches located none: the state expects none.
      x["no_crossover_expected"] = k.no_crossover.empty() ? nlohmann::json() : nlohmann::json(k.no_crossover);
      x["inside"] = p.inside.value_or(false);
    } else {
      x["state"] = nullptr;
      if (p.placement.differing)
        x["differing"] = {{"quantity", launches::to_string(*p.placement.differing)},
                          {"is", launches::describe(*p.placement.differing)},
                          {"value", p.placement.value},
                          {"unit", launches::unit_of(*p.placement.differing)},
                          {"nearest_state", p.placement.nearest},
                          {"nearest_level", p.placement.known_level}};
    }
    each.push_back(std::move(x));
  }
  return {{"path", h.path},
          {"has_states", true},
          {"parts", each},
          {"method", "this launch's own levels (T_comm at S, the ring probe's W, the GEMM's rate) against each "
                     "state's: within max(material ratio, z x sqrt(own noise^2 + the state's spread^2)) on every "
                     "level they share, the nearest such state; none: a state not seen before"}};
}

nlohmann::json sweep_stability_json(const sweep::SweepAnalysis& a) {
  if (!a.stability.computed) return nullptr;
  nlohmann::json states = nlohmann::json::array();
  for (const auto& x : a.stability.states)
    states.push_back({{"quantity", x.quantity},
                      {"level_s", x.level_s},
                      {"share", x.share},
                      {"D", optional_json(x.crossing.D)},
                      {"extrapolated", x.crossing.extrapolated},
                      {"below_floor", x.crossing.below_floor},
                      {"book_t_comm_s", optional_json(x.book_t_comm_s)},
                      {"book_D", x.book_crossing ? optional_json(x.book_crossing->D) : nlohmann::json(nullptr)}});
  nlohmann::json ceilings = nlohmann::json::object();
  for (const auto& [name, st] : a.stability.ceilings) ceilings[name] = stability_json(st);
  nlohmann::json overlap = nullptr;
  if (a.stability.t_step && a.stability.t_overlap)
    overlap = {{"t_step", stability_json(*a.stability.t_step)}, {"t_overlap", stability_json(*a.stability.t_overlap)}};
  return {{"verdict", a.stability.unstable() ? "unstable" : "stable"},
          {"overlap", overlap},
          {"ceilings", ceilings},
          {"C_peak_flops_per_s", a.C_peak},
          {"t_comm", stability_json(a.stability.t_comm)},
          {"t_math", stability_json(a.stability.t_math)},
          {"gemm", stability_json(a.stability.gemm)},
          {"crossover_per_state", states},
          {"times", "seconds since the run began (the ceilings' first measurement), rank 0's monotonic clock"}};
}

void add_sweep_results_json(nlohmann::json& doc, const sweep::SweepPlan& plan, const sweep::RunCeilings& ceilings,
                            const sweep::SweepAnalysis& analysis, const std::vector<sweep::PointRecord>& points,
                            const SearchReport& search, const std::optional<sweep::TwoLevelProbes>& levels,
                            const std::optional<sweep::TwoLevelAnalysis>& two, const std::vector<std::string>& hosts) {
  doc["ceilings"] = ceilings_json(ceilings, analysis);
  doc["points"] = nlohmann::json::array();
  for (std::size_t i = 0; i < points.size(); ++i) {
    nlohmann::json point = point_json(points[i], analysis.points[i]);
    point.update(point_ranks_json(analysis.points[i], hosts));
    doc["points"].push_back(std::move(point));
  }
  doc["crossover"] = crossover_json(analysis, search);
  doc["stability"] = sweep_stability_json(analysis);
  if (two && levels) {
    doc["two_level"] = two_level_sweep_json(*two, analysis, std::string(to_string(plan.impl)));
    doc["two_level"]["probes"] = two_level_probes_json(*levels);
  }
  doc["summary"] = points.empty() ? "" : sweep_summary_text(points, analysis, ceilings, plan, search);
  doc["complete"] = plan.search ? search.stop.stop != sweep::SearchStop::None : points.size() == plan.D.size();
}

}  // namespace shardroof

#include "sweep/analysis.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "link/alpha_beta_fit.h"
#include "ceilings/ceilings.h"
#include "stability/statistics.h"
#include "timing/stats.h"
#include "util/units.h"

namespace shardroof::sweep {

namespace {

std::optional<double> finite(double v) { return std::isfinite(v) ? std::optional<double>(v) : std::nullopt; }

std::optional<PredictedCrossover> finite(std::optional<PredictedCrossover> p) {
  if (p && !(std::isfinite(p->D) && std::isfinite(p->C_at_D))) return std::nullopt;
  return p;
}

// The uncertainty of T_comm's level at S over the run: the standard error
// of the mean of the log of each measurement's median (the ceilings'
// collective at S and every point's T_comm, each round a measurement),
// sd / sqrt(measurements); 0 with fewer than three.
double t_comm_spread_log(const RunCeilings& ceilings, const std::vector<PointRecord>& points) {
  std::vector<double> logs;
  const auto add = [&](const TimeStats& t) {
    std::size_t first = 0;
    std::vector<std::size_t> counts = t.windows;
    if (counts.empty()) counts = {t.samples.size()};
    for (const std::size_t c : counts) {
      if (c == 0 || first + c > t.samples.size()) break;
      std::vector<double> w(t.samples.begin() + static_cast<std::ptrdiff_t>(first),
                            t.samples.begin() + static_cast<std::ptrdiff_t>(first + c));
      const double m = summarize(std::move(w)).median;
      if (m > 0) logs.push_back(std::log(m));
      first += c;
    }
  };
  add(ceilings.collective.time);
  for (const auto& p : points) add(p.t_comm);
  if (logs.size() < 3) return 0;
  double mean = 0;
  for (const double v : logs) mean += v;
  mean /= static_cast<double>(logs.size());
  double var = 0;
  for (const double v : logs) var += (v - mean) * (v - mean);
  return std::sqrt(var / static_cast<double>(logs.size() - 1) / static_cast<double>(logs.size()));
}

}  // namespace

double SweepAnalysis::critical_intensity() const {
  return calibrated.link_bytes_per_s > 0 ? model::critical_intensity(calibrated) : 0;
}

std::vector<std::uint64_t> model_D_values(const SweepPlan& plan, const SweepAnalysis& a) {
  std::vector<std::uint64_t> Ds = plan.D;
  if (plan.search)
    for (const double d : model::default_D_values(a.shape, a.D_peak.value_or(0)))
      if (d >= 1 && d <= static_cast<double>(plan.D_max)) Ds.push_back(static_cast<std::uint64_t>(d));
  return Ds;
}

double material_ratio(double target) { return (1 + target) / (1 - target); }

model::GemmFloor measured_floor(const model::Shape& shape, const RunCeilings& ceilings) {
  model::Ceilings c;
  c.memory_bytes_per_s = ceilings.memory.triad_bytes_per_s;
  c.flops_per_s = ceilings.peak_gemm.flops_per_s;
  model::GemmFloor f = model::model_floor(shape, c, ceilings.call_gemm.time.median);
  if (ceilings.floor_gemm.time.median > 0) f.time_s = ceilings.floor_gemm.time.median;
  return f;
}


namespace {

// The samples of `t` whose stamps (seconds since `origin`) fall in `state`.
std::vector<double> samples_in(const TimeStats& t, double origin, const stability::State& state) {
  std::vector<double> out;
  if (t.stamps.size() != t.samples.size()) return out;
  for (std::size_t i = 0; i < t.samples.size(); ++i)
    if (state.holds(t.stamps[i] - origin)) out.push_back(t.samples[i]);
  return out;
}

}  // namespace

std::optional<double> book_t_comm_in_state(const model::Shape& shape, const RunCeilings& ceilings,
                                           const model::Ceilings& book, const stability::State& state) {
  if (!ceilings.link.probe) return std::nullopt;
  const auto& probe = *ceilings.link.probe;
  std::vector<double> medians;
  for (const auto& t : probe.step_time) {
    std::vector<double> in = samples_in(t, ceilings.origin_s, state);
    if (in.empty()) return std::nullopt;
    medians.push_back(summarize(std::move(in)).median);
  }
  const link::AlphaBetaFit fit = link::fit_alpha_beta(probe.bytes, medians);
  if (!fit.valid) return std::nullopt;
  model::Ceilings c = book;
  c.link_bytes_per_s = fit.W_bytes_per_s;
  c.latency_s = fit.alpha_s;
  std::vector<double> g = samples_in(ceilings.reduce.time, ceilings.origin_s, state);
  if (!g.empty() && ceilings.reduce.count > 0)
    c.reduce_s_per_elem = summarize(std::move(g)).median / static_cast<double>(ceilings.reduce.count);
  return model::t_comm(shape, c);
}

RunStability assess_stability(const RunCeilings& ceilings, const std::vector<PointRecord>& points, double target) {
  RunStability out;
  out.computed = true;
  const double origin = ceilings.origin_s;
  std::vector<stability::TimedWindow> comm, math, gemm;
  // The ceilings' T_comm at S is at no D: label 0.
  stability::append_windows(comm, ceilings.collective.time, 0, origin);
  for (const auto& p : points) {
    stability::append_windows(comm, p.t_comm, p.D, origin);
    // T_math differs between points: each point's samples over its own
    // median, so that the points' measurements over time form one series.
    if (!(p.t_math.median > 0)) continue;
    const std::size_t first = math.size();
    stability::append_windows(math, p.t_math, p.D, origin);
    for (std::size_t w = first; w < math.size(); ++w)
      for (double& v : math[w].samples) v /= p.t_math.median;
  }
  stability::append_windows(gemm, ceilings.peak_gemm.time, 0, origin);
  const double m = material_ratio(target);
  // Each over its own point's median: one series of ratios.
  const auto append_relative = [&](std::vector<stability::TimedWindow>& w, const TimeStats& t, std::uint64_t D) {
    if (!(t.median > 0)) return;
    const std::size_t first = w.size();
    stability::append_windows(w, t, D, origin);
    for (std::size_t i = first; i < w.size(); ++i)
      for (double& v : w[i].samples) v /= t.median;
  };
  std::vector<stability::TimedWindow> steps, overlapped;
  for (const auto& p : points) {
    if (p.overlap_runs.empty()) continue;
    append_relative(steps, p.t_step, p.D);
    for (const auto& r : p.overlap_runs) append_relative(overlapped, r.t_overlap, p.D);
  }
  if (!steps.empty()) {
    out.t_step = stability::assess(steps, m);
    out.t_overlap = stability::assess(overlapped, m);
  }
  out.t_comm = stability::assess(comm, m);
  out.t_math = stability::assess(math, m);
  out.gemm = stability::assess(gemm, m);
  const auto one = [&](const std::string& name, const TimeStats& t) {
    std::vector<stability::TimedWindow> w;
    stability::append_windows(w, t, 0, origin);
    out.ceilings.emplace_back(name, stability::assess(w, m));
  };
  if (ceilings.link.probe && !ceilings.link.probe->step_time.empty())
    one(fmt::format("ring probe at {}", format_bytes(ceilings.link.probe->bytes.back())),
        ceilings.link.probe->step_time.back());
  one("reduction g", ceilings.reduce.time);
  one("memory triad", ceilings.memory.triad);
  one("GEMM floor", ceilings.floor_gemm.time);
  return out;
}

SweepAnalysis analyze(const SweepPlan& plan, int ranks, const RunCeilings& ceilings,
                      const std::vector<PointRecord>& points, const AnalysisOptions& options) {
  SweepAnalysis a;
  a.shape = model_shape(plan, ranks);
  a.floor = measured_floor(a.shape, ceilings);
  if (options.stability) a.stability = assess_stability(ceilings, points, options.target);
  // C_peak is a ceiling: where the reference GEMM ran in states, the
  // fastest state's rate (the pooled median would be a slow state's).
  a.C_peak = ceilings.peak_gemm.flops_per_s;
  if (a.stability.gemm.verdict == stability::Verdict::Unstable && !a.stability.gemm.states.empty()) {
    const auto& g = ceilings.peak_gemm;
    a.C_peak = gemm_flops_per_s(g.m, g.n, g.k, a.stability.gemm.states.front().median);
  }
  a.book.flops_per_s = a.C_peak;
  a.book.memory_bytes_per_s = ceilings.memory.triad_bytes_per_s;
  a.book.link_bytes_per_s = ceilings.link.W_bytes_per_s;
  a.book.latency_s = ceilings.link.alpha_s;
  a.book.reduce_s_per_elem = ceilings.reduce.s_per_elem;
  a.t_comm_book_s = model::t_comm(a.shape, a.book);
  for (const auto& p : points)
    a.points.push_back(derive_point(plan, a.shape, a.book, p, a.floor, ranks >= 2 ? a.t_comm_book_s : 0));
  a.overlap_spread = overlap_efficiency_spread(points);
  if (plan.overlap.enabled()) {
    const std::optional<model::Ceilings> link =
        ranks >= 2 ? std::optional<model::Ceilings>(a.book) : std::nullopt;
    for (std::size_t i = 0; i < points.size(); ++i)
      a.points[i].overlap_runs = analyze_overlap_runs(a.shape, link, points[i]);
    if (ranks >= 2 && a.book.flops_per_s > 0 && a.book.link_bytes_per_s > 0)
      a.overlap_outlook =
          model::overlap_outlook(a.shape, a.book, chunk_choice(plan.overlap, plan.B, plan.F, ranks, plan.kind));
  }
  std::vector<double> D, tm, tc, C;
  std::vector<const PointRecord*> used;
  for (const auto& p : points) {
    // D = 0 carries no information on a log scale.
    if (p.D == 0 || p.t_math.median <= 0 || p.t_comm.median <= 0) continue;
    D.push_back(static_cast<double>(p.D));
    tm.push_back(p.t_math.median);
    tc.push_back(p.t_comm.median);
    C.push_back(p.flops_per_s);
    used.push_back(&p);
  }
  a.empirical = empirical_crossover(D, tm, tc);
  if (a.empirical.D) {
    const PointRecord& lo = *used[a.empirical.lower];
    const PointRecord& hi = *used[a.empirical.lower + 1];
    if (const auto b = crossing_bootstrap({D[a.empirical.lower], D[a.empirical.lower + 1], lo.t_math.samples,
                                           lo.t_comm.samples, hi.t_math.samples, hi.t_comm.samples, lo.windows,
                                           hi.windows},
                                          kIntervalLevel, kBootstrapReplicates, plan.seed)) {
      a.interval = b->interval;
      a.replicate_percentiles = b->percentiles;
    }
    // With few, skewed samples the replicates' central 95% can miss the
    // estimate from all of them; the interval reported always holds it.
    if (a.interval) {
      a.interval->low = std::min(a.interval->low, *a.empirical.D);
      a.interval->high = std::max(a.interval->high, *a.empirical.D);
    }
    a.sample_interval = a.interval;
  }
  // T_comm(S): the collective at S, the same at every D. Over every sample
  // of the run (the ceilings' and each point's) for the record; the
  // calibrated model takes the samples of the two points around D*, the
  // ones that placed it (T_comm can change during a run: a link's state,
  // the load), and every sample when there is no crossing.
  std::vector<double> at_S = ceilings.collective.time.samples;
  for (const auto& p : points) {
    at_S.insert(at_S.end(), p.t_comm.samples.begin(), p.t_comm.samples.end());
    const bool first = &p == &points.front();
    a.t_comm_points_min_s = first ? p.t_comm.median : std::min(a.t_comm_points_min_s, p.t_comm.median);
    a.t_comm_points_max_s = first ? p.t_comm.median : std::max(a.t_comm_points_max_s, p.t_comm.median);
  }
  a.t_comm_run_samples = static_cast<int>(at_S.size());
  a.t_comm_run_s = at_S.empty() ? ceilings.collective.time.median : summarize(at_S).median;
  if (a.empirical.D) {
    const PointRecord& lo = *used[a.empirical.lower];
    const PointRecord& hi = *used[a.empirical.lower + 1];
    at_S = lo.t_comm.samples;
    at_S.insert(at_S.end(), hi.t_comm.samples.begin(), hi.t_comm.samples.end());
  }
  a.t_comm_samples = static_cast<int>(at_S.size());
  a.t_comm_measured_s = at_S.empty() ? ceilings.collective.time.median : summarize(std::move(at_S)).median;
  a.calibrated.flops_per_s = a.book.flops_per_s;
  a.calibrated.memory_bytes_per_s = a.book.memory_bytes_per_s;
  if (ranks >= 2 && a.t_comm_measured_s > 0) {
    // With a = g = 0, T_comm = factor * S / W: T_comm(S) measured fixes W_eff.
    model::Ceilings unit;
    unit.link_bytes_per_s = 1;
    a.W_eff_bytes_per_s = model::t_comm(a.shape, unit) / a.t_comm_measured_s;
    a.calibrated.link_bytes_per_s = a.W_eff_bytes_per_s;
  }
  a.t_comm_spread_log = t_comm_spread_log(ceilings, points);
  if (ranks < 2) return a;
  const double D_max = plan.search && plan.D_max > 0 ? static_cast<double>(plan.D_max)
                                                     : std::numeric_limits<double>::infinity();
  a.roofs_book = model::solve_roof_crossover(a.shape, a.book, a.floor, a.t_comm_book_s, D_max);
  a.roofs_measured = model::solve_roof_crossover(a.shape, a.book, a.floor, a.t_comm_measured_s, D_max);
  const bool first_is_floor = !used.empty() && used.front()->shard_max <= 1;
  if (a.empirical.D) {
    const std::size_t i = a.empirical.lower;
    CrossingRegime r;
    const model::Roofs roofs = model::roofs_at(a.shape, a.book, a.floor, *a.empirical.D);
    r.roof = roofs.binding();
    r.on_floor = roofs.floor_s > std::max(roofs.compute_s, roofs.memory_s);
    r.measured = model::conditioning_of(std::log(tm[i + 1] / tm[i]) / std::log(D[i + 1] / D[i]));
    r.model = model::conditioning_of(model::model_slope(a.shape, a.book, a.floor, *a.empirical.D));
    a.crossing_regime = r;
    // The conditioning: T_comm's spread over the run, carried to D* at 1/k.
    if (a.interval && r.measured.slope > 0 && a.t_comm_spread_log > 0) {
      a.conditioning_half_width_log = kIntervalZ * a.t_comm_spread_log / r.measured.slope;
      const double d = *a.empirical.D;
      a.interval->low = std::min(a.interval->low, d * std::exp(-a.conditioning_half_width_log));
      a.interval->high = std::max(a.interval->high, d * std::exp(a.conditioning_half_width_log));
    }
  } else if (a.empirical.kind == CrossingKind::BelowRange && first_is_floor) {
    NoCrossover n;
    n.t_comm_s = used.front()->t_comm.median;
    n.floor_s = used.front()->t_math.median;
    n.floor_model_s = a.roofs_book.floor_s;
    n.cause = a.floor.cause();
    a.no_crossover = n;
  }
  if (a.stability.computed) {
    const auto add_states = [&](const stability::Stability& st, const char* quantity, bool scale_math) {
      if (st.verdict != stability::Verdict::Unstable) return;
      for (const auto& state : st.states) {
        StateCrossover x;
        x.quantity = quantity;
        x.level_s = state.median;
        x.share = state.share;
        if (scale_math) {
          // The T_math curve in that state: each point's median times the
          // state's ratio to it.
          std::vector<double> scaled = tm;
          for (double& t : scaled) t *= state.median;
          x.crossing = crossing_of_level(D, scaled, a.t_comm_measured_s, first_is_floor);
        } else {
          x.crossing = crossing_of_level(D, tm, state.median, first_is_floor);
          if (const auto book = book_t_comm_in_state(a.shape, ceilings, a.book, state)) {
            x.book_t_comm_s = *book;
            x.book_crossing = crossing_of_level(D, tm, *book, first_is_floor);
          }
        }
        a.stability.states.push_back(x);
      }
    };
    add_states(a.stability.t_comm, "t_comm", false);
    add_states(a.stability.t_math, "t_math", true);
    // The interval holds the crossover of every state (0 below: a state
    // where none exists). Without a crossing (below the floor) it runs
    // from 0 to the largest state's crossing, where a state has one.
    if (!a.interval && a.no_crossover)
      for (const auto& x : a.stability.states)
        if (x.crossing.D) a.interval = Interval{0, 0};
    if (a.interval)
      for (const auto& x : a.stability.states) {
        if (x.crossing.below_floor) a.interval->low = 0;
        if (x.crossing.D) {
          a.interval->low = std::min(a.interval->low, *x.crossing.D);
          a.interval->high = std::max(a.interval->high, *x.crossing.D);
        }
      }
  }
  if (a.calibrated.link_bytes_per_s > 0) {
    a.predicted = finite(predicted_crossover(D, C, a.shape, a.calibrated));
    if (a.calibrated.flops_per_s > 0) {
      a.D_peak = finite(model::d_star(a.shape, a.calibrated));
      a.D_roofs = finite(model::d_star_with_memory(a.shape, a.calibrated));
    }
  }
  if (a.book.link_bytes_per_s > 0) a.book_predicted = finite(predicted_crossover(D, C, a.shape, a.book));
  if (a.book_predicted && options.book_interval)
    a.book_interval = book_interval(a.shape, ceilings, a.book, D, used, kIntervalLevel, kBookReplicates, plan.seed + 1);
  if (a.book_interval) {
    // As D*'s: the interval reported always holds the estimate from all samples.
    a.book_interval->interval.low = std::min(a.book_interval->interval.low, a.book_predicted->D);
    a.book_interval->interval.high = std::max(a.book_interval->interval.high, a.book_predicted->D);
  }
  if (a.empirical.D && a.interval && options.history && options.history->launches >= 2) {
    // (A history whose launches located no crossover has no spread of D*
    // to lend: its states still place this launch.)
    // The next launch has its own launch effect and noise, around this
    // launch's D* (one launch), with the spread the history's launches
    // measured, never below this launch's own (its interval, log scale).
    const launches::LaunchHistory& h = *options.history;
    const double d = *a.empirical.D;
    const double own = launches::within_sd({d, a.interval->low, a.interval->high, {}});
    const double sd = std::sqrt(
        std::max(h.between_sd_log * h.between_sd_log + h.within_sd_log * h.within_sd_log, own * own));
    const stability::Bounds next = stability::next_launch_interval(std::log(d), sd, h.launches, 1, kIntervalLevel);
    a.history = h;
    a.next_launch_interval = Interval{next.low, std::isfinite(a.interval->high) ? next.high : INFINITY};
  }
  if (a.empirical.D) {
    const double d = *a.empirical.D;
    if (a.predicted) a.rel_error = (a.predicted->D - d) / d;
    if (a.book_predicted) a.book_rel_error = (a.book_predicted->D - d) / d;
    const auto book_peak = finite(model::d_star(a.shape, a.book));
    if (book_peak && *book_peak > 0 && a.book.link_bytes_per_s > 0 && a.book.flops_per_s > 0 &&
        a.t_comm_book_s > 0 && a.t_comm_measured_s > 0) {
      ErrorBudget b;
      b.D_book_peak = *book_peak;
      b.C_at_D = interpolate_loglog(D, C, d);
      b.compute_efficiency = b.C_at_D / a.book.flops_per_s;
      b.comm_efficiency = a.t_comm_book_s / a.t_comm_measured_s;
      b.residual = d / (b.D_book_peak * b.compute_efficiency / b.comm_efficiency);
      if (std::isfinite(b.residual)) a.budget = b;
    }
  }
  return a;
}

PointDerived derive_point(const SweepPlan& /*plan*/, const model::Shape& shape, const model::Ceilings& roofs,
                          const PointRecord& p, const model::GemmFloor& floor, double t_comm_model) {
  PointDerived d;
  const double peak = roofs.flops_per_s;
  d.frac_peak = peak > 0 ? p.flops_per_s / peak : 0;
  d.regime = model::classify(model::roofs_at(shape, roofs, floor, static_cast<double>(p.D)), p.t_math.median,
                             shape.ranks < 2 ? 0 : p.t_comm.median, t_comm_model);
  // The slowest rank's GEMM: whole x shard x F in either sharding (model::Shape).
  const double flops = 2.0 * shape.B * static_cast<double>(p.shard_max) * shape.F;
  d.step_flops_per_s = p.t_step.median > 0 ? flops / p.t_step.median : 0;
  d.intensity = shape.ranks < 2 ? 0 : model::intensity(shape, static_cast<double>(p.D));
  d.compute_bound = p.t_math.median >= p.t_comm.median;
  d.overlap = overlap_efficiency(p);
  if (p.prefetch) d.prefetch = analyze_prefetch(p);
  std::vector<std::pair<std::string, const TimeStats*>> measured = {
      {"t_math", &p.t_math}, {"t_comm", &p.t_comm}, {"t_step", &p.t_step}};
  if (p.t_overlap) measured.emplace_back("t_overlap", &*p.t_overlap);
  for (const auto& [name, stats] : measured) {
    auto summaries = rank_summaries(*stats);
    const auto s = find_straggler(summaries);
    if (s && (!d.straggler || s->slower > d.straggler->straggler.slower)) d.straggler = PointStraggler{name, *s};
    d.ranks.emplace_back(name, std::move(summaries));
  }
  return d;
}

PrefetchAnalysis analyze_prefetch(const PointRecord& p) {
  PrefetchAnalysis a;
  if (!p.prefetch) return a;
  const PrefetchRun& r = *p.prefetch;
  a.model = model::predict_prefetch(p.t_math.median, p.t_comm.median, r.gather_alone_s, r.gemm_alone_s);
  const double measured = r.t_prefetch.median;
  a.predicted_error = measured > 0 ? (a.model.t_predicted - measured) / measured : 0;
  const double serial = r.t_serial.median;
  const double hideable = serial - a.model.t_ideal;
  if (!(hideable >= kMinHideableFraction * serial) || serial <= 0) {
    a.efficiency.undefined = fmt::format(
        "T_serial - the ideal pipeline is below {:g}% of T_serial: nothing measurable to hide", 100 * kMinHideableFraction);
  } else {
    a.efficiency.value = (serial - measured) / hideable;
  }
  return a;
}

std::optional<double> hidden_share(const PointRecord& p, double t_overlap) {
  const double step = p.t_step.median;
  const double hideable = step - std::max(p.t_math.median, p.t_comm.median);
  if (!(hideable >= kMinHideableFraction * step) || step <= 0) return std::nullopt;
  return (step - t_overlap) / hideable;
}

OverlapEfficiency overlap_efficiency(const PointRecord& p) {
  OverlapEfficiency e;
  if (!p.t_overlap) {
    e.undefined = "no overlapped step";
    return e;
  }
  e.value = hidden_share(p, p.t_overlap->median);
  if (!e.value)
    e.undefined = fmt::format("T_step - max(T_math, T_comm) is below {:g}% of T_step: nothing measurable to hide",
                              100 * kMinHideableFraction);
  return e;
}

std::optional<EfficiencySpread> overlap_efficiency_spread(const std::vector<PointRecord>& points) {
  std::vector<double> values;
  for (const auto& p : points)
    if (const auto e = overlap_efficiency(p); e.value) values.push_back(*e.value);
  if (values.empty()) return std::nullopt;
  const TimeStats s = summarize(values);
  return EfficiencySpread{static_cast<int>(values.size()), s.median, s.min, s.max};
}

}  // namespace shardroof::sweep

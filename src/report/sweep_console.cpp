#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "report/hardware_report.h"
#include "report/stability_report.h"
#include "report/straggler_report.h"
#include "report/sweep_report.h"
#include "report/prefetch_text.h"
#include "report/sweep_text.h"
#include "timing/stats.h"
#include "util/units.h"

namespace shardroof {

void SweepConsoleReporter::header(const sweep::SweepPlan& plan, const SweepContext& ctx) {
  swept_ = sweep::swept_name(plan);
  if (plan.fsdp()) {
    out_ << fmt::format("# shardroof sweep --sharding fsdp: Z[B,F] = X[B,D] @ W[D,F], the batch B sharded over {} "
                        "rank{}, W gathered from each rank's 1/N before the matmul\n",
                        ctx.ranks, ctx.ranks == 1 ? "" : "s");
    out_ << fmt::format("# D = {}, F = {}, {} ({} bytes), {} {}, {}\n", plan.fsdp_D, plan.F,
                        coll::to_string(plan.type), coll::size_of(plan.type), coll::to_string(plan.kind),
                        ctx.collective, ctx.backend);
    out_ << "# GEMM arithmetic: " << ctx.arithmetic << "\n";
    out_ << "# timed: T_math = " << ctx.timed_gemm << " of a rank's B/N rows with the whole weight; T_comm = the "
         << "AllGather of the D x F weight; T_step = the gather, then the GEMM\n";
    if (plan.prefetch.enabled)
      out_ << fmt::format("# prefetch: {} layers in a row, each with its own weight: T_serial = each layer's gather, "
                          "then its GEMM; T_prefetch = each layer's gather on a communication thread while the layer "
                          "before computes (two weight buffers); predicted = the pipeline model of each layer's "
                          "gather and GEMM timed alone; eff = (T_serial - T_prefetch) / (T_serial - ideal), ideal = "
                          "L x max(T_math, T_comm) + min(T_math, T_comm)\n",
                          plan.prefetch.layers);
  } else {
    out_ << fmt::format("# shardroof sweep: Z[B,F] = X[B,D] @ Y[D,F], D sharded over {} rank{}\n", ctx.ranks,
                        ctx.ranks == 1 ? "" : "s");
    out_ << fmt::format("# B = {}, F = {}, {} ({} bytes), {} {}, {}\n", plan.B, plan.F, coll::to_string(plan.type),
                        coll::size_of(plan.type), coll::to_string(plan.kind), ctx.collective, ctx.backend);
    out_ << "# GEMM arithmetic: " << ctx.arithmetic << "\n";
    out_ << "# timed: T_math = " << ctx.timed_gemm << "; T_comm = the collective of the B x F partial sum; "
         << "T_step = both, one after the other\n";
  }
  if (plan.overlap.enabled()) {
    out_ << fmt::format("# T_overlap = the step in {} chunks of rows of Z, chunk k's collective on a communication "
                        "thread{} while chunk k+1's GEMM computes; eff = (T_step - T_overlap) / (T_step - "
                        "max(T_math, T_comm)), undef where that denominator is below {:g}% of T_step\n",
                        plan.overlap.automatic ? "K (auto: the fewest within " +
                                                     fmt::format("{:g}", 100 * model::kAutoMargin) +
                                                     "% of the best the pipeline model predicts)"
                                               : plan.overlap.text(),
                        plan.backend == Backend::Cuda ? " (GEMMs on a second CUDA stream)" : "",
                        100 * sweep::kMinHideableFraction);
    out_ << fmt::format("# chunks: {}; the communication thread {}; T_math, T_comm, T_step, the interference and "
                        "every chunked step with its inputs measured in the same rounds, interleaved\n",
                        plan.overlap.graded ? "graded (each T_comm/T_math times the one before, from a first look "
                                              "at the point, x1/2 .. x2)"
                                            : "even",
                        plan.overlap.sleeping_waits ? "sleeps between polls while it waits"
                                                    : "waits as MPI does");
    out_ << "# under each row, per K: T_overlap measured; predicted = the pipeline model (each chunk's GEMM timed "
            "alone at its own shape; on a CPU slowed where it runs beside a collective by the CPU the transport "
            "takes (its thread, process and node CPU time over the chunks' collectives alone, spread over their "
            "time beside busy cores), and each chunk's collective timed alone, on a CPU beside busy cores (the "
            "GEMM threads spinning) while GEMMs run; the interference measured on the unchunked step run "
            "together is printed beside it as the check); the pure "
            "pipeline (the chunks' collectives from the link model W, alpha, g, no interference); on a GPU no interference; its ideal (the "
            "unchunked step cut as the chunks cut the rows); pipe = (T_step - T_overlap) / (T_step - ideal); the "
            "model's parts (thinner GEMMs, per-chunk latency, link model vs T_comm) and the measured gap's "
            "(chunk collectives alone vs the link model, GEMMs slowed beside a collective, collectives slowed "
            "beside a GEMM, hand-over, rest), in ms\n";
  }
  out_ << "# " << kAggregationNote << "\n";
  const std::string x = sweep::swept_name(plan);
  if (!plan.search && ctx.ranks < 2 && ctx.auto_D)
    out_ << fmt::format("# {x} = auto on one rank: no communication, so no crossover to search; the GEMM alone at {x} "
                        "= {} .. {}\n",
                        plan.D.front(), plan.D.back(), fmt::arg("x", x));
  if (plan.search)
    out_ << fmt::format("# {x} = auto: bracket the crossing on a x2 grid{} from the roof model's prediction, bisect "
                        "in log {x}, then rounds (the two points around {x}* and the ceilings, measured again) until "
                        "at least {} rounds spread over {:g} s agree on a {:g}% interval within +-{:g}% of {x}* and "
                        "the machine held one state, or {:g} s have passed; rows in the order measured, a {x} "
                        "measured again shows all its iterations so far\n",
                        plan.fsdp() ? " of multiples of N" : "", plan.min_rounds, plan.min_span_s,
                        100 * sweep::kIntervalLevel, 100 * sweep::kTargetHalfWidth, plan.budget_s, fmt::arg("x", x));
}

void SweepConsoleReporter::ceilings(const sweep::RunCeilings& c, const sweep::SweepAnalysis& a,
                                    const SweepContext& ctx) {
  out_ << fmt::format("# ceilings (measured now, on these {} ranks, all at once):\n", ctx.ranks);
  out_ << fmt::format("#   C_peak = {:.2f} GFLOP/s per rank ({}x{}x{} GEMM){}; M = {:.2f} GB/s per rank (triad); "
                      "g = {:.3f} ns per element reduced{}\n",
                      c.peak_gemm.flops_per_s / 1e9, c.peak_gemm.m, c.peak_gemm.n, c.peak_gemm.k,
                      c.hardware ? compute_share_text(c.peak_gemm.flops_per_s, c.hardware->compute_limit(c.peak_gemm.type))
                                 : std::string(),
                      c.memory.triad_bytes_per_s / 1e9, c.reduce.s_per_elem * 1e9,
                      c.hardware ? reduce_share_text(c.reduce.s_per_elem, *c.hardware, c.reduce.type) : std::string());
  const bool fsdp = a.shape.sharding == model::Sharding::Fsdp;
  out_ << fmt::format("#   GEMM floor at {} ({}, {}x{}x{}): {:.3f} ms, {} ({}: {} the {} {} at M takes {:.3f} ms); the "
                      "smallest call (1x1x1): {:.1f} us\n",
                      fsdp ? "D x F" : "B x F", fsdp ? "one row of the batch per rank" : "a shard of one column",
                      c.floor_gemm.m, c.floor_gemm.n, c.floor_gemm.k, a.floor.time_s * 1e3,
                      model::to_string(a.floor.cause()),
                      a.floor.cause() == model::Roof::Memory ? "the memory roof explains at least half of it"
                                                             : "a per-call cost that moving the bytes does not explain",
                      fsdp ? "reading" : "writing",
                      format_bytes(static_cast<std::uint64_t>(a.shape.B * a.shape.F * a.shape.bytes_per_elem)),
                      fsdp ? "weight" : "partial sum", a.floor.memory_s * 1e3, a.floor.call_s * 1e6);
  if (ctx.ranks < 2) return;
  if (c.link.probe) {
    const auto& p = *c.link.probe;
    const auto range = [](const std::vector<std::uint64_t>& v) {
      if (v.empty()) return std::string("-");
      return v.size() == 1 ? format_bytes(v.front())
                           : fmt::format("{} .. {}", format_bytes(v.front()), format_bytes(v.back()));
    };
    out_ << fmt::format("#   link, ring probe (every rank sends to its right neighbour at once, {}): W = {:.3f} GB/s "
                        "from {}, alpha = {:.2f} us from {}{}\n",
                        range(p.bytes), p.fit.W_bytes_per_s / 1e9, range(p.fit.bandwidth_sizes), p.fit.alpha_s * 1e6,
                        range(p.fit.latency_sizes),
                        !p.fit.valid ? "; NO FIT: the times do not grow with the size"
                        : p.fit.trusted()
                            ? ""
                            : fmt::format("; WARNING: alpha + m/W misses {} by {:.0f}%", format_bytes(p.fit.worst_size),
                                          100 * p.fit.max_rel_residual));
  } else {
    out_ << fmt::format("#   link from {}: W = {:.3f} GB/s, alpha = {:.2f} us\n", c.link.source,
                        c.link.W_bytes_per_s / 1e9, c.link.alpha_s * 1e6);
  }
  if (const std::string rate = ring_line_rate_text(c.line_rate, c.link.W_bytes_per_s); !rate.empty())
    out_ << "#   " << rate << "\n";
  out_ << fmt::format("#   the collective itself at S = {}: T_comm = {:.3f} ms (median of {}, before the points; the "
                      "consistency check takes the T_comm samples of the two points around {}*)\n",
                      format_bytes(c.collective.bytes), c.collective.time.median * 1e3,
                      c.collective.time.samples.size(), model::swept_name(a.shape.sharding));
  const double n = a.shape.ranks;
  const bool ar = a.shape.collective == model::Collective::AllReduce;
  const double hops = ar ? 2 * (n - 1) : n - 1;
  const double S = a.shape.B * a.shape.F * a.shape.bytes_per_elem;
  if (a.shape.collective == model::Collective::AllGather) {
    // A gather reduces nothing: no g term.
    out_ << fmt::format("# book T_comm at S = (N-1)a + (N-1)/N*S/W = {:.3f} + {:.3f} = {:.3f} ms\n",
                        hops * a.book.latency_s * 1e3,
                        a.book.link_bytes_per_s > 0 ? hops / n * S / a.book.link_bytes_per_s * 1e3 : 0.0,
                        a.t_comm_book_s * 1e3);
    return;
  }
  out_ << fmt::format("# book T_comm at S = {}(N-1)a + {}(N-1)/N*S/W + (N-1)/N*B*F*g = {:.3f} + {:.3f} + {:.3f} = "
                      "{:.3f} ms\n",
                      ar ? "2" : "", ar ? "2" : "", hops * a.book.latency_s * 1e3,
                      a.book.link_bytes_per_s > 0 ? hops / n * S / a.book.link_bytes_per_s * 1e3 : 0.0,
                      (n - 1) / n * a.shape.B * a.shape.F * a.book.reduce_s_per_elem * 1e3, a.t_comm_book_s * 1e3);
}

void SweepConsoleReporter::table_header(const sweep::SweepPlan& plan) {
  out_ << "# " << kStragglerNote << "\n";
  const std::string x = sweep::swept_name(plan);
  out_ << fmt::format("{:>8} {:>7} {:>5} {:>11} {:>11} {:>11}", x, x + "/N", "iters", "T_math(ms)", "T_comm(ms)",
                      "T_step(ms)");
  if (plan.overlap.enabled()) out_ << fmt::format(" {:>11} {:>6}", "T_ovlp(ms)", "eff");
  if (plan.prefetch.enabled) out_ << fmt::format(" {:>11} {:>11} {:>11} {:>6}", "T_ser(ms)", "T_pref(ms)", "pred(ms)", "eff");
  out_ << fmt::format(" {:>9} {:>6} {:>10} {:>13} {:>5} {:>6}\n", "GFLOP/s", "%peak", "intensity", "bound", "%roof",
                      "check");
}

void SweepConsoleReporter::row(const sweep::PointRecord& p, const sweep::PointDerived& d) {
  out_ << fmt::format("{:>8} {:>7} {:>5} {:>11.4f} {:>11.4f} {:>11.4f}", p.D, p.shard_max, p.iterations,
                      p.t_math.median * 1e3, p.t_comm.median * 1e3, p.t_step.median * 1e3);
  if (p.t_overlap)
    out_ << fmt::format(" {:>11.4f} {:>6}", p.t_overlap->median * 1e3, sweep_text::efficiency(d.overlap));
  if (p.prefetch && d.prefetch)
    out_ << fmt::format(" {:>11.4f} {:>11.4f} {:>11.4f} {:>6}", p.prefetch->t_serial.median * 1e3,
                        p.prefetch->t_prefetch.median * 1e3, d.prefetch->model.t_predicted * 1e3,
                        sweep_text::efficiency(d.prefetch->efficiency));
  out_ << fmt::format(" {:>9.2f} {:>6.1f} {:>10.1f} {:>13} {:>5.0f} {:>6}\n", p.flops_per_s / 1e9, 100 * d.frac_peak,
                      d.intensity, sweep_text::bound(d), 100 * d.regime.roof_fraction, sweep_text::combined_check(p));
  if (p.overlap_choice) {
    std::string weighed;
    for (const auto& c : p.overlap_choice->candidates)
      weighed += fmt::format("{}K={} {:.4f}", weighed.empty() ? "" : ", ", c.chunks, c.t_predicted * 1e3);
    out_ << fmt::format("#   auto: K = {} (predicted ms: {})\n", p.overlap_choice->chosen, weighed);
  }
  for (std::size_t i = 0; i < p.overlap_runs.size() && i < d.overlap_runs.size(); ++i)
    out_ << "#   " << sweep_text::overlap_run(p.overlap_runs[i], d.overlap_runs[i]) << "\n";
  out_ << std::flush;
}

void SweepConsoleReporter::straggler(const sweep::PointRecord& p, const sweep::PointDerived& d,
                                     const std::vector<std::string>& hosts) {
  if (!d.straggler) return;
  // "t_math" -> "T_math", as the table names it.
  std::string what = d.straggler->measurement;
  if (!what.empty()) what.front() = 'T';
  out_ << fmt::format("# straggler at {} = {}: {}\n", swept_, p.D, straggler_text(d.straggler->straggler, hosts, kMilliseconds, what))
       << std::flush;
}

namespace {

// The swept dimension's name in the summary's sentences: "D", or "B" with fsdp.
std::string swept_of(const sweep::SweepAnalysis& a) { return model::swept_name(a.shape.sharding); }

std::string crossings_text(const std::vector<sweep::Crossing>& crossings) {
  std::string s;
  for (const auto& c : crossings)
    s += fmt::format("{}{} at {}", s.empty() ? "" : ", ", c.upward ? "up" : "down", sweep_text::d(c.D));
  return s;
}

// T_comm below the GEMM's floor: no crossover at any D.
std::string no_crossover_line(const sweep::NoCrossover& n, const sweep::PointRecord& floor_point, bool one_host,
                              bool fsdp) {
  const char* move = fsdp ? "reading the weight" : "writing them";
  const std::string floor = n.cause == model::Roof::Memory
                                ? fmt::format("{} at M, {:.3f} ms", move, n.floor_s * 1e3)
                                : fmt::format("a per-call cost of the library far above {} at M ({:.3f} "
                                              "ms), {:.3f} ms",
                                              move, n.floor_model_s * 1e3, n.floor_s * 1e3);
  return fmt::format("no crossover: the exchange of the {} takes {:.3f} ms; the GEMM's floor ({}), {}: "
                     "communication never bounds this step{}",
                     fsdp ? "weight's blocks" : "partial sums", n.t_comm_s * 1e3,
                     fsdp ? fmt::format("one row of the batch per rank, B = {}", floor_point.D)
                          : fmt::format("a shard of one column, D = {}", floor_point.D),
                     floor, one_host ? "; between ranks of one machine the link is memory" : "");
}

// What the points say about the crossover, the first line of the summary.
std::string crossover_line(const std::vector<sweep::PointRecord>& points, const sweep::SweepAnalysis& a,
                           bool one_host, bool swept_auto) {
  const auto& e = a.empirical;
  const std::size_t n = points.size();
  const std::string x = swept_of(a);
  const bool fsdp = a.shape.sharding == model::Sharding::Fsdp;
  // Where --D auto ran, advice to run it says nothing.
  const std::string or_auto = swept_auto ? "" : fmt::format(" (or --{} auto)", x);
  switch (e.kind) {
    case sweep::CrossingKind::Bracketed: {
      std::string s = fmt::format("{}* = {}", x, sweep_text::d(*e.D));
      s += a.interval ? fmt::format(" {} ({:g}% interval within this launch)", interval_text(*a.interval),
                                    100 * sweep::kIntervalLevel)
                      : std::string(" (no interval: a point has no samples)");
      // fsdp: the book's rule is per rank, B*/N.
      if (fsdp) {
        const double ranks = a.shape.ranks;
        s += fmt::format("; per rank B*/N = {}", sweep_text::d(*e.D / ranks));
        if (a.interval) s += fmt::format(" {}", interval_text({a.interval->low / ranks, a.interval->high / ranks}));
      }
      s += fmt::format("; compute-bound above it");
      if (a.interval)
        s += fmt::format(". The interval covers this launch's iterations, its rounds and the states it saw{}; not "
                         "what stays fixed for a launch (placement, addresses, the MPI library's segments): `shardroof "
                         "combine` over launches, or --history, covers that",
                         a.conditioning_half_width_log > 0
                             ? fmt::format(", and the uncertainty of T_comm's level over the run ({:.1f}%) "
                                           "carried to {}* at 1/k (+-{:.1f}%)",
                                           100 * (std::exp(a.t_comm_spread_log) - 1), x,
                                           100 * (std::exp(a.conditioning_half_width_log) - 1))
                             : std::string());
      if (a.next_launch_interval)
        s += fmt::format("\nnext launch: {}* within {} ({:g}% prediction interval around this launch's, with the "
                         "launch-to-launch spread of --history: sd {:.1f}% over {} launches, {})",
                         x, interval_text(*a.next_launch_interval), 100 * sweep::kIntervalLevel,
                         100 * (std::exp(a.history->between_sd_log) - 1), a.history->launches, a.history->path);
      if (e.sign_changes() > 1)
        s += fmt::format(". CAUTION: T_math and T_comm cross {} times ({}): {x}* is the first upward crossing; the "
                         "others are noise near the crossing or a T_comm that changes with {x} (see the table)",
                         e.sign_changes(), crossings_text(e.crossings), fmt::arg("x", x));
      return s;
    }
    case sweep::CrossingKind::AboveRange:
      if (n == 1)
        return fmt::format("no crossover located: the only point ({x} = {}) is communication-bound, so {x}* lies "
                           "above it; measure larger {x}{}",
                           points.front().D, or_auto, fmt::arg("x", x));
      return fmt::format("no crossover in the range: every point is communication-bound (T_math < T_comm from {x} = "
                         "{} to {}), so {x}* lies above {}: extend {x} up",
                         points.front().D, points.back().D, points.back().D, fmt::arg("x", x));
    case sweep::CrossingKind::BelowRange:
      if (a.no_crossover) return no_crossover_line(*a.no_crossover, points.front(), one_host, fsdp);
      if (n == 1)
        return fmt::format("no crossover located: the only point ({x} = {}) is compute-bound, so {x}* lies below it; "
                           "measure smaller {x}{}",
                           points.front().D, or_auto, fmt::arg("x", x));
      return fmt::format("no crossover in the range: every point is compute-bound (T_math >= T_comm from {x} = {} to "
                         "{}), so {x}* lies below {}: extend {x} down",
                         points.front().D, points.back().D, points.front().D, fmt::arg("x", x));
    case sweep::CrossingKind::OnlyDownward:
      return fmt::format("no crossover located: T_math and T_comm cross only downward ({}), from compute-bound "
                         "below to communication-bound above, the opposite of the roofline: T_comm grew or T_math "
                         "fell with {} (noise or load); rerun with more --iters",
                         crossings_text(e.crossings), x);
    case sweep::CrossingKind::Tied:
      return fmt::format("no crossover located: T_math equals T_comm at every point ({} point{}): neither side to "
                         "extend",
                         n, n == 1 ? "" : "s");
    case sweep::CrossingKind::NoPoints:
      break;
  }
  return "no crossover located: no point was measured";
}

std::string error_text(const std::optional<double>& e) {
  return e ? fmt::format(" (error {:+.1f}%)", 100 * *e) : std::string();
}

// Where D* falls and how well it is conditioned.
std::string regime_line(const sweep::SweepAnalysis& a) {
  const auto& r = *a.crossing_regime;
  const auto moves = [](const model::Conditioning& c) {
    return std::isfinite(c.sensitivity) ? fmt::format("{:.0f}%", 10 * c.sensitivity) : std::string("an unbounded amount");
  };
  const std::string x = swept_of(a);
  std::string s = fmt::format(
      "{x}* falls on the GEMM's {}; slope of T_math there k = {:.2f} measured (model {:.2f}): a 10% change of "
      "T_comm moves {x}* by about {}",
      r.on_floor ? fmt::format("floor ({})", model::to_string(r.roof)) : model::to_string(r.roof) + " roof",
      r.measured.slope, r.model.slope, moves(r.measured), fmt::arg("x", x));
  if (r.measured.ill_conditioned) {
    const double floor_ratio = a.floor.time_s > 0 ? a.t_comm_measured_s / a.floor.time_s : 0;
    s += fmt::format(
        ": ILL-CONDITIONED (k below {:g}: the crossing sits near the GEMM's floor; T_comm is {:.2f}x the floor). "
        "Both grow with {w}*F, so no {w} or F moves it; a link slower than this one (across nodes, or an emulated "
        "link: scripts/emulate-links.sh) moves the crossing onto the compute roof",
        model::kIllConditionedSlope, floor_ratio, fmt::arg("w", model::whole_name(a.shape.sharding)));
  } else {
    s += ": well-conditioned";
  }
  return s;
}

// A stability window's label: its point, or the ceilings (0).
std::function<std::string(std::uint64_t)> label_of(const std::string& x) {
  return [x](std::uint64_t v) { return v == 0 ? std::string("the ceilings") : fmt::format("{} = {}", x, v); };
}

std::string states_line(const sweep::SweepAnalysis& a) {
  std::string s;
  const std::string swept = swept_of(a);
  for (const char* quantity : {"t_comm", "t_math"}) {
    std::string part;
    for (const auto& x : a.stability.states) {
      if (x.quantity != quantity) continue;
      std::string d = x.crossing.below_floor ? std::string("no crossover (below the GEMM's floor)")
                      : x.crossing.D ? fmt::format("{}* = {}{}", swept, sweep_text::d(*x.crossing.D),
                                                   x.crossing.extrapolated ? " (extrapolated)" : "")
                                     : std::string("-");
      const bool comm = quantity == std::string("t_comm");
      if (x.book_t_comm_s && x.book_crossing)
        d += fmt::format(" (book in this state: T_comm {:.3f} ms, {}* {})", *x.book_t_comm_s * 1e3, swept,
                         x.book_crossing->below_floor ? std::string("none")
                         : x.book_crossing->D         ? sweep_text::d(*x.book_crossing->D)
                                                      : std::string("-"));
      part += fmt::format("{}{} ({:.0f}% of samples): {}", part.empty() ? "" : "; ",
                          comm ? fmt::format("T_comm {:.3f} ms", x.level_s * 1e3)
                               : fmt::format("T_math at {:.2f}x each point's median", x.level_s),
                          100 * x.share, d);
    }
    if (!part.empty()) s += (s.empty() ? "" : "\n") + std::string("in each state: ") + part + "; the interval holds them all.";
  }
  return s;
}

}  // namespace

std::string interval_text(const sweep::Interval& i) {
  return fmt::format("{}{}, {}{}", i.low > 0 ? "[" : "(", i.low > 0 ? sweep_text::d(i.low) : std::string("0"),
                     std::isfinite(i.high) ? sweep_text::d(i.high) : std::string("inf"), std::isfinite(i.high) ? "]" : ")");
}

std::string sweep_summary_text(const std::vector<sweep::PointRecord>& points, const sweep::SweepAnalysis& a,
                               const sweep::RunCeilings& c, const sweep::SweepPlan& plan, const SearchReport& search) {
  std::string s;
  const auto& nodes = plan.ring.hier.node_of_rank;
  const bool one_host = std::all_of(nodes.begin(), nodes.end(), [&](int n) { return n == nodes.front(); });
  const std::string x = swept_of(a);
  const bool fsdp = a.shape.sharding == model::Sharding::Fsdp;
  const auto n_ranks = static_cast<double>(a.shape.ranks);
  if (a.shape.ranks < 2) {
    s = "one rank: there is no communication, so no crossover (run with 2 or more ranks)";
  } else {
    s = crossover_line(points, a, one_host, plan.swept_auto) + ".";
    if (a.crossing_regime) s += "\n" + regime_line(a) + ".";
    if (a.stability.computed) {
      const ValueText ms = [](double v) { return sweep_text::ms(v); };
      s += "\nstability: " +
           stability_text(a.stability.t_comm, "the collective's time (T_comm at S)", ms, label_of(x)) + ".";
      const ValueText ratio = [](double v) { return fmt::format("{:.2f}x", v); };
      s += "\nstability: " +
           stability_text(a.stability.t_math, "the points' T_math (each over its point's median)", ratio, label_of(x)) +
           ".";
      if (a.stability.t_step && a.stability.t_overlap)
        s += fmt::format("\nstability: {}; {}.",
                         stability_text(*a.stability.t_step,
                                        "the plain steps beside the chunked ones (each over its point's median)", ratio,
                                        label_of(x)),
                         stability_text(*a.stability.t_overlap, "the chunked steps (each K over its point's median)",
                                        ratio, label_of(x)));
      s += "\nstability: " +
           stability_text(a.stability.gemm,
                          fmt::format("the reference GEMM ({}x{}x{}, every round)", c.peak_gemm.m, c.peak_gemm.n,
                                      c.peak_gemm.k),
                          ms, {}) +
           (a.stability.gemm.verdict == stability::Verdict::Unstable
                ? fmt::format("; C_peak is its fastest state's rate, {:.2f} GFLOP/s", a.C_peak / 1e9)
                : std::string()) +
           ".";
      std::string others;
      for (const auto& [name, st] : a.stability.ceilings)
        others += fmt::format("{}{} {}{}", others.empty() ? "" : "; ", name,
                              st.verdict == stability::Verdict::Unstable ? "UNSTABLE" : stability::to_string(st.verdict),
                              st.verdict == stability::Verdict::Unstable || st.verdict == stability::Verdict::Drift
                                  ? fmt::format(" ({:.2f}x)", st.max_ratio)
                                  : std::string());
      if (!others.empty()) s += "\nstability of the other ceilings over the rounds: " + others + ".";
      if (!a.stability.states.empty()) s += "\n" + states_line(a);
    }
    if (a.book_predicted) {
      s += fmt::format("\nbook {x}* = {}{}: the prediction, from W = {:.3f} GB/s, alpha = {:.2f} us ({}{}), {}and "
                       "the GEMM's rate at each {x}.",
                       sweep_text::d(a.book_predicted->D), error_text(a.book_rel_error),
                       a.book.link_bytes_per_s / 1e9, a.book.latency_s * 1e6, c.link.source,
                       c.rounds > 1 ? fmt::format(", {} rounds", c.rounds) : std::string(), fsdp ? "" : "g, ",
                       fmt::arg("x", x));
      // fsdp: the book's rule per rank, B*/N = C s (N-1)/(2 N W) + (N-1) a C/(2 D F), with C the GEMM's rate there.
      if (fsdp && a.book.link_bytes_per_s > 0)
        s += fmt::format(" Per rank: B*/N = {} = C*s*(N-1)/(2*N*W) + (N-1)*alpha*C/(2*D*F) = {:.1f} + {:.1f} with C "
                         "= {:.2f} GFLOP/s (the GEMM at B*), s = {:g}, N = {}, D = {:g}, F = {:g}.",
                         sweep_text::d(a.book_predicted->D / n_ranks),
                         a.book_predicted->C_at_D * a.shape.bytes_per_elem * (n_ranks - 1) /
                             (2 * n_ranks * a.book.link_bytes_per_s),
                         (n_ranks - 1) * a.book.latency_s * a.book_predicted->C_at_D / (2 * a.shape.B * a.shape.F),
                         a.book_predicted->C_at_D / 1e9, a.shape.bytes_per_elem, a.shape.ranks, a.shape.B, a.shape.F);
      if (a.book_interval) {
        const auto& b = *a.book_interval;
        std::string widths;
        for (const auto& [input, ratio] : b.widths)
          widths += fmt::format("{}{} {:.2f}x", widths.empty() ? "" : ", ", input, ratio);
        s += fmt::format(" Its {:g}% interval {} (its inputs drawn again over the rounds, {} replicates): {}; "
                         "alone, each input spans {}; the widest: {}.",
                         100 * sweep::kIntervalLevel, interval_text(b.interval), b.replicates,
                         a.empirical.D ? (b.interval.low <= *a.empirical.D && *a.empirical.D <= b.interval.high
                                    ? fmt::format("it holds the measured {}*", x)
                                    : fmt::format("it does not hold the measured {}* {}", x, sweep_text::d(*a.empirical.D)))
                             : fmt::format("no measured {}* to judge it by", x),
                         widths, b.widths.empty() ? std::string("-") : b.widths.front().first);
      }
    }
    switch (a.roofs_book.kind) {
      case model::CrossoverKind::Crossing:
      case model::CrossoverKind::AboveRange:
        s += fmt::format("\nroofline {}* = {} on the {} roof: C_peak, M and the GEMM's floor against the book's "
                         "T_comm ({:.3f} ms){}.",
                         x, sweep_text::d(a.roofs_book.D), model::to_string(a.roofs_book.roof), a.t_comm_book_s * 1e3,
                         a.roofs_book.kind == model::CrossoverKind::AboveRange
                             ? fmt::format(", beyond the largest {} that fits", x)
                             : "");
        break;
      case model::CrossoverKind::BelowFloor:
        s += fmt::format("\nroofline: no crossover: the book's T_comm ({:.3f} ms) lies below the GEMM's floor "
                         "({:.3f} ms, {}).",
                         a.t_comm_book_s * 1e3, a.roofs_book.floor_s * 1e3, model::to_string(a.roofs_book.floor_cause));
        break;
      case model::CrossoverKind::NoModel:
        break;
    }
    if (a.predicted)
      s += fmt::format("\nconsistency check (not a prediction): calibrated {x}* = {}{}: T_comm(S) = {:.3f} ms ({}), "
                       "W_eff = {:.3f} GB/s, and the GEMM's rate at each {x}. T_comm over the whole run: {:.3f} ms ({} "
                       "samples; the points' medians {:.3f} .. {:.3f} ms).",
                       sweep_text::d(a.predicted->D), error_text(a.rel_error), a.t_comm_measured_s * 1e3,
                       a.empirical.D ? fmt::format("the {} samples of the two points around {}*", a.t_comm_samples, x)
                                     : fmt::format("all {} samples at S", a.t_comm_samples),
                       a.W_eff_bytes_per_s / 1e9, a.t_comm_run_s * 1e3, a.t_comm_run_samples,
                       a.t_comm_points_min_s * 1e3, a.t_comm_points_max_s * 1e3, fmt::arg("x", x));
    if (a.D_peak) {
      s += fmt::format("\nfrom C_peak: calibrated {}* = {} (C_peak/W_eff = {:.1f} FLOP/byte", x,
                       sweep_text::d(*a.D_peak), a.critical_intensity());
      if (a.D_roofs) s += fmt::format("; with the memory roof M: {}", sweep_text::d(*a.D_roofs));
      s += ")";
      if (a.budget) s += fmt::format(", book {}* = {}", x, sweep_text::d(a.budget->D_book_peak));
      s += ".";
    }
    if (a.budget) {
      const auto& b = *a.budget;
      s += fmt::format("\nbudget: {x}* = {x}*_book(C_peak) {} x compute {:.2f} / comm {:.2f} x residual {:.2f}: the "
                       "GEMM at {x}* runs at {:.0f}% of C_peak; the collective takes {:.2f}x the book's T_comm at S (the "
                       "link's W, alpha{}).",
                       sweep_text::d(b.D_book_peak), b.compute_efficiency, b.comm_efficiency, b.residual,
                       100 * b.compute_efficiency, 1 / b.comm_efficiency, fsdp ? "" : " and g", fmt::arg("x", x));
    }
  }
  if (!points.empty()) {
    // The largest D, whatever order the points were measured in.
    const auto last = std::max_element(points.begin(), points.end(),
                                       [](const auto& p1, const auto& p2) { return p1.D < p2.D; });
    const double peak = c.peak_gemm.flops_per_s;
    if (peak > 0)
      s += fmt::format("\nat the largest {} ({}), {:.0f}% of peak ({:.0f}% for the GEMM alone).", x, last->D,
                       100 * a.points.at(static_cast<std::size_t>(last - points.begin())).step_flops_per_s / peak,
                       100 * last->flops_per_s / peak);
  }
  if (search.search) {
    std::size_t distinct = 0, rounds = 0;
    for (const auto& p : points) distinct += p.iterations > 0;
    for (const auto& r : search.search->log()) rounds += r.round;
    s += fmt::format("\nsearch: {} measurements ({} rounds) at {} values of {} in {:.1f} s; stopped: {}.",
                     search.search->log().size(), rounds, distinct, x, search.elapsed_s, search.stop.why);
  }
  if (plan.overlap.enabled() && !points.empty()) {
    const std::string chunks = plan.overlap.automatic ? "auto's chunks" : plan.overlap.text() + " chunks";
    if (const auto& spread = a.overlap_spread) {
      s += fmt::format("\noverlap in {} hid a median {:.0f}% of the hideable time (T_step - max(T_math, "
                       "T_comm)) over the {} point{} where it is defined (min {:.0f}%, max {:.0f}%).",
                       chunks, 100 * spread->median, spread->points, spread->points == 1 ? "" : "s",
                       100 * spread->min, 100 * spread->max);
    } else {
      s += fmt::format("\noverlap in {}: the efficiency is undefined at every point (T_step - max(T_math, "
                       "T_comm) below {:g}% of T_step, or no point was chunked).",
                       chunks, 100 * sweep::kMinHideableFraction);
    }
    s += sweep_text::overlap_model_summary(points, a);
    if (const auto& o = a.overlap_outlook) {
      s += '\n';
      s += sweep_text::outlook(*o);
    }
  }
  if (plan.prefetch.enabled) s += prefetch_summary(points, a, plan.prefetch.layers);
  return s;
}

void SweepConsoleReporter::summary(const std::vector<sweep::PointRecord>& points, const sweep::SweepAnalysis& a,
                                   const sweep::RunCeilings& c, const sweep::SweepPlan& plan,
                                   const SearchReport& search) {
  out_ << "\n" << sweep_summary_text(points, a, c, plan, search) << "\n";
  long long wrong = 0;
  for (const auto& p : points) wrong += p.check.wrong + p.overlap_check.wrong;
  if (plan.check)
    out_ << (wrong == 0 ? (plan.fsdp() ? (plan.prefetch.enabled
                                              ? "# every point's Z and gathered weight checked, after the step and "
                                                "after the prefetched layers: ok\n"
                                              : "# every point's Z and gathered weight checked: ok\n")
                           : plan.overlap.enabled() ? "# every point's distributed Z checked, after the step and after the "
                                              "overlapped step: ok\n"
                                            : "# every point's distributed Z checked: ok\n")
                        : fmt::format("# WRONG RESULTS: {} elements/rows outside tolerance\n", wrong));
}

}  // namespace shardroof

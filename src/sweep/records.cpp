#include "sweep/records.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "link/alpha_beta_fit.h"

namespace shardroof::sweep {

void merge_point(PointRecord& into, const PointRecord& more) {
  const auto join = [](TimeStats& a, const TimeStats& b) { a = joined(a, b); };
  // The GEMM's FLOPs (2*B*ceil(D/N)*F), recovered from either record.
  const double flops = more.flops_per_s * more.t_math.median;
  join(into.t_math, more.t_math);
  join(into.t_comm, more.t_comm);
  join(into.t_step, more.t_step);
  if (into.t_overlap && more.t_overlap) join(*into.t_overlap, *more.t_overlap);
  into.iterations += more.iterations;
  into.windows.insert(into.windows.end(), more.windows.begin(), more.windows.end());
  into.flops_per_s = into.t_math.median > 0 ? flops / into.t_math.median : 0;
  const auto combine = [](PointCheck& a, const PointCheck& b) {
    if (!b.checked) return;
    if (!a.checked) {
      a = b;
      return;
    }
    a.wrong += b.wrong;
    a.tested += b.tested;
    a.worst_ratio = std::max(a.worst_ratio, b.worst_ratio);
  };
  combine(into.check, more.check);
  combine(into.overlap_check, more.overlap_check);
  // The same K measured again joins its steps; its per-chunk times are the
  // later measurement's (they describe the machine as it is now).
  for (const OverlapRun& run : more.overlap_runs) {
    auto it = std::find_if(into.overlap_runs.begin(), into.overlap_runs.end(),
                           [&](const OverlapRun& r) { return r.chunks == run.chunks; });
    if (it == into.overlap_runs.end()) {
      into.overlap_runs.push_back(run);
      continue;
    }
    OverlapRun joined_run = run;
    joined_run.t_overlap = joined(it->t_overlap, run.t_overlap);
    joined_run.check = it->check;
    combine(joined_run.check, run.check);
    *it = std::move(joined_run);
  }
  if (more.overlap_choice) into.overlap_choice = more.overlap_choice;
  if (more.concurrent) into.concurrent = more.concurrent;
  // The layers measured again join their steps; the per-layer times are
  // the later measurement's, as the chunks' above.
  if (more.prefetch && into.prefetch) {
    PrefetchRun run = *more.prefetch;
    run.t_serial = joined(into.prefetch->t_serial, more.prefetch->t_serial);
    run.t_prefetch = joined(into.prefetch->t_prefetch, more.prefetch->t_prefetch);
    run.check = into.prefetch->check;
    combine(run.check, more.prefetch->check);
    into.prefetch = std::move(run);
  } else if (more.prefetch) {
    into.prefetch = more.prefetch;
  }
}

double rate_of(const GemmRate& g) {
  const double flops = 2.0 * static_cast<double>(g.m) * static_cast<double>(g.n) * static_cast<double>(g.k);
  return g.time.median > 0 ? flops / g.time.median : 0;
}

void merge_ceilings(RunCeilings& into, const RunCeilings& round) {
  const auto join = [](TimeStats& a, const TimeStats& b) {
    if (b.samples.empty()) return;
    a = a.samples.empty() ? b : joined(a, b);
  };
  const auto join_gemm = [&](GemmRate& a, const GemmRate& b) {
    if (b.time.samples.empty()) return;
    if (a.time.samples.empty()) {
      a = b;
      return;
    }
    join(a.time, b.time);
    a.flops_per_s = rate_of(a);
  };
  join_gemm(into.peak_gemm, round.peak_gemm);
  join_gemm(into.floor_gemm, round.floor_gemm);
  join_gemm(into.call_gemm, round.call_gemm);
  if (!round.reduce.time.samples.empty()) {
    join(into.reduce.time, round.reduce.time);
    into.reduce.s_per_elem =
        into.reduce.count > 0 ? into.reduce.time.median / static_cast<double>(into.reduce.count) : 0;
  }
  if (!round.memory.triad.samples.empty()) {
    join(into.memory.copy, round.memory.copy);
    join(into.memory.triad, round.memory.triad);
    const double e = static_cast<double>(into.memory.elements) * sizeof(double);
    into.memory.copy_bytes_per_s = into.memory.copy.median > 0 ? 2 * e / into.memory.copy.median : 0;
    into.memory.triad_bytes_per_s = into.memory.triad.median > 0 ? 3 * e / into.memory.triad.median : 0;
  }
  join(into.collective.time, round.collective.time);
  if (into.link.probe && round.link.probe && into.link.probe->bytes == round.link.probe->bytes) {
    auto& p = *into.link.probe;
    const auto& q = *round.link.probe;
    std::vector<double> medians;
    for (std::size_t i = 0; i < p.step_time.size() && i < q.step_time.size(); ++i) {
      join(p.step_time[i], q.step_time[i]);
      medians.push_back(p.step_time[i].median);
    }
    if (p.wrong >= 0 && q.wrong >= 0) p.wrong += q.wrong;
    p.fit = link::fit_alpha_beta(p.bytes, medians);
    // The probe's transfers stay those of its first round: they name a
    // slow pair, which one round shows.
    into.link.W_bytes_per_s = p.fit.W_bytes_per_s;
    into.link.alpha_s = p.fit.alpha_s;
  }
  into.rounds += round.rounds;
  into.round_starts.insert(into.round_starts.end(), round.round_starts.begin(), round.round_starts.end());
}

void use_link_from(RunCeilings& ceilings, const link::ModelLink& link, const std::string& path) {
  ceilings.link.W_bytes_per_s = link.W_bytes_per_s;
  ceilings.link.alpha_s = link.alpha_s;
  ceilings.link.source = fmt::format("--link-from {} (pattern {}, medians over {} {} pairs)", path, link.pattern,
                                     link.pairs, link.source == "cross_node" ? "cross-node" : "same-node");
  ceilings.link.pattern = link.pattern;
}

}  // namespace shardroof::sweep

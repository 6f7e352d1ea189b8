#include "sweep/search.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace shardroof::sweep {

SearchPlan search_plan(const SweepPlan& plan, int ranks, const SweepAnalysis& analysis) {
  SearchPlan sp;
  sp.grain = swept_grain(plan, ranks);
  sp.name = swept_name(plan);
  sp.D_max = std::max(plan.D_max / sp.grain, std::uint64_t{1}) * sp.grain;
  sp.D_min = std::min<std::uint64_t>(static_cast<std::uint64_t>(ranks), sp.D_max);
  const model::RoofCrossover& start = analysis.roofs_measured;
  const double guess = start.kind == model::CrossoverKind::BelowFloor ? static_cast<double>(sp.D_min)
                       : start.D > 0                                   ? start.D
                                                                       : analysis.D_peak.value_or(64);
  // A power of two times the grain: the x2 grid stays on multiples of it.
  const double g = static_cast<double>(sp.grain);
  sp.D_start = sp.grain * nearest_power_of_two(guess / g, std::max<std::uint64_t>(sp.D_min / sp.grain, 1),
                                               sp.D_max / sp.grain);
  if (start.kind == model::CrossoverKind::BelowFloor) sp.D_start = sp.D_min;
  sp.timing = plan.timing;
  sp.budget_s = plan.budget_s;
  sp.min_span_s = plan.min_span_s;
  sp.min_rounds = plan.min_rounds;
  return sp;
}
namespace {

const PointRecord* point_at(const std::vector<PointRecord>& points, double D) {
  for (const auto& p : points)
    if (static_cast<double>(p.D) == D) return &p;
  return nullptr;
}

// Seconds one timed iteration of a point takes: T_math, T_comm and T_step
// (about both again).
double iteration_s(double t_math, double t_comm) { return 2 * (t_math + t_comm); }

}  // namespace

std::string to_string(SearchStop s) {
  switch (s) {
    case SearchStop::None: return "measuring";
    case SearchStop::Converged: return "converged";
    case SearchStop::Budget: return "budget";
    case SearchStop::RangeEnd: return "range_end";
    case SearchStop::NotLocated: return "not_located";
    case SearchStop::NoCrossover: return "no_crossover";
  }
  return "?";
}

std::uint64_t nearest_power_of_two(double d, std::uint64_t lo, std::uint64_t hi) {
  double p = std::isfinite(d) && d > 1 ? std::exp2(std::round(std::log2(d))) : 1.0;
  p = std::clamp(p, static_cast<double>(lo), static_cast<double>(hi));
  return static_cast<std::uint64_t>(p);
}

double CrossoverSearch::estimate_s(const std::vector<PointRecord>& points, std::uint64_t D, int iters) const {
  if (points.empty() || log_.empty()) return 0;
  // T_math at D from the nearest measured D, growing in proportion to D
  // (an upper bound below it: a thin GEMM is slower per FLOP); T_comm does
  // not depend on D.
  const PointRecord* near = &points.front();
  for (const auto& p : points)
    if (std::abs(std::log(static_cast<double>(p.D) / static_cast<double>(D))) <
        std::abs(std::log(static_cast<double>(near->D) / static_cast<double>(D))))
      near = &p;
  const double scale = static_cast<double>(D) / static_cast<double>(near->D);
  const double t_math = near->t_math.median * std::max(scale, 1.0);
  const double t_comm = near->t_comm.median;
  // What the earlier measurements nearest D on either side took beyond
  // their timed iterations (allocation, operands, the check), per unit of D
  // when D grows. Only the neighbours: part of that cost is fixed (with
  // fsdp the whole weight is made and checked at every point), so a small
  // D's scaled far up would overstate it.
  std::uint64_t below = 0, above = 0;
  for (const auto& r : log_) {
    if (r.round || !point_at(points, static_cast<double>(r.D))) continue;
    if (r.D <= D) below = std::max(below, r.D);
    if (r.D >= D && (above == 0 || r.D < above)) above = r.D;
  }
  double overhead = 0;
  for (const auto& r : log_) {
    if (r.round || (r.D != below && r.D != above)) continue;  // a round's wall time holds two points and the ceilings
    const PointRecord* p = point_at(points, static_cast<double>(r.D));
    if (!p) continue;
    const double timed = (plan_.timing.warmup + r.iters) * iteration_s(p->t_math.median, p->t_comm.median);
    overhead = std::max(overhead, std::max(r.wall_s - timed, 0.0) * std::max(static_cast<double>(D) / r.D, 1.0));
  }
  return overhead + (plan_.timing.warmup + iters) * iteration_s(t_math, t_comm);
}

SearchStep CrossoverSearch::measure_if_affordable(const std::vector<PointRecord>& points, double elapsed_s,
                                                  std::uint64_t D, int iters, std::string why) const {
  const double est = estimate_s(points, D, iters);
  if (elapsed_s + est > plan_.budget_s)
    return {SearchStop::Budget, D, 0, false, iters,
            fmt::format("the budget: {} iterations at {} = {} would take about {:.1f} s, {:.1f} s of {:g} s are left",
                        iters, plan_.name, D, est, std::max(plan_.budget_s - elapsed_s, 0.0), plan_.budget_s)};
  return {SearchStop::None, D, 0, false, iters, std::move(why)};
}

RoundProgress round_progress(const std::vector<const PointRecord*>& points) {
  RoundProgress out;
  if (points.empty()) return out;
  out.rounds = points.front()->windows.size();
  double first = 0, last = 0;
  bool any = false;
  for (const PointRecord* p : points) {
    out.rounds = std::min(out.rounds, p->windows.size());
    for (const TimeStats* t : {&p->t_math, &p->t_comm, &p->t_step})
      for (const double s : t->stamps) {
        first = any ? std::min(first, s) : s;
        last = any ? std::max(last, s) : s;
        any = true;
      }
  }
  out.span_s = any ? last - first : 0;
  return out;
}

double CrossoverSearch::round_estimate_s(const std::vector<PointRecord>& points, std::uint64_t D,
                                         std::uint64_t D2) const {
  // The last rounds' own wall times, where there are some: the ceilings
  // they include are the same every round.
  double last = 0;
  int seen = 0;
  for (std::size_t i = log_.size(); i-- > 0 && seen < 3;)
    if (log_[i].round) {
      last = std::max(last, log_[i].wall_s);
      ++seen;
    }
  if (seen > 0) return last;
  const double points_s = estimate_s(points, D, plan_.timing.iters) + (D2 ? estimate_s(points, D2, plan_.timing.iters) : 0);
  return 2 * points_s;
}

SearchStep CrossoverSearch::round_or_stop(const std::vector<PointRecord>& points, const SweepAnalysis& analysis,
                                          double elapsed_s, std::uint64_t D, std::uint64_t D2, bool floor) const {
  std::vector<const PointRecord*> at;
  if (const PointRecord* p = point_at(points, static_cast<double>(D))) at.push_back(p);
  if (D2)
    if (const PointRecord* p = point_at(points, static_cast<double>(D2))) at.push_back(p);
  const RoundProgress progress = round_progress(at);
  const bool enough = progress.rounds >= plan_.min_rounds && progress.span_s >= plan_.min_span_s;
  const bool unstable = analysis.stability.unstable();
  const bool narrow = analysis.interval && analysis.empirical.D && analysis.interval->within(*analysis.empirical.D, plan_.target);
  const std::string spread = fmt::format("{} round{} over {:.0f} s", progress.rounds, progress.rounds == 1 ? "" : "s",
                                         progress.span_s);
  if (floor && enough)
    return {SearchStop::NoCrossover, 0, 0, false, 0,
            fmt::format("T_comm stayed below the GEMM's floor ({}, {} = {}) over {}",
                        plan_.grain > 1 ? "one row of the batch per rank" : "a shard of one column", plan_.name, D,
                        spread)};
  if (!floor && enough && narrow && !unstable)
    return {SearchStop::Converged, 0, 0, false, 0,
            fmt::format("the {:g}% interval is within +-{:g}% of {}* over {}, and the machine held one state",
                        100 * kIntervalLevel, 100 * plan_.target, plan_.name, spread)};
  const double est = round_estimate_s(points, D, D2);
  if (elapsed_s + est > plan_.budget_s) {
    // What the rounds still lacked, for the summary.
    std::vector<std::string> lacking;
    if (progress.rounds < plan_.min_rounds)
      lacking.push_back(fmt::format("{} of {} rounds", progress.rounds, plan_.min_rounds));
    if (progress.span_s < plan_.min_span_s)
      lacking.push_back(fmt::format("the rounds spread over {:.0f} s of the {:g} s asked", progress.span_s,
                                    plan_.min_span_s));
    if (!floor && !narrow)
      lacking.push_back(fmt::format("the interval is wider than +-{:g}% of {}*", 100 * plan_.target, plan_.name));
    if (unstable) lacking.push_back("the machine changed state during the run");
    std::string why = fmt::format("the budget: a round would take about {:.1f} s, {:.1f} s of {:g} s are left", est,
                                  std::max(plan_.budget_s - elapsed_s, 0.0), plan_.budget_s);
    if (!lacking.empty()) {
      why += "; not converged: ";
      for (std::size_t i = 0; i < lacking.size(); ++i) why += (i ? ", " : "") + lacking[i];
    }
    return {SearchStop::Budget, D, D2, true, plan_.timing.iters, why};
  }
  return {SearchStop::None, D, D2, true, plan_.timing.iters, floor ? "round at the floor" : "round"};
}

SearchStep CrossoverSearch::next(const std::vector<PointRecord>& points, const SweepAnalysis& analysis,
                                 double elapsed_s) const {
  const int base = plan_.timing.iters;
  if (points.empty())
    return measure_if_affordable(points, elapsed_s, plan_.D_start, base,
                                 fmt::format("bracket: start near the predicted {}*", plan_.name));
  const EmpiricalCrossover& e = analysis.empirical;
  const std::uint64_t lowest = points.front().D, highest = points.back().D;
  switch (e.kind) {
    case CrossingKind::Bracketed: {
      const Crossing& c = *std::find_if(e.crossings.begin(), e.crossings.end(),
                                        [](const Crossing& x) { return x.upward; });
      // The interval covers the samples' noise, not the interpolation
      // between the two points: it counts only once they are as close as
      // the target.
      if (c.D_above / c.D_below > (1 + plan_.target) / (1 - plan_.target)) {
        const double g = static_cast<double>(plan_.grain);
        const auto mid = plan_.grain * static_cast<std::uint64_t>(std::llround(std::sqrt(c.D_below * c.D_above) / g));
        if (static_cast<double>(mid) > c.D_below && static_cast<double>(mid) < c.D_above)
          return measure_if_affordable(points, elapsed_s, mid, base, "bisect");
      }
      return round_or_stop(points, analysis, elapsed_s, static_cast<std::uint64_t>(c.D_below),
                           static_cast<std::uint64_t>(c.D_above), false);
    }
    case CrossingKind::AboveRange: {
      if (highest >= plan_.D_max)
        return {SearchStop::RangeEnd, 0, 0, false, 0,
                fmt::format("every point is communication-bound up to {} = {}, the most that fits in memory",
                            plan_.name, highest)};
      return measure_if_affordable(points, elapsed_s, std::min(2 * highest, plan_.D_max), base,
                                   "bracket: every point so far is communication-bound");
    }
    case CrossingKind::BelowRange: {
      // A shard of one column is the GEMM's floor: no smaller D computes less.
      if (points.front().shard_max <= 1 || lowest <= plan_.D_min)
        return round_or_stop(points, analysis, elapsed_s, lowest, 0, true);
      return measure_if_affordable(points, elapsed_s, std::max(lowest / 2 / plan_.grain * plan_.grain, plan_.D_min), base,
                                   "bracket: every point so far is compute-bound");
    }
    case CrossingKind::OnlyDownward: {
      // Noise can turn a crossing over; rounds over time settle which way it goes.
      const Crossing& c = e.crossings.front();
      std::vector<const PointRecord*> pair;
      for (const double d : {c.D_below, c.D_above})
        if (const PointRecord* p = point_at(points, d)) pair.push_back(p);
      const RoundProgress progress = round_progress(pair);
      if (progress.rounds >= plan_.min_rounds && progress.span_s >= plan_.min_span_s)
        return {SearchStop::NotLocated, 0, 0, false, 0,
                fmt::format("T_math and T_comm cross only downward, also after {} rounds over {:.0f} s",
                            progress.rounds, progress.span_s)};
      SearchStep step = round_or_stop(points, analysis, elapsed_s, static_cast<std::uint64_t>(c.D_below),
                                      static_cast<std::uint64_t>(c.D_above), false);
      if (step.stop == SearchStop::Converged) step = {SearchStop::None, step.D, step.D2, true, base, "round"};
      if (step.stop == SearchStop::None) step = {SearchStop::None, static_cast<std::uint64_t>(c.D_below),
                                                 static_cast<std::uint64_t>(c.D_above), true, base,
                                                 "round: the points cross only downward"};
      return step;
    }
    case CrossingKind::Tied:
    case CrossingKind::NoPoints:
      break;
  }
  return {SearchStop::NotLocated, 0, 0, false, 0, "no change of sign of T_math - T_comm to refine"};
}

}  // namespace shardroof::sweep

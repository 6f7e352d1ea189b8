#include "sweep/search.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace shardroof::sweep {
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
  // What each earlier measurement took beyond its timed iterations
  // (allocation, operands, the check), per unit of D when D grows.
  double overhead = 0;
  for (const auto& r : log_) {
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
    return {SearchStop::Budget, D, iters,
            fmt::format("the budget: {} iterations at D = {} would take about {:.1f} s, {:.1f} s of {:g} s are left",
                        iters, D, est, std::max(plan_.budget_s - elapsed_s, 0.0), plan_.budget_s)};
  return {SearchStop::None, D, iters, std::move(why)};
}

SearchStep CrossoverSearch::next(const std::vector<PointRecord>& points, const SweepAnalysis& analysis,
                                 double elapsed_s) const {
  const int base = plan_.timing.iters;
  if (points.empty())
    return measure_if_affordable(points, elapsed_s, plan_.D_start, base, "bracket: start near the calibrated D_peak");
  const EmpiricalCrossover& e = analysis.empirical;
  const std::uint64_t lowest = points.front().D, highest = points.back().D;
  // One more measurement, as many iterations as it has so far, at whichever
  // of two points has fewer measurements; on a tie, the one measured longer
  // ago (the lower one if neither was), so that consecutive measurements,
  // which share the machine's state, do not all land on one point.
  const auto last_measured = [&](std::uint64_t D) {
    for (std::size_t i = log_.size(); i-- > 0;)
      if (log_[i].D == D) return static_cast<long>(i);
    return -1L;
  };
  const auto more_iterations = [&](const Crossing& c, const char* why) {
    const PointRecord* a = point_at(points, c.D_below);
    const PointRecord* b = point_at(points, c.D_above);
    if (!a || !b) return SearchStep{SearchStop::NotLocated, 0, 0, "the crossing's points are missing"};
    const bool pick_b = b->windows.size() < a->windows.size() ||
                        (b->windows.size() == a->windows.size() && last_measured(b->D) < last_measured(a->D));
    const PointRecord* p = pick_b ? b : a;
    return measure_if_affordable(points, elapsed_s, p->D, std::max(p->iterations, 1), why);
  };
  switch (e.kind) {
    case CrossingKind::Bracketed: {
      const Crossing& c = *std::find_if(e.crossings.begin(), e.crossings.end(),
                                        [](const Crossing& x) { return x.upward; });
      // The interval covers the samples' noise, not the interpolation
      // between the two points: it counts only once they are as close as
      // the target.
      if (c.D_above / c.D_below > (1 + plan_.target) / (1 - plan_.target)) {
        const auto mid = static_cast<std::uint64_t>(std::llround(std::sqrt(c.D_below * c.D_above)));
        if (static_cast<double>(mid) > c.D_below && static_cast<double>(mid) < c.D_above)
          return measure_if_affordable(points, elapsed_s, mid, base, "bisect");
      }
      // Each of the two points measured kMinMeasurements times: a state of
      // the machine that lasts through one measurement moves its median,
      // and only other measurements, at other times, show it.
      const PointRecord* below = point_at(points, c.D_below);
      const PointRecord* above = point_at(points, c.D_above);
      const bool repeated =
          below && above && std::min(below->windows.size(), above->windows.size()) >= kMinMeasurements;
      if (repeated && analysis.interval && analysis.interval->within(*e.D, plan_.target))
        return {SearchStop::Converged, 0, 0,
                fmt::format("the 95% interval is within +-{:g}% of D*", 100 * plan_.target)};
      return more_iterations(c, "more iterations");
    }
    case CrossingKind::AboveRange: {
      if (highest >= plan_.D_max)
        return {SearchStop::RangeEnd, 0, 0,
                fmt::format("every point is communication-bound up to D = {}, the most that fits in memory",
                            highest)};
      return measure_if_affordable(points, elapsed_s, std::min(2 * highest, plan_.D_max), base,
                                   "bracket: every point so far is communication-bound");
    }
    case CrossingKind::BelowRange: {
      if (lowest <= plan_.D_min)
        return {SearchStop::RangeEnd, 0, 0,
                fmt::format("every point is compute-bound down to D = {}", lowest)};
      return measure_if_affordable(points, elapsed_s, std::max(lowest / 2, plan_.D_min), base,
                                   "bracket: every point so far is compute-bound");
    }
    case CrossingKind::OnlyDownward: {
      // Noise can turn a crossing over; more samples settle which way it goes.
      const Crossing& c = e.crossings.front();
      const PointRecord* a = point_at(points, c.D_below);
      const PointRecord* b = point_at(points, c.D_above);
      if (a && b && std::min(a->iterations, b->iterations) < 8 * base)
        return more_iterations(c, "more iterations: the points cross only downward");
      return {SearchStop::NotLocated, 0, 0, "T_math and T_comm cross only downward, also with 8x the iterations"};
    }
    case CrossingKind::Tied:
    case CrossingKind::NoPoints:
      break;
  }
  return {SearchStop::NotLocated, 0, 0, "no change of sign of T_math - T_comm to refine"};
}

}  // namespace shardroof::sweep

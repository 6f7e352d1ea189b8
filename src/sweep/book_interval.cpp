#include "sweep/book_interval.h"

#include <algorithm>
#include <cmath>

#include "link/alpha_beta_fit.h"
#include "stability/statistics.h"
#include "timing/stats.h"

namespace shardroof::sweep {

std::optional<BookInterval> book_interval(const model::Shape& shape, const RunCeilings& ceilings,
                                          const model::Ceilings& book, const std::vector<double>& D,
                                          const std::vector<const PointRecord*>& points, double level,
                                          int replicates, std::uint64_t seed) {
  if (D.empty() || D.size() != points.size() || book.link_bytes_per_s <= 0 || replicates < 1) return std::nullopt;
  const bool probe = ceilings.link.probe.has_value() && !ceilings.link.probe->step_time.empty();
  // Each input's measurements, drawn again (stability/statistics.h).
  using stability::MedianResampler;
  std::vector<MedianResampler> probe_w, math_w;
  if (probe)
    for (const auto& t : ceilings.link.probe->step_time) probe_w.emplace_back(stability::windows_of(t));
  std::vector<double> C, t_math;
  for (const PointRecord* p : points) {
    math_w.emplace_back(stability::windows_of(p->t_math));
    C.push_back(p->flops_per_s);
    t_math.push_back(p->t_math.median);
  }
  MedianResampler g_w(stability::windows_of(ceilings.reduce.time));
  const bool g_known = ceilings.reduce.count > 0 && !ceilings.reduce.time.samples.empty();

  stability::IndexDraw pick(seed);
  enum Part { Link = 1, Reduce = 2, Gemm = 4 };
  // One replicate with the parts in `parts` drawn again; nullopt when the
  // probe's fit or the model has no answer.
  const auto replicate = [&](int parts) -> std::optional<double> {
    model::Ceilings c = book;
    if ((parts & Link) && probe) {
      std::vector<double> medians;
      for (auto& w : probe_w) medians.push_back(w.draw(pick));
      const link::AlphaBetaFit fit = link::fit_alpha_beta(ceilings.link.probe->bytes, medians);
      if (!fit.valid) return std::nullopt;
      c.link_bytes_per_s = fit.W_bytes_per_s;
      c.latency_s = fit.alpha_s;
    }
    if ((parts & Reduce) && g_known) c.reduce_s_per_elem = g_w.draw(pick) / static_cast<double>(ceilings.reduce.count);
    std::vector<double> rate = C;
    if (parts & Gemm)
      for (std::size_t i = 0; i < rate.size(); ++i) {
        const double t = math_w[i].draw(pick);
        if (t > 0) rate[i] = C[i] * t_math[i] / t;
      }
    const auto p = predicted_crossover(D, rate, shape, c);
    if (!p || !std::isfinite(p->D) || !(p->D > 0)) return std::nullopt;
    return p->D;
  };
  const auto run = [&](int parts, int n, int& failed) {
    std::vector<double> out;
    out.reserve(static_cast<std::size_t>(n));
    for (int r = 0; r < n; ++r) {
      if (const auto v = replicate(parts))
        out.push_back(*v);
      else
        ++failed;
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  BookInterval b;
  b.replicates = replicates;
  const std::vector<double> all = run(Link | Reduce | Gemm, replicates, b.failed);
  if (all.size() < static_cast<std::size_t>(replicates) / 2) return std::nullopt;
  const stability::Bounds central = stability::central(all, level);
  b.interval = Interval{central.low, central.high};
  b.percentiles = stability::percentiles_of(all);
  const auto width = [&](int part) {
    int failed = 0;
    const stability::Bounds one = stability::central(run(part, std::max(100, replicates / 4), failed), level);
    return one.low > 0 ? one.high / one.low : 1.0;
  };
  if (probe) b.widths.emplace_back("the link: W and alpha (ring probe)", width(Link));
  // An AllGather reduces nothing: g is no input of its book.
  if (g_known && shape.collective != model::Collective::AllGather) b.widths.emplace_back("the reduction g", width(Reduce));
  b.widths.emplace_back("the GEMM's rate C(" + model::swept_name(shape.sharding) + ")", width(Gemm));
  std::stable_sort(b.widths.begin(), b.widths.end(), [](const auto& x, const auto& y) { return x.second > y.second; });
  return b;
}

}  // namespace shardroof::sweep

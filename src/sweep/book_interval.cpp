#include "sweep/book_interval.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>

#include "link/alpha_beta_fit.h"
#include "timing/stats.h"

namespace shardroof::sweep {
namespace {

// A TimeStats' measurements (windows) as [first, first + size) of its samples.
struct Windows {
  const std::vector<double>* values = nullptr;
  std::vector<std::pair<std::size_t, std::size_t>> spans;
};

Windows windows_of(const TimeStats& t) {
  Windows w;
  w.values = &t.samples;
  std::size_t sum = 0;
  for (const std::size_t c : t.windows) {
    if (c == 0) break;
    w.spans.emplace_back(sum, c);
    sum += c;
  }
  if (w.spans.empty() || sum != t.samples.size()) w.spans = {{0, t.samples.size()}};
  return w;
}


double quantile(const std::vector<double>& s, double q) {
  const double pos = q * static_cast<double>(s.size() - 1);
  const auto i = static_cast<std::size_t>(std::floor(pos));
  const std::size_t j = std::min(i + 1, s.size() - 1);
  return s[i] + (pos - static_cast<double>(i)) * (s[j] - s[i]);
}

class Resampler {
 public:
  explicit Resampler(std::uint64_t seed) : gen_(seed) {}
  // The median of the windows drawn with replacement, then their samples.
  double median(const Windows& w) {
    draw_.clear();
    const std::size_t n = w.spans.size();
    for (std::size_t k = 0; k < n; ++k) {
      const auto [first, size] = w.spans[static_cast<std::size_t>(gen_() % n)];
      for (std::size_t i = 0; i < size; ++i) draw_.push_back((*w.values)[first + static_cast<std::size_t>(gen_() % size)]);
    }
    return draw_.empty() ? 0 : median_in_place(draw_);
  }

 private:
  std::mt19937_64 gen_;
  std::vector<double> draw_;
};

}  // namespace

std::optional<BookInterval> book_interval(const model::Shape& shape, const RunCeilings& ceilings,
                                          const model::Ceilings& book, const std::vector<double>& D,
                                          const std::vector<const PointRecord*>& points, double level,
                                          int replicates, std::uint64_t seed) {
  if (D.empty() || D.size() != points.size() || book.link_bytes_per_s <= 0 || replicates < 1) return std::nullopt;
  const bool probe = ceilings.link.probe.has_value() && !ceilings.link.probe->step_time.empty();
  std::vector<Windows> probe_w, math_w;
  if (probe)
    for (const auto& t : ceilings.link.probe->step_time) probe_w.push_back(windows_of(t));
  std::vector<double> C, t_math;
  for (const PointRecord* p : points) {
    math_w.push_back(windows_of(p->t_math));
    C.push_back(p->flops_per_s);
    t_math.push_back(p->t_math.median);
  }
  const Windows g_w = windows_of(ceilings.reduce.time);
  const bool g_known = ceilings.reduce.count > 0 && !ceilings.reduce.time.samples.empty();

  Resampler rs(seed);
  enum Part { Link = 1, Reduce = 2, Gemm = 4 };
  // One replicate with the parts in `parts` drawn again; nullopt when the
  // probe's fit or the model has no answer.
  const auto replicate = [&](int parts) -> std::optional<double> {
    model::Ceilings c = book;
    if ((parts & Link) && probe) {
      std::vector<double> medians;
      for (const auto& w : probe_w) medians.push_back(rs.median(w));
      const link::AlphaBetaFit fit = link::fit_alpha_beta(ceilings.link.probe->bytes, medians);
      if (!fit.valid) return std::nullopt;
      c.link_bytes_per_s = fit.W_bytes_per_s;
      c.latency_s = fit.alpha_s;
    }
    if ((parts & Reduce) && g_known) c.reduce_s_per_elem = rs.median(g_w) / static_cast<double>(ceilings.reduce.count);
    std::vector<double> rate = C;
    if (parts & Gemm)
      for (std::size_t i = 0; i < rate.size(); ++i) {
        const double t = rs.median(math_w[i]);
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
  const double tail = (1 - level) / 2;
  b.interval = Interval{quantile(all, tail), quantile(all, 1 - tail)};
  b.percentiles = percentiles_of(all);
  const auto width = [&](int part) {
    int failed = 0;
    const std::vector<double> one = run(part, std::max(100, replicates / 4), failed);
    if (one.size() < 2 || !(quantile(one, tail) > 0)) return 1.0;
    return quantile(one, 1 - tail) / quantile(one, tail);
  };
  if (probe) b.widths.emplace_back("the link: W and alpha (ring probe)", width(Link));
  // An AllGather reduces nothing: g is no input of its book.
  if (g_known && shape.collective != model::Collective::AllGather) b.widths.emplace_back("the reduction g", width(Reduce));
  b.widths.emplace_back("the GEMM's rate C(" + model::swept_name(shape.sharding) + ")", width(Gemm));
  std::stable_sort(b.widths.begin(), b.widths.end(), [](const auto& x, const auto& y) { return x.second > y.second; });
  return b;
}

}  // namespace shardroof::sweep

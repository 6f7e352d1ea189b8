#include "stability/stability.h"
#include "timing/stats.h"

#include <algorithm>
#include <cmath>

namespace shardroof::stability {
namespace {


struct Block {
  double t = 0, t_end = 0;  // its first and last sample's stamp
  double value = 0;         // log of its median
  std::vector<double> samples;
  std::vector<std::uint64_t> labels;  // distinct, in order of time
};

struct Sample {
  double t = 0, value = 0;
  std::uint64_t label = 0;
};

// A run of consecutive blocks: its samples and where it lies in time.
struct Run {
  std::size_t first = 0, last = 0;  // blocks [first, last]
  double median = 0;
};

double run_median(const std::vector<Block>& blocks, std::size_t first, std::size_t last) {
  std::vector<double> all;
  for (std::size_t b = first; b <= last; ++b) all.insert(all.end(), blocks[b].samples.begin(), blocks[b].samples.end());
  return median_of(std::move(all));
}

double ratio(double a, double b) { return a > b ? a / b : b / a; }

}  // namespace

bool State::holds(double t_s) const {
  for (const auto& [begin, end] : spans)
    if (t_s >= begin && t_s <= end) return true;
  return false;
}

std::string to_string(Verdict v) {
  switch (v) {
    case Verdict::TooFew: return "too_few";
    case Verdict::Stable: return "stable";
    case Verdict::Drift: return "drift";
    case Verdict::Unstable: return "unstable";
  }
  return "?";
}

std::optional<Verdict> parse_verdict(std::string_view name) {
  for (const Verdict v : {Verdict::TooFew, Verdict::Stable, Verdict::Drift, Verdict::Unstable})
    if (to_string(v) == name) return v;
  return std::nullopt;
}

Stability assess(const std::vector<TimedWindow>& windows, double material_ratio, const ChangePointOptions& options) {
  Stability out;
  out.material_ratio = material_ratio;
  std::vector<double> every;
  for (const auto& w : windows)
    for (const double s : w.samples)
      if (s > 0 && std::isfinite(s)) every.push_back(s);
  out.samples = every.size();
  out.median = median_of(every);
  if (every.empty()) return out;
  const std::size_t per_block =
      std::max(kMinBlockSamples, (every.size() + kMaxBlocks - 1) / kMaxBlocks);
  out.block_samples = per_block;

  // Groups: consecutive windows in time order, joined until a group has
  // per_block samples (a window that long is a group of its own; what is
  // left at the end joins the last group). Each group is cut into
  // near-equal blocks of consecutive samples, so every block holds at least
  // per_block samples and there are at most kMaxBlocks, however short the
  // windows.
  std::vector<std::pair<double, std::vector<Sample>>> timed;  // each window's first stamp and samples
  for (std::size_t w = 0; w < windows.size(); ++w) {
    const auto& win = windows[w];
    const bool stamped = win.stamps.size() == win.samples.size();
    std::vector<Sample> kept;
    for (std::size_t j = 0; j < win.samples.size(); ++j)
      if (win.samples[j] > 0 && std::isfinite(win.samples[j]))
        kept.push_back({stamped ? win.stamps[j] : static_cast<double>(w), win.samples[j], win.label});
    if (!kept.empty()) timed.emplace_back(kept.front().t, std::move(kept));
  }
  std::stable_sort(timed.begin(), timed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::vector<Sample>> windows_joined;
  std::vector<Sample> pending;
  for (auto& [t, kept] : timed) {
    pending.insert(pending.end(), kept.begin(), kept.end());
    if (pending.size() >= per_block) windows_joined.push_back(std::move(pending)), pending.clear();
  }
  if (!pending.empty()) {
    if (windows_joined.empty()) windows_joined.emplace_back();
    windows_joined.back().insert(windows_joined.back().end(), pending.begin(), pending.end());
  }
  std::vector<Block> blocks;
  for (auto& g : windows_joined) {
    std::stable_sort(g.begin(), g.end(), [](const Sample& a, const Sample& b) { return a.t < b.t; });
    const std::size_t n = g.size();
    const std::size_t count = std::max<std::size_t>(n / per_block, 1);
    for (std::size_t k = 0; k < count; ++k) {
      Block b;
      for (std::size_t j = k * n / count; j < (k + 1) * n / count; ++j) {
        b.samples.push_back(g[j].value);
        if (std::find(b.labels.begin(), b.labels.end(), g[j].label) == b.labels.end()) b.labels.push_back(g[j].label);
      }
      b.t = g[k * n / count].t;
      b.t_end = g[(k + 1) * n / count - 1].t;
      b.value = std::log(median_of(b.samples));
      blocks.push_back(std::move(b));
    }
  }
  out.blocks = blocks.size();
  const std::size_t min_segment = std::max<std::size_t>(options.min_segment, 2);

  std::vector<double> series;
  for (const auto& b : blocks) series.push_back(b.value);
  std::vector<ChangePoint> cps;
  if (blocks.size() >= 2 * min_segment) cps = find_change_points(series, options, &out.work);
  out.change_points = cps.size();
  for (const auto& cp : cps) out.p_values.push_back(cp.p_value);

  std::vector<Run> runs;
  std::size_t first = 0;
  for (const auto& cp : cps) {
    runs.push_back({first, cp.index - 1, 0});
    first = cp.index;
  }
  if (!blocks.empty()) runs.push_back({first, blocks.size() - 1, 0});
  for (auto& r : runs) r.median = run_median(blocks, r.first, r.last);
  // Merge the closest neighbours while they lie within the material ratio.
  while (runs.size() > 1) {
    std::size_t best = 0;
    for (std::size_t i = 1; i + 1 < runs.size(); ++i)
      if (ratio(runs[i].median, runs[i + 1].median) < ratio(runs[best].median, runs[best + 1].median)) best = i;
    if (ratio(runs[best].median, runs[best + 1].median) >= material_ratio) break;
    runs[best].last = runs[best + 1].last;
    runs[best].median = run_median(blocks, runs[best].first, runs[best].last);
    runs.erase(runs.begin() + static_cast<std::ptrdiff_t>(best) + 1);
  }

  {
    double squares = 0;
    for (const auto& r : runs)
      for (std::size_t b = r.first; b <= r.last; ++b)
        squares += (blocks[b].value - std::log(r.median)) * (blocks[b].value - std::log(r.median));
    if (blocks.size() > runs.size())
      out.noise_sd_log = std::sqrt(squares / static_cast<double>(blocks.size() - runs.size()));
  }
  for (const auto& r : runs) {
    Level l;
    l.median = r.median;
    l.begin_s = blocks[r.first].t;
    l.end_s = blocks[r.last].t_end;
    l.first_label = blocks[r.first].labels.front();
    l.last_label = blocks[r.last].labels.back();
    for (std::size_t b = r.first; b <= r.last; ++b) {
      l.samples += blocks[b].samples.size();
      for (const std::uint64_t label : blocks[b].labels)
        if (std::find(l.labels.begin(), l.labels.end(), label) == l.labels.end()) l.labels.push_back(label);
    }
    out.levels.push_back(std::move(l));
  }
  double lo = out.levels.front().median, hi = lo;
  for (const auto& l : out.levels) {
    lo = std::min(lo, l.median);
    hi = std::max(hi, l.median);
  }
  out.max_ratio = lo > 0 ? hi / lo : 1;

  // States: the runs sorted by value, neighbours within the material ratio
  // grouped.
  std::vector<std::size_t> order(runs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return runs[a].median < runs[b].median; });
  std::vector<std::vector<std::size_t>> groups;
  for (const std::size_t i : order) {
    if (!groups.empty() && ratio(runs[groups.back().back()].median, runs[i].median) < material_ratio)
      groups.back().push_back(i);
    else
      groups.push_back({i});
  }
  for (const auto& g : groups) {
    std::vector<double> all;
    for (const std::size_t i : g)
      for (std::size_t b = runs[i].first; b <= runs[i].last; ++b)
        all.insert(all.end(), blocks[b].samples.begin(), blocks[b].samples.end());
    State s;
    for (const std::size_t i : g)
      s.spans.emplace_back(blocks[runs[i].first].t, blocks[runs[i].last].t_end);
    std::sort(s.spans.begin(), s.spans.end());
    s.samples = all.size();
    s.median = median_of(std::move(all));
    s.share = static_cast<double>(s.samples) / static_cast<double>(out.samples);
    out.states.push_back(s);
  }

  if (blocks.size() < 2 * min_segment)
    out.verdict = Verdict::TooFew;
  else if (cps.empty())
    out.verdict = Verdict::Stable;
  else
    out.verdict = runs.size() > 1 ? Verdict::Unstable : Verdict::Drift;
  return out;
}

void append_windows(std::vector<TimedWindow>& out, const TimeStats& t, std::uint64_t label, double origin_s,
                    double scale) {
  const std::vector<std::size_t> sizes = t.windows.empty() ? std::vector<std::size_t>{t.samples.size()} : t.windows;
  const bool stamped = t.stamps.size() == t.samples.size();
  std::size_t first = 0;
  for (const std::size_t n : sizes) {
    if (first + n > t.samples.size()) break;
    TimedWindow w;
    w.label = label;
    for (std::size_t i = first; i < first + n; ++i) {
      w.samples.push_back(t.samples[i] / scale);
      if (stamped) w.stamps.push_back(t.stamps[i] - origin_s);
    }
    out.push_back(std::move(w));
    first += n;
  }
}

}  // namespace shardroof::stability

#include "report/svg_plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace shardroof::svg {
namespace {

constexpr int kLeft = 70, kRight = 20, kTop = 30, kBottom = 48, kLegendRow = 16;

struct Scale {
  bool log = true;
  double lo = 1, hi = 10;
  double px_lo = 0, px_hi = 1;
  double operator()(double v) const {
    const double a = log ? std::log10(std::max(v, 1e-300)) : v;
    const double l = log ? std::log10(lo) : lo, h = log ? std::log10(hi) : hi;
    return px_lo + (a - l) / (h - l) * (px_hi - px_lo);
  }
};

// The data range of an axis, padded, and positive for a log axis.
std::pair<double, double> range_of(const Axis& a, const std::vector<double>& values) {
  if (a.lo > 0 && a.hi > a.lo) return {a.lo, a.hi};
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const double v : values)
    if (std::isfinite(v) && (!a.log || v > 0)) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  if (!std::isfinite(lo)) return {1, 10};
  if (a.log) {
    if (hi <= lo) hi = lo * 10;
    return {lo / 1.5, hi * 1.5};
  }
  if (hi <= lo) hi = lo + 1;
  const double pad = (hi - lo) * 0.05;
  return {std::min(0.0, lo - pad), hi + pad};
}

std::string tick_text(double v) {
  if (v == 0) return "0";
  const double a = std::fabs(v);
  if (a >= 1e5 || a < 1e-2) return fmt::format("{:.0e}", v);
  return fmt::format("{:.3g}", v);
}

std::vector<double> ticks(const Scale& s) {
  std::vector<double> t;
  if (s.log) {
    const double l = std::floor(std::log10(s.lo)), h = std::ceil(std::log10(s.hi));
    const double step = std::max(1.0, std::ceil((h - l) / 8));
    for (double e = l; e <= h; e += step) {
      const double v = std::pow(10, e);
      if (v >= s.lo && v <= s.hi) t.push_back(v);
    }
    if (t.size() < 3) {  // less than a few decades: 1, 2 and 5 of each
      t.clear();
      for (double e = l - 1; e <= h; ++e)
        for (const double m : {1.0, 2.0, 5.0})
          if (const double v = m * std::pow(10, e); v >= s.lo && v <= s.hi) t.push_back(v);
    }
    if (t.size() < 2) t = {s.lo, s.hi};  // a narrow range: its ends
  } else {
    const double span = s.hi - s.lo;
    const double raw = span / 6, mag = std::pow(10, std::floor(std::log10(raw)));
    const double step = raw / mag < 2 ? 2 * mag : raw / mag < 5 ? 5 * mag : 10 * mag;
    for (double v = std::ceil(s.lo / step) * step; v <= s.hi; v += step) t.push_back(v);
  }
  return t;
}

}  // namespace

std::string escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string heat_color(double share) {
  share = std::clamp(share, 0.0, 1.0);
  // red (0) -> yellow (0.5) -> green (1)
  const int r = share < 0.5 ? 220 : static_cast<int>(220 - (share - 0.5) * 2 * 170);
  const int g = share < 0.5 ? static_cast<int>(60 + share * 2 * 160) : 220 - static_cast<int>((share - 0.5) * 2 * 40);
  return fmt::format("rgb({},{},80)", r, g);
}

std::string render(const Chart& c) {
  std::vector<double> xs, ys;
  for (const auto& s : c.series) {
    xs.insert(xs.end(), s.x.begin(), s.x.end());
    ys.insert(ys.end(), s.y.begin(), s.y.end());
    ys.insert(ys.end(), s.y_lo.begin(), s.y_lo.end());
    ys.insert(ys.end(), s.y_hi.begin(), s.y_hi.end());
  }
  for (const auto& m : c.vertical) xs.push_back(m.at);
  for (const auto& m : c.horizontal) ys.push_back(m.at);
  const std::size_t legend_items = c.series.size() + c.vertical.size() + c.horizontal.size() + c.spans.size();
  const int legend_rows = static_cast<int>((legend_items + 1) / 2);
  const int height = c.height + 12 + legend_rows * kLegendRow;
  const int plot_bottom = c.height - kBottom;
  auto [xlo, xhi] = range_of(c.x, xs);
  auto [ylo, yhi] = range_of(c.y, ys);
  const Scale X{c.x.log, xlo, xhi, static_cast<double>(kLeft), static_cast<double>(c.width - kRight)};
  const Scale Y{c.y.log, ylo, yhi, static_cast<double>(plot_bottom), static_cast<double>(kTop)};
  const auto inside_x = [&](double v) { return std::isfinite(v) && v >= X.lo && v <= X.hi && (!X.log || v > 0); };
  const auto inside_y = [&](double v) { return std::isfinite(v) && v >= Y.lo && v <= Y.hi && (!Y.log || v > 0); };

  std::string o = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" role=\"img\" "
      "aria-label=\"{2}\" font-family=\"sans-serif\" font-size=\"11\">\n",
      c.width, height, escape(c.title));
  o += fmt::format("<text x=\"{}\" y=\"16\" font-size=\"13\" font-weight=\"bold\">{}</text>\n", kLeft, escape(c.title));
  o += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#888\"/>\n", kLeft, kTop,
                   c.width - kLeft - kRight, plot_bottom - kTop);
  // Spans under everything else.
  for (const auto& s : c.spans) {
    const double a = X(std::clamp(s.lo, X.lo, X.hi)), b = X(std::clamp(s.hi, X.lo, X.hi));
    o += fmt::format("<rect x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\" fill-opacity=\"{}\"/>\n", a,
                     kTop, std::max(b - a, 1.0), plot_bottom - kTop, s.color, s.opacity);
  }
  for (const double t : ticks(X)) {
    const double px = X(t);
    o += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#ddd\"/>\n", px, kTop, plot_bottom);
    o += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", px, plot_bottom + 14, tick_text(t));
  }
  for (const double t : ticks(Y)) {
    const double py = Y(t);
    o += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"#ddd\"/>\n", kLeft, c.width - kRight, py);
    o += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", kLeft - 4, py + 4, tick_text(t));
  }
  o += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", (kLeft + c.width - kRight) / 2,
                   plot_bottom + 32, escape(c.x.label + (c.x.log ? " (log)" : "")));
  o += fmt::format("<text x=\"14\" y=\"{0}\" text-anchor=\"middle\" transform=\"rotate(-90 14 {0})\">{1}</text>\n",
                   (kTop + plot_bottom) / 2, escape(c.y.label + (c.y.log ? " (log)" : "")));
  for (const auto& m : c.horizontal) {
    if (!inside_y(m.at)) continue;
    o += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"{3}\" stroke-dasharray=\"{4}\"/>\n",
                     kLeft, c.width - kRight, Y(m.at), m.color, m.dash);
  }
  for (const auto& m : c.vertical) {
    if (!inside_x(m.at)) continue;
    o += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"{3}\" stroke-width=\"1.5\" "
                     "stroke-dasharray=\"{4}\"/>\n",
                     X(m.at), kTop, plot_bottom, m.color, m.dash);
  }
  for (const auto& s : c.series) {
    std::string path;
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!inside_x(s.x[i]) || !inside_y(s.y[i])) continue;
      path += fmt::format("{}{:.1f},{:.1f}", path.empty() ? "M" : " L", X(s.x[i]), Y(s.y[i]));
    }
    if (!path.empty())
      o += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.6\" stroke-dasharray=\"{}\"/>\n", path,
                       s.color, s.dash);
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!inside_x(s.x[i]) || !inside_y(s.y[i])) continue;
      if (i < s.y_lo.size() && i < s.y_hi.size() && inside_y(s.y_lo[i]) && inside_y(s.y_hi[i]))
        o += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\" stroke=\"{3}\"/>\n",
                         X(s.x[i]), Y(s.y_lo[i]), Y(s.y_hi[i]), s.color);
      if (s.markers)
        o += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"/>\n", X(s.x[i]), Y(s.y[i]), s.color);
    }
  }
  // The legend: two columns under the plot.
  int item = 0;
  const auto legend = [&](const std::string& label, const std::string& color, const std::string& dash, bool box) {
    const int col = item % 2, row = item / 2;
    const int lx = kLeft + col * (c.width - kLeft) / 2, ly = c.height + 8 + row * kLegendRow;
    if (box)
      o += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"18\" height=\"9\" fill=\"{}\" fill-opacity=\"0.3\"/>\n", lx, ly - 8,
                       color);
    else
      o += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"{3}\" stroke-width=\"2\" "
                       "stroke-dasharray=\"{4}\"/>\n",
                       lx, lx + 18, ly - 4, color, dash);
    o += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", lx + 24, ly, escape(label));
    ++item;
  };
  for (const auto& s : c.series) legend(s.label, s.color, s.dash, false);
  for (const auto& m : c.vertical) legend(m.label, m.color, m.dash, false);
  for (const auto& m : c.horizontal) legend(m.label, m.color, m.dash, false);
  for (const auto& s : c.spans) legend(s.label, s.color, "", true);
  o += "</svg>\n";
  return o;
}

}  // namespace shardroof::svg

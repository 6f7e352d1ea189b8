// A small chart drawn as inline SVG text: axes (linear or log), lines,
// markers with error bars, horizontal and vertical marks, shaded spans and
// a legend under the plot. Enough for the report's plots and nothing
// more, so the page needs no script and no network.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace shardroof::svg {

struct Axis {
  std::string label;
  bool log = true;
  double lo = 0, hi = 0;  // 0, 0: from the data
};

struct Series {
  Series(std::string l, std::string c) : label(std::move(l)), color(std::move(c)) {}
  std::string label, color;
  std::vector<double> x, y;
  std::vector<double> y_lo, y_hi;  // error bars (empty: none)
  bool markers = true;
  std::string dash;  // stroke-dasharray, "" solid
};

struct Mark {
  std::string label, color;
  double at = 0;
  std::string dash;
};

struct Span {
  std::string label, color;
  double lo = 0, hi = 0;
  double opacity = 0.15;
};

struct Chart {
  std::string title;
  Axis x, y;
  std::vector<Series> series;
  std::vector<Mark> vertical, horizontal;
  std::vector<Span> spans;  // along x
  int width = 760, height = 380;
};

// The chart as an <svg> element (escaped text, no script).
std::string render(const Chart& c);

// Text made safe for HTML and SVG.
std::string escape(const std::string& s);

// A cell colour for a heat map: from red (0) through yellow to green (1).
std::string heat_color(double share);

}  // namespace shardroof::svg

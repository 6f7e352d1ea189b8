#include "report/html_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "report/answer.h"
#include "report/combine_report.h"
#include "report/svg_plot.h"
#include "util/units.h"

namespace shardroof {
namespace {

using svg::escape;

// The plots' colours and labels: the same as scripts/plot.py's.
constexpr const char* kMathColor = "#1f77b4";
constexpr const char* kCommColor = "#d62728";
constexpr const char* kStepColor = "#2ca02c";
constexpr const char* kBookColor = "#8c564b";
constexpr const char* kImplColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#e377c2"};

std::string section(const std::string& id, const std::string& title, const std::string& body) {
  return fmt::format("<section id=\"{}\">\n<h2>{}</h2>\n{}</section>\n", id, escape(title), body);
}

std::string table(const std::vector<std::string>& head, const std::vector<std::vector<std::string>>& rows) {
  std::string o = "<table>\n<tr>";
  for (const auto& h : head) o += "<th>" + escape(h) + "</th>";
  o += "</tr>\n";
  for (const auto& r : rows) {
    o += "<tr>";
    for (const auto& c : r) o += "<td>" + escape(c) + "</td>";
    o += "</tr>\n";
  }
  return o + "</table>\n";
}

std::string answer_html(const AnswerBlock& a) {
  std::string o = fmt::format("<p class=\"answer-title\">{}</p>\n<pre class=\"answer\">", escape(a.title));
  for (std::size_t i = 0; i < a.lines.size() && i + 1 < kAnswerMaxLines; ++i) o += escape(a.lines[i]) + "\n";
  return o + "</pre>\n";
}

std::string sweep_chart(const bringup::SweepView& s) {
  svg::Chart c;
  const std::string x = s.swept;
  c.title = fmt::format("compute vs communication: {} {}, {}, B={} F={}, N={}", s.collective, s.impl, s.datatype,
                        count_text(s.B), count_text(s.F), s.ranks);
  c.x = {x == "D" ? "contracting dimension D (elements)" : "whole batch B (rows)", true, 0, 0};
  c.y = {"time per step (ms; median, bars min-max)", true, 0, 0};
  svg::Series math{"T_math (local GEMM)", kMathColor}, comm{"T_comm (" + s.collective + ", " + s.impl + ")", kCommColor},
      step{"T_step (GEMM then collective)", kStepColor};
  for (const auto& p : s.points) {
    for (const auto& [series, t] : {std::pair{&math, &p.t_math}, std::pair{&comm, &p.t_comm}, std::pair{&step, &p.t_step}}) {
      if (t->median <= 0) continue;
      series->x.push_back(p.D);
      series->y.push_back(t->median * 1e3);
      series->y_lo.push_back(t->min * 1e3);
      series->y_hi.push_back(t->max * 1e3);
    }
  }
  c.series = {math, comm};
  if (!step.x.empty()) c.series.push_back(step);
  // The GEMM's roofs over the points' range (the slowest shard, ceil(D/N)).
  if (!s.points.empty() && s.ranks > 0 && s.B > 0 && s.F > 0) {
    const double lo = s.points.front().D / 2, hi = s.points.back().D * 2;
    svg::Series compute{"compute roof 2B(D/N)F/C_peak", kMathColor}, memory{"memory roof s(B D/N + D/N F + B F)/M", "#17becf"};
    compute.markers = memory.markers = false;
    compute.dash = memory.dash = "5,3";
    const double es = s.datatype == "double" ? 8 : s.datatype == "float" || s.datatype == "int32" ? 4 : 2;
    for (int k = 0; k <= 40; ++k) {
      const double D = lo * std::pow(hi / lo, k / 40.0);
      const double shard = std::max(1.0, std::ceil(D / s.ranks));
      if (s.C_peak && *s.C_peak > 0) {
        compute.x.push_back(D);
        compute.y.push_back(2 * s.B * shard * s.F / *s.C_peak * 1e3);
      }
      if (s.M && *s.M > 0) {
        memory.x.push_back(D);
        memory.y.push_back(es * (s.B * shard + shard * s.F + s.B * s.F) / *s.M * 1e3);
      }
    }
    if (!compute.x.empty()) c.series.push_back(compute);
    if (!memory.x.empty()) c.series.push_back(memory);
  }
  if (s.floor_s && *s.floor_s > 0)
    c.horizontal.push_back({fmt::format("GEMM floor ({}/N = 1): {}{}", x, time_text(*s.floor_s),
                                        s.floor_cause.empty() ? "" : ", " + s.floor_cause),
                            "#7f7f7f", *s.floor_s * 1e3, "2,3"});
  if (s.t_comm_book_s && *s.t_comm_book_s > 0)
    c.horizontal.push_back({"book T_comm (" + (s.link_source.empty() ? std::string("link") : s.link_source) + ")",
                            kBookColor, *s.t_comm_book_s * 1e3, "6,3,2,3"});
  if (s.D) {
    c.vertical.push_back({fmt::format("{}* measured = {}{}", x, count_text(*s.D), s.roof.empty() ? "" : " (" + s.roof + " roof)"),
                          "#000", *s.D, ""});
    const double lo = s.D_interval.low.value_or(s.points.empty() ? *s.D / 2 : s.points.front().D / 2);
    const double hi = s.D_interval.high.value_or(s.points.empty() ? *s.D * 2 : s.points.back().D * 2);
    c.spans.push_back({fmt::format("95% interval {}", bounds_text(s.D_interval)), "#000", lo, hi, 0.12});
  }
  if (s.book) {
    c.vertical.push_back({fmt::format("{}* book, the prediction = {}", x, count_text(*s.book)), kBookColor, *s.book, "6,3,2,3"});
    if (s.book_interval.low && s.book_interval.high)
      c.spans.push_back({fmt::format("book's interval {}", bounds_text(s.book_interval)), kBookColor,
                         *s.book_interval.low, *s.book_interval.high, 0.10});
  }
  return svg::render(c);
}

std::string sweep_section(const bringup::BringUp& b) {
  std::string body;
  // The last sweeps drawn (a quickstart's launches are alike: the last stands for them).
  const std::size_t first = b.sweeps.size() > 3 ? b.sweeps.size() - 3 : 0;
  for (std::size_t i = first; i < b.sweeps.size(); ++i) {
    const auto& s = b.sweeps[i];
    body += fmt::format("<p class=\"file\">{}</p>\n", escape(s.path));
    if (s.points.empty()) {
      body += "<p>no points measured</p>\n";
      continue;
    }
    body += sweep_chart(s);
    const AnswerBlock a = sweep_answer(s);
    if (!a.lines.empty()) body += "<p class=\"caption\">" + escape(a.lines.front()) + "</p>\n";
  }
  if (first > 0) body += fmt::format("<p>{} earlier sweeps are in the launches' table.</p>\n", first);
  return section("sweep", "The sweep: T_math and T_comm against D", body);
}

std::string launches_section(const bringup::BringUp& b) {
  std::string body;
  for (const auto& c : b.combines) {
    if (c.command != "sweep") {
      body += fmt::format("<p>{}: {} launches of coll, {} rows combined.</p>\n", escape(c.path), c.launches, c.coll_rows);
      continue;
    }
    std::vector<std::vector<std::string>> rows;
    svg::Chart chart;
    chart.title = fmt::format("{}* per launch and combined ({} launches)", c.swept, c.launches);
    chart.x = {"launch", false, 0.5, static_cast<double>(c.each.size()) + 0.5};
    chart.y = {c.swept + "* (95% interval within each launch)", true, 0, 0};
    svg::Series each{"each launch's D* (its own interval)", "#000"};
    each.dash = "1,12";
    for (std::size_t i = 0; i < c.each.size(); ++i) {
      const auto& l = c.each[i];
      rows.push_back({std::to_string(i + 1), l.path,
                      l.D ? count_text(*l.D) : (l.no_crossover.empty() ? "-" : "none (" + l.no_crossover + ")"),
                      bounds_text(l.interval),
                      l.stability.empty() ? "-" : l.stability,
                      i < c.launch_states.size() ? c.launch_states[i] : std::string("-")});
      if (!l.D) continue;
      each.x.push_back(static_cast<double>(i + 1));
      each.y.push_back(*l.D);
      each.y_lo.push_back(l.interval.low.value_or(*l.D));
      each.y_hi.push_back(l.interval.high.value_or(*l.D));
    }
    chart.series.push_back(each);
    if (c.D) chart.horizontal.push_back({fmt::format("combined {}* = {} {}", c.swept, count_text(*c.D), bounds_text(c.interval)), "#d62728", *c.D, ""});
    if (c.states.size() > 1) {
      // The prediction set: each state's interval for the next launch.
      const char* colours[] = {"#ff7f0e", "#2ca02c", "#9467bd", "#8c564b"};
      for (std::size_t k = 0; k < c.states.size() && k < std::size(colours); ++k) {
        const auto& st = c.states[k];
        const std::string who = fmt::format("state {} ({} of {})", st.name, st.seen, st.of);
        if (st.next_launch.low)
          chart.horizontal.push_back({who + ": next launch, low end " + count_text(*st.next_launch.low), colours[k], *st.next_launch.low, "4,3"});
        if (st.next_launch.high)
          chart.horizontal.push_back({who + ": next launch, high end " + count_text(*st.next_launch.high), colours[k], *st.next_launch.high, "4,3"});
      }
    } else {
      if (c.next_launch.low) chart.horizontal.push_back({"next launch, low end " + count_text(*c.next_launch.low), "#ff7f0e", *c.next_launch.low, "4,3"});
      if (c.next_launch.high) chart.horizontal.push_back({"next launch, high end " + count_text(*c.next_launch.high), "#ff7f0e", *c.next_launch.high, "4,3"});
    }
    if (c.book) chart.horizontal.push_back({fmt::format("book {}*_book = {}", c.swept, count_text(*c.book)), kBookColor, *c.book, "6,3,2,3"});
    if (!each.x.empty()) body += svg::render(chart);
    if (c.uncrossed > 0) {
      for (const auto& line : combine_answer(c).lines)
        if (line.rfind("no crossover in ", 0) == 0) body += "<p>" + escape(line) + "</p>\n";
    }
    body += table({"launch", "record", c.swept + "*", "95% within the launch", "stability", "state"}, rows);
    // The states side by side: the prediction set.
    std::vector<std::vector<std::string>> states;
    for (const auto& st : c.states)
      states.push_back({st.name + (st.tentative ? " (tentative)" : ""), fmt::format("{} of {}", st.seen, st.of),
                        fmt::format("{:.0f}%", 100 * st.share), state_levels_text(st.levels),
                        st.value                   ? count_text(*st.value) + " " + bounds_text(st.interval)
                        : st.predicts_no_crossover ? "none (" + st.no_crossover + ")"
                                                   : "-",
                        st.predicts_no_crossover ? "no crossover" : bounds_text(st.next_launch)});
    if (!states.empty())
      body += table({"state", "launches", "share", "its ceilings' levels", c.swept + "* (95% across its launches)",
                     "next launch (95%)"},
                    states);
  }
  // Sweeps not combined, side by side.
  if (b.combines.empty() && b.sweeps.size() > 1) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& s : b.sweeps)
      rows.push_back({s.path, s.D ? count_text(*s.D) : s.kind, bounds_text(s.D_interval),
                      s.book ? count_text(*s.book) : "-", s.stability.empty() ? "-" : s.stability,
                      s.roof.empty() ? "-" : s.roof});
    body += table({"record", "D*", "95% within the launch", "D*_book", "stability", "roof"}, rows);
  }
  return section("launches", "Launches side by side", body);
}

std::string ceilings_section(const bringup::BringUp& b) {
  std::vector<std::vector<std::string>> rows;
  const auto add = [&](const std::string& where, const std::string& what, double v, const std::string& unit,
                       const std::optional<double>& limit, const std::string& limit_name) {
    rows.push_back({where, what, rate_text(v, unit), limit ? rate_text(*limit, unit) : "-",
                    limit_name.empty() ? "-" : limit_name,
                    limit && *limit > 0 ? fmt::format("{:.2f}", v / *limit) : "-"});
  };
  for (const auto& s : b.sweeps) {
    if (s.compute) add(s.path, s.compute->what, s.compute->measured, "FLOP/s", s.compute->limit, s.compute->limit_name);
    if (s.W_book && *s.W_book > 0) add(s.path, s.link_source.empty() ? "link W" : "link W (" + s.link_source + ")", *s.W_book, "B/s", s.W_line_rate,
                                  s.W_line_rate ? "line rate" : "");
    if (s.M && *s.M > 0) add(s.path, "memory M (triad)", *s.M, "B/s", std::nullopt, "");
  }
  for (const auto& p : b.peaks) {
    for (const auto& g : p.gemms) add(p.path, "C " + g.datatype + " per rank (" + g.host + ")", g.flops_per_s, "FLOP/s", g.limit, g.limit_name);
    if (p.triad_bytes_per_s) add(p.path, "memory M (triad) per rank", *p.triad_bytes_per_s, "B/s", std::nullopt, "");
  }
  std::string body = table({"record", "ceiling", "measured", "hardware's limit", "limit", "share"}, rows);
  for (const auto& p : b.peaks)
    if (!p.kernel_warning.empty()) body += "<p class=\"warning\">" + escape(p.kernel_warning) + "</p>\n";
  return section("ceilings", "Ceilings against the hardware's limits", body);
}

std::string link_section(const bringup::BringUp& b) {
  std::string body;
  for (const auto& l : b.links) {
    int n = l.ranks;
    for (const auto& p : l.pairs) n = std::max({n, p.src + 1, p.dst + 1});
    double median = 0;
    const auto slow = slow_pairs(l, median);
    std::map<std::pair<int, int>, const bringup::LinkPair*> at;
    for (const auto& p : l.pairs) at[{p.src, p.dst}] = &p;
    body += fmt::format("<p class=\"file\">{}: W per pair (GB/s, one way), coloured by its share of the median W "
                        "({})</p>\n",
                        escape(l.path), rate_text(median, "B/s"));
    body += "<table class=\"heat\">\n<tr><th>from \\ to</th>";
    for (int d = 0; d < n; ++d) body += fmt::format("<th>{}</th>", d);
    body += "</tr>\n";
    for (int s = 0; s < n; ++s) {
      body += fmt::format("<tr><th>{}</th>", s);
      for (int d = 0; d < n; ++d) {
        auto it = at.find({s, d});
        if (it == at.end()) it = at.find({d, s});  // ping-pong measures a pair once
        if (s == d || it == at.end() || !it->second->W) {
          body += "<td class=\"none\">-</td>";
          continue;
        }
        const double W = *it->second->W;
        body += fmt::format("<td style=\"background:{}\" title=\"{} -> {}: {}\">{:.2f}</td>",
                            svg::heat_color(median > 0 ? W / median : 1), s, d, rate_text(W, "B/s"), W / 1e9);
      }
      body += "</tr>\n";
    }
    body += "</table>\n";
    if (slow.empty()) {
      body += fmt::format("<p class=\"slow\">slow pairs: none below {:.1f}x the median W</p>\n", kSlowPairShare);
    } else {
      body += fmt::format("<p class=\"slow\">slow pairs (below {:.1f}x the median W):</p>\n<ul>\n", kSlowPairShare);
      for (const auto& p : slow)
        body += fmt::format("<li>{} -> {} ({} -> {}): {} = {:.2f}x the median</li>\n", p.src, p.dst,
                            escape(p.src_host), escape(p.dst_host), rate_text(*p.W, "B/s"), *p.W / median);
      body += "</ul>\n";
    }
  }
  return section("link", "The link matrix", body);
}

std::string coll_section(const bringup::BringUp& b) {
  std::string body;
  for (const auto& c : b.colls) {
    std::vector<std::string> impls;
    for (const auto& r : c.rows)
      if (std::find(impls.begin(), impls.end(), r.impl) == impls.end()) impls.push_back(r.impl);
    svg::Chart bw, time;
    bw.title = fmt::format("{} busbw against the cost model, {} ranks ({})", c.collective, c.ranks, c.datatype);
    time.title = fmt::format("{} time against the cost model, {} ranks ({})", c.collective, c.ranks, c.datatype);
    bw.x = time.x = {"message size (bytes)", true, 0, 0};
    bw.y = {"busbw (GB/s, as nccl-tests)", true, 0, 0};
    time.y = {"time (us, median; max over ranks)", true, 0, 0};
    for (std::size_t i = 0; i < impls.size(); ++i) {
      const std::string color = kImplColors[i % std::size(kImplColors)];
      svg::Series mb{impls[i] + " measured", color}, mt{impls[i] + " measured", color};
      svg::Series model_b{impls[i] + " model", color}, model_t{impls[i] + " model", color};
      model_b.dash = model_t.dash = "5,3";
      model_b.markers = model_t.markers = false;
      for (const auto& r : c.rows) {
        if (r.impl != impls[i] || r.in_place) continue;
        const double x = static_cast<double>(std::max<std::uint64_t>(r.bytes, 1));
        mb.x.push_back(x);
        mb.y.push_back(r.busbw_GBps);
        mt.x.push_back(x);
        mt.y.push_back(r.time_s * 1e6);
        if (r.model_busbw_GBps && *r.model_busbw_GBps > 0) {
          model_b.x.push_back(x);
          model_b.y.push_back(*r.model_busbw_GBps);
        }
        if (r.model_time_s && *r.model_time_s > 0) {
          model_t.x.push_back(x);
          model_t.y.push_back(*r.model_time_s * 1e6);
        }
      }
      bw.series.push_back(mb);
      time.series.push_back(mt);
      if (!model_b.x.empty()) bw.series.push_back(model_b);
      if (!model_t.x.empty()) time.series.push_back(model_t);
    }
    body += fmt::format("<p class=\"file\">{}{}</p>\n", escape(c.path),
                        c.model_source.empty() ? "" : escape(", model: " + c.model_source));
    body += svg::render(time) + svg::render(bw);
  }
  return section("coll", "Collectives: time and busbw against the model", body);
}

std::string environment_section(const bringup::Environment& e) {
  std::vector<std::vector<std::string>> rows;
  const auto add = [&](const char* k, const std::string& v) {
    if (!v.empty()) rows.push_back({k, v});
  };
  add("host", e.host);
  add("CPU", e.cpu);
  add("BLAS", e.blas);
  add("MPI", e.mpi);
  add("GPU", e.gpu);
  std::string rates;
  for (const auto& r : e.line_rates) rates += (rates.empty() ? "" : "; ") + r;
  add("line rates", rates);
  add("date", e.date);
  add("load average at the start", e.load_average);
  return section("environment", "Environment", table({"", ""}, rows));
}

std::string skipped_section(const bringup::BringUp& b) {
  std::string body = "<p>Fields the records lack or that could not be read; the rest of the page is drawn without "
                     "them.</p>\n<ul>\n";
  for (const auto& s : b.skipped) body += "<li>" + escape(s) + "</li>\n";
  return section("skipped", "Left out", body + "</ul>\n");
}

bool has_sweep_points(const bringup::BringUp& b) {
  return std::any_of(b.sweeps.begin(), b.sweeps.end(), [](const auto& s) { return !s.points.empty(); });
}

bool has_ceilings(const bringup::BringUp& b) {
  for (const auto& s : b.sweeps)
    if (s.compute || (s.W_book && *s.W_book > 0)) return true;
  for (const auto& p : b.peaks)
    if (!p.gemms.empty()) return true;
  return false;
}

constexpr const char* kStyle = R"(body{font-family:sans-serif;margin:1.5em;max-width:1100px;color:#222}
h1{font-size:1.4em}h2{font-size:1.15em;border-bottom:1px solid #ccc;padding-bottom:2px;margin-top:1.6em}
pre.answer{background:#f4f6f8;border-left:4px solid #1f77b4;padding:.6em .8em;font-size:13px;white-space:pre-wrap}
.answer-title{font-weight:bold;margin-bottom:0}
table{border-collapse:collapse;font-size:12px;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}
table.heat td{text-align:center;min-width:3.5em}td.none{color:#aaa}
.file{color:#555;font-size:12px;margin-bottom:0}.caption{font-size:12px;margin-top:0}.warning{color:#b00}
svg{display:block;margin:.4em 0}
)";

}  // namespace

std::vector<std::string> report_sections(const bringup::BringUp& b) {
  std::vector<std::string> s;
  if (!bringup_answer(b).title.empty()) s.push_back("answer");
  if (has_sweep_points(b)) s.push_back("sweep");
  if (!b.combines.empty() || b.sweeps.size() > 1) s.push_back("launches");
  if (has_ceilings(b)) s.push_back("ceilings");
  if (std::any_of(b.links.begin(), b.links.end(), [](const auto& l) { return !l.pairs.empty(); })) s.push_back("link");
  if (std::any_of(b.colls.begin(), b.colls.end(), [](const auto& c) { return !c.rows.empty(); })) s.push_back("coll");
  if (b.environment) s.push_back("environment");
  if (!b.skipped.empty()) s.push_back("skipped");
  return s;
}

std::string html_report(const bringup::BringUp& b, const std::vector<std::string>& files) {
  std::string o = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                  "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
                  "img-src data:\">\n<title>shardroof report</title>\n<style>";
  o += kStyle;
  o += "</style>\n</head>\n<body>\n<h1>shardroof report</h1>\n<p class=\"file\">from ";
  for (std::size_t i = 0; i < files.size(); ++i) o += (i ? ", " : "") + escape(files[i]);
  o += "</p>\n";
  for (const auto& id : report_sections(b)) {
    if (id == "answer") o += section("answer", "The answer", answer_html(bringup_answer(b)));
    else if (id == "sweep") o += sweep_section(b);
    else if (id == "launches") o += launches_section(b);
    else if (id == "ceilings") o += ceilings_section(b);
    else if (id == "link") o += link_section(b);
    else if (id == "coll") o += coll_section(b);
    else if (id == "environment") o += environment_section(*b.environment);
    else if (id == "skipped") o += skipped_section(b);
  }
  return o + "</body>\n</html>\n";
}

}  // namespace shardroof

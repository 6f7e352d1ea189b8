#include "report/link_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "link/patterns.h"
#include "report/hardware_report.h"
#include "report/time_stats_json.h"
#include "timing/stats.h"
#include "util/units.h"

namespace shardroof {

const char* const kLinkFitNote =
    "one-way time = round trip / 2; fit t(n) = alpha + n/W on the median one-way times, each parameter where "
    "it dominates: W = 1/slope of the least-squares line through the bandwidth regime (the sizes whose time per "
    "byte is within a factor 1/0.8 of the largest size's, either way: n/W >= 80% of t), alpha = median of "
    "t - n/W over the latency regime (the sizes within 1/0.8 of the smallest time), alpha >= 0";

std::optional<double> LinkPairResult::loaded_over_idle() const {
  if (!idle || !idle->valid || !fit.valid || !(idle->W_bytes_per_s > 0)) return std::nullopt;
  return fit.W_bytes_per_s / idle->W_bytes_per_s;
}

link::PairFit to_pair_fit(const LinkPairResult& r) {
  return {r.measured.pair.src, r.measured.pair.dst, r.same_node, r.fit.valid, r.fit.alpha_s, r.fit.W_bytes_per_s};
}

namespace {

nlohmann::json number_or_null(bool valid, double v) { return valid ? nlohmann::json(v) : nlohmann::json(nullptr); }

nlohmann::json spread_json(const link::Spread& s) {
  return {{"median", s.median}, {"min", s.min}, {"max", s.max}};
}

nlohmann::json class_json(const link::ClassSummary& c) {
  const bool any = c.fitted > 0;
  return {{"pairs", c.pairs},
          {"fitted", c.fitted},
          {"alpha_s", any ? spread_json(c.alpha_s) : nlohmann::json(nullptr)},
          {"W_bytes_per_s", any ? spread_json(c.W_bytes_per_s) : nlohmann::json(nullptr)}};
}

std::string class_line(const char* name, const link::ClassSummary& c) {
  if (c.pairs == 0) return fmt::format("# {:<10}: no pairs\n", name);
  if (c.fitted == 0) return fmt::format("# {:<10}: {} pairs, none with a valid fit\n", name, c.pairs);
  return fmt::format(
      "# {:<10}: {} pairs ({} fitted)  alpha {:.2f} us ({:.2f} .. {:.2f})  W {:.3f} GB/s ({:.3f} .. {:.3f})"
      "  [median (min .. max) over pairs]\n",
      name, c.pairs, c.fitted, c.alpha_s.median * 1e6, c.alpha_s.min * 1e6, c.alpha_s.max * 1e6,
      c.W_bytes_per_s.median / 1e9, c.W_bytes_per_s.min / 1e9, c.W_bytes_per_s.max / 1e9);
}

}  // namespace

nlohmann::json to_json(const LinkPairResult& r) {
  const bool ok = r.fit.valid;
  nlohmann::json times = nlohmann::json::array();
  for (const auto& t : r.measured.times) {
    times.push_back({{"bytes", t.bytes},
                     {"one_way_s", time_stats_json(t.one_way)},
                     {"bandwidth_GBps", t.one_way.median > 0 ? t.bytes / t.one_way.median / 1e9 : 0.0}});
  }
  nlohmann::json j = {{"src", r.measured.pair.src},
          {"dst", r.measured.pair.dst},
          {"src_host", r.src_host},
          {"dst_host", r.dst_host},
          {"same_node", r.same_node},
          {"alpha_s", number_or_null(ok, r.fit.alpha_s)},
          {"beta_s_per_byte", number_or_null(ok, r.fit.beta_s_per_byte)},
          {"W_bytes_per_s", number_or_null(ok, r.fit.W_bytes_per_s)},
          {"alpha_us", number_or_null(ok, r.fit.alpha_s * 1e6)},
          {"W_GBps", number_or_null(ok, r.fit.W_bytes_per_s / 1e9)},
          {"alpha_clamped", r.fit.alpha_clamped},
          {"fit_max_rel_residual", number_or_null(ok, r.fit.max_rel_residual)},
          {"fit_worst_size_bytes", number_or_null(ok, static_cast<double>(r.fit.worst_size))},
          {"fit_trusted", r.fit.trusted()},
          {"bandwidth_regime_bytes", r.fit.bandwidth_sizes},
          {"latency_regime_bytes", r.fit.latency_sizes},
          {"wrong", r.measured.wrong < 0 ? nlohmann::json(nullptr) : nlohmann::json(r.measured.wrong)},
          {"times", times}};
  if (r.measured.shift > 0) j["shift"] = r.measured.shift;
  j["line_rate"] = line_rate_json(r.line_rate, ok ? r.fit.W_bytes_per_s : 0.0);
  if (r.idle) {
    const bool idle_ok = r.idle->valid;
    const auto ratio = r.loaded_over_idle();
    j["idle_W_bytes_per_s"] = number_or_null(idle_ok, r.idle->W_bytes_per_s);
    j["idle_alpha_s"] = number_or_null(idle_ok, r.idle->alpha_s);
    j["W_loaded_over_idle"] = number_or_null(ratio.has_value(), ratio.value_or(0));
  }
  return j;
}

nlohmann::json to_json(const link::LinkSummary& s) {
  return {{"same_node", class_json(s.same_node)}, {"cross_node", class_json(s.cross_node)}};
}

LoadRatioSummary summarize_load(const std::vector<LinkPairResult>& all) {
  LoadRatioSummary s;
  std::vector<double> ratios;
  double lowest = 0;
  for (const auto& r : all) {
    const auto ratio = r.loaded_over_idle();
    if (!ratio) continue;
    if (ratios.empty() || *ratio < lowest) {
      lowest = *ratio;
      s.lowest = r.measured.pair;
    }
    ratios.push_back(*ratio);
  }
  s.pairs = static_cast<int>(ratios.size());
  s.ratio = link::spread_of(std::move(ratios));
  return s;
}

nlohmann::json to_json(const LoadRatioSummary& s) {
  if (s.pairs == 0) return {{"pairs", 0}, {"W_loaded_over_idle", nullptr}, {"lowest", nullptr}};
  return {{"pairs", s.pairs},
          {"W_loaded_over_idle", spread_json(s.ratio)},
          {"lowest", {{"src", s.lowest.src}, {"dst", s.lowest.dst}, {"W_loaded_over_idle", s.ratio.min}}}};
}

nlohmann::json step_json(const link::RingProbeResult& step, int shift) {
  nlohmann::json times = nlohmann::json::array();
  for (std::size_t i = 0; i < step.bytes.size() && i < step.step_time.size(); ++i) {
    const auto& t = step.step_time[i];
    times.push_back({{"bytes", step.bytes[i]}, {"step_s", time_stats_json(t)}});
  }
  const bool ok = step.fit.valid;
  return {{"shift", shift},
          {"W_bytes_per_s", number_or_null(ok, step.fit.W_bytes_per_s)},
          {"alpha_s", number_or_null(ok, step.fit.alpha_s)},
          {"wrong", step.wrong < 0 ? nlohmann::json(nullptr) : nlohmann::json(step.wrong)},
          {"times", times}};
}

void LinkConsoleReporter::header(const link::LinkPlan& plan, const link::Topology& topo, std::size_t pairs,
                                 std::size_t total_pairs) {
  pattern_ = plan.pattern;
  lo_ = plan.sizes.empty() ? 0 : plan.sizes.front();
  hi_ = plan.sizes.empty() ? 0 : plan.sizes.back();
  const std::string what = link::all_ranks_at_once(pattern_)
                               ? fmt::format("{} transfers", pairs)
                               : fmt::format("{} of {} pairs", pairs, total_pairs);
  out_ << fmt::format("# shardroof link: pattern {} on {} ranks ({} node{}), {}\n", link::to_string(pattern_),
                      nranks_, topo.nodes, topo.nodes == 1 ? "" : "s", what);
  out_ << fmt::format("# pattern {}: {}\n", link::to_string(pattern_), link::describe(pattern_));
  out_ << fmt::format("# sizes {} .. {} ({} sizes), warmup {} iters {} per size\n", format_bytes(lo_),
                      format_bytes(hi_), plan.sizes.size(), plan.timing.warmup, plan.timing.iters);
  out_ << "# " << kAggregationNote
       << (link::all_ranks_at_once(pattern_) ? " (a transfer's ranks: its sender and its receiver)" : "") << "\n# "
       << kLinkFitNote << "\n#\n";
  out_ << "# alpha, W: the fit; t(size): median one-way time; bw(max): largest size / its time;\n"
          "# fit_res: largest relative deviation of alpha + n/W from a measured time (! above 25%: the\n"
          "# model does not describe this pair; W is still the large messages' bandwidth)\n";
  if (link::is_loaded(pattern_))
    out_ << fmt::format("# idle W: the pair's ping-pong W, measured first in this run; load/idle: W / idle W\n");
  out_.flush();
}

void LinkConsoleReporter::idle_header(std::size_t pairs) {
  out_ << fmt::format("#\n# idle reference: pattern pingpong, {} pair{}, one at a time\n", pairs,
                      pairs == 1 ? "" : "s");
  columns(false);
}

void LinkConsoleReporter::columns(bool loaded) {
  if (loaded)
    out_ << fmt::format("#\n# pattern {}{}\n", link::to_string(pattern_),
                        link::all_ranks_at_once(pattern_) ? " (src sends to dst)" : "");
  else
    out_ << "#\n";
  const std::string extra_name = loaded ? fmt::format(" {:>10} {:>9}", "idle W", "load/idle") : "";
  const std::string extra_unit = loaded ? fmt::format(" {:>10} {:>9}", "(GB/s)", "") : "";
  out_ << fmt::format("# {:>5} {:>5} {:>6} {:>10} {:>10} {:>12} {:>12} {:>10} {:>8} {:>6}{} {:>7}\n", "src", "dst",
                      "node", "alpha", "W", fmt::format("t({})", format_bytes(lo_)),
                      fmt::format("t({})", format_bytes(hi_)), "bw(max)", "fit_res", "#wrong", extra_name, "W/line");
  out_ << fmt::format("# {:>5} {:>5} {:>6} {:>10} {:>10} {:>12} {:>12} {:>10} {:>8} {:>6}{} {:>7}\n", "", "", "", "(us)",
                      "(GB/s)", "(us)", "(us)", "(GB/s)", "", "", extra_unit, "");
  out_.flush();
}

void LinkConsoleReporter::row(const LinkPairResult& r) {
  const auto& t = r.measured.times;
  const double t_lo = t.empty() ? 0 : t.front().one_way.median;
  const double t_hi = t.empty() ? 0 : t.back().one_way.median;
  const std::string alpha = r.fit.valid ? fmt::format("{:.2f}", r.fit.alpha_s * 1e6) : "n/a";
  const std::string w = r.fit.valid ? fmt::format("{:.3f}", r.fit.W_bytes_per_s / 1e9) : "n/a";
  const std::string res =
      r.fit.valid ? fmt::format("{:.0f}%{}", r.fit.max_rel_residual * 100, r.fit.trusted() ? "" : "!") : "n/a";
  const double bw_hi = t_hi > 0 ? static_cast<double>(t.back().bytes) / t_hi / 1e9 : 0.0;
  std::string extra;
  if (r.idle) {
    const auto ratio = r.loaded_over_idle();
    extra = fmt::format(" {:>10} {:>9}", r.idle->valid ? fmt::format("{:.3f}", r.idle->W_bytes_per_s / 1e9) : "n/a",
                        ratio ? fmt::format("{:.2f}", *ratio) : "n/a");
  }
  const std::string line = r.line_rate && r.fit.valid
                               ? fmt::format("{:.2f}", r.fit.W_bytes_per_s / (r.line_rate->bits_per_s / 8))
                               : "-";
  out_ << fmt::format("  {:>5} {:>5} {:>6} {:>10} {:>10} {:>12.2f} {:>12.2f} {:>10.3f} {:>8} {:>6}{} {:>7}\n",
                      r.measured.pair.src, r.measured.pair.dst, r.same_node ? "same" : "cross", alpha, w, t_lo * 1e6,
                      t_hi * 1e6, bw_hi, res,
                      r.measured.wrong < 0 ? std::string("N/A") : std::to_string(r.measured.wrong), extra, line);
  out_.flush();
}

namespace {

// A rank-by-rank matrix of `value` per pair ('.' = not measured); a
// pairwise pattern's value stands on both sides of the diagonal.
void print_matrix(std::ostream& out, int nranks, const std::vector<LinkPairResult>& all, bool directed,
                  const std::string& title, const std::function<std::string(const LinkPairResult&)>& value) {
  std::vector<std::vector<std::string>> cell(nranks, std::vector<std::string>(nranks, "."));
  for (int i = 0; i < nranks; ++i) cell[i][i] = std::string(1, '-');  // not = "-": GCC 12 warns falsely (-Wrestrict)
  for (const auto& r : all) {
    const std::string v = value(r);
    cell[r.measured.pair.src][r.measured.pair.dst] = v;
    if (!directed) cell[r.measured.pair.dst][r.measured.pair.src] = v;
  }
  out << "#\n# " << title << "\n# " << fmt::format("{:>6}", "");
  for (int j = 0; j < nranks; ++j) out << fmt::format(" {:>8}", j);
  out << "\n";
  for (int i = 0; i < nranks; ++i) {
    out << fmt::format("# {:>6}", i);
    for (int j = 0; j < nranks; ++j) out << fmt::format(" {:>8}", cell[i][j]);
    out << "\n";
  }
}

}  // namespace

void LinkConsoleReporter::footer(const std::vector<LinkPairResult>& all, const link::LinkSummary& summary,
                                 const std::optional<link::ModelLink>& model) {
  const bool loaded = link::is_loaded(pattern_);
  const bool directed = link::all_ranks_at_once(pattern_);
  const std::string name(link::to_string(pattern_));
  out_ << fmt::format("#\n# pattern {}, W by class [median (min .. max) over pairs]:\n", name)
       << class_line("same node", summary.same_node) << class_line("cross node", summary.cross_node);
  const LoadRatioSummary load = summarize_load(all);
  if (loaded) {
    out_ << (load.pairs == 0
                 ? fmt::format("# load/idle : no pair has both fits\n")
                 : fmt::format("# load/idle : W under pattern {} / idle ping-pong W: {:.2f} ({:.2f} .. {:.2f}) over {}"
                               " pairs; lowest {} -> {}\n",
                               name, load.ratio.median, load.ratio.min, load.ratio.max, load.pairs, load.lowest.src,
                               load.lowest.dst));
  }
  // A small W matrix (GB/s) shows at a glance which links are slow.
  if (nranks_ <= 16 && !all.empty()) {
    const std::string orient = directed ? ", row = sender, column = receiver" : "";
    print_matrix(out_, nranks_, all, directed,
                 fmt::format("W (GB/s) by rank pair, pattern {}{} ('.' = not measured)", name, orient),
                 [](const LinkPairResult& r) {
                   return r.fit.valid ? fmt::format("{:.2f}", r.fit.W_bytes_per_s / 1e9) : std::string("n/a");
                 });
    if (loaded)
      print_matrix(out_, nranks_, all, directed,
                   fmt::format("W under pattern {} / idle ping-pong W by rank pair{}", name, orient),
                   [](const LinkPairResult& r) {
                     const auto ratio = r.loaded_over_idle();
                     return ratio ? fmt::format("{:.2f}", *ratio) : std::string("n/a");
                   });
  }
  // The regimes each parameter came from, for the first pair (every pair's are in the JSON).
  if (!all.empty() && all.front().fit.valid) {
    const auto& f = all.front().fit;
    const auto range = [](const std::vector<std::uint64_t>& v) {
      if (v.empty()) return std::string("none");
      return v.size() == 1 ? format_bytes(v.front())
                           : fmt::format("{} .. {}", format_bytes(v.front()), format_bytes(v.back()));
    };
    out_ << fmt::format("#\n# pair {}-{}: W from the bandwidth regime ({}), alpha from the latency regime ({})\n",
                        all.front().measured.pair.src, all.front().measured.pair.dst, range(f.bandwidth_sizes),
                        range(f.latency_sizes));
  }
  int untrusted = 0;
  double worst = 0;
  for (const auto& r : all)
    if (r.fit.valid && !r.fit.trusted()) {
      ++untrusted;
      worst = std::max(worst, r.fit.max_rel_residual);
    }
  if (untrusted > 0)
    out_ << fmt::format(
        "#\n# WARNING: on {} of {} pairs t(n) = alpha + n/W misses a measured time by up to {:.0f}% (more than "
        "{:.0f}%):\n# the link is not one latency plus one bandwidth (a shaper's burst, a protocol switch).\n"
        "# W below is the large messages' bandwidth and alpha the small messages' latency; times\n"
        "# between them are not alpha + n/W (see each pair's times in the JSON).\n",
        untrusted, all.size(), 100 * worst, 100 * link::kTrustedResidual);
  if (model) {
    out_ << fmt::format("#\n# For the model (`sweep --link-from`): W = {:.4g} B/s ({:.3f} GB/s), alpha = {:.3g} s"
                        " (medians over {} {} pairs, pattern {}){}\n",
                        model->W_bytes_per_s, model->W_bytes_per_s / 1e9, model->alpha_s, model->pairs,
                        model->source == "cross_node" ? "cross-node" : "same-node", name,
                        untrusted > 0 ? "; see the WARNING above" : "");
  } else {
    out_ << "#\n# No pair has a valid fit (need at least two sizes whose times grow with size)\n";
  }
  long long wrong = 0;
  bool checked = false;
  for (const auto& r : all) {
    if (r.measured.wrong >= 0) {
      checked = true;
      wrong += r.measured.wrong;
    }
  }
  const char* what = pattern_ == link::Pattern::PingPong ? "Echoed bytes" : "Received bytes";
  out_ << (checked ? fmt::format("# {} wrong: {} {}\n", what, wrong, wrong == 0 ? "OK" : "FAILED")
                   : fmt::format("# {}: not checked (--check 0)\n", what));
  out_.flush();
}

}  // namespace shardroof

#include "report/coll_report.h"

#include <fmt/format.h>

#include <map>

#include "collectives/traits.h"
#include "report/stability_report.h"
#include "report/straggler_report.h"
#include "timing/stats.h"
#include "timing/stragglers.h"
#include "util/units.h"

namespace shardroof {

namespace {

// Times in microseconds: the statistics of the per-iteration maxima over
// ranks, and each rank's own per-iteration times.
nlohmann::json time_us_json(const TimeStats& t) {
  const auto in_us = [](const std::vector<std::vector<double>>& by_rank) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& rank : by_rank) {
      nlohmann::json times = nlohmann::json::array();
      for (const double v : rank) times.push_back(v * 1e6);
      out.push_back(std::move(times));
    }
    return out;
  };
  return {{"median", t.median * 1e6}, {"p50", t.median * 1e6},       {"p95", t.p95 * 1e6},
          {"p99", t.p99 * 1e6},       {"iqm", t.iqm * 1e6},          {"min", t.min * 1e6},
          {"max", t.max * 1e6},       {"per_rank", in_us(t.per_rank)}, {"per_rank_skew", in_us(t.per_rank_skew)}};
}

}  // namespace

nlohmann::json to_json(const CollRecord& r, const std::vector<std::string>& hosts) {
  nlohmann::json j = {{"collective", coll::to_string(r.kind)},
          {"impl", r.impl},
          {"algorithm", r.algorithm},
          {"datatype", coll::to_string(r.type)},
          {"op", coll::to_string(r.op)},
          {"in_place", r.in_place},
          {"bytes", r.bytes},
          {"count", r.count},
          {"time_us", time_us_json(r.time)},
          {"algbw_GBps", r.algbw_GBps},
          {"busbw_GBps", r.busbw_GBps},
          {"wrong", r.wrong < 0 ? nlohmann::json(nullptr) : nlohmann::json(r.wrong)}};
  if (!hosts.empty()) {
    j["ranks"] = rank_summaries_json(r.ranks, hosts, kMicroseconds);
    j["straggler"] = straggler_json(r.straggler, hosts, kMicroseconds);
  }
  return j;
}

void CollConsoleReporter::header(const CollPlan& plan, const CollHeader& header) {
  out_ << fmt::format("# shardroof coll: {} on {} ranks, {}\n", coll::to_string(plan.kind), nranks_, header.setup_text);
  out_ << fmt::format("# timing {}: warmup {} iters {}{} check {}; {}\n", to_string(plan.timing.mode),
                      plan.timing.warmup, plan.timing.iters,
                      plan.timing.mode == TimingMode::Batched ? fmt::format(" batch {}", plan.timing.batch) : "",
                      plan.check ? 1 : 0, aggregation_note(plan.timing));
  out_ << fmt::format("# segments: {}\n", plan.ring.segment_bytes == 0
                                                ? std::string("auto (equal segments of each block, at most a quarter of the L2 cache)")
                                                : fmt::format("{} bytes", plan.ring.segment_bytes));
  for (const auto& note : header.notes) out_ << "# " << note << "\n";
  out_ << "# " << kStragglerNote << "\n";
  out_ << "# algbw = S/time (GB/s, 1e9 bytes); busbw = algbw * "
       << coll::traits(plan.kind).bus_factor_text << "\n#\n";
  out_ << fmt::format("# {:>10} {:>12} {:>8} {:>6} {:>11}   {:>10} {:>8} {:>8} {:>6}   {:>10} {:>8} {:>8} {:>6}\n",
                      "", "", "", "", "", "out-of-place", "", "", "", "in-place", "", "", "");
  out_ << fmt::format("# {:>10} {:>12} {:>8} {:>6} {:>11}   {:>10} {:>8} {:>8} {:>6}   {:>10} {:>8} {:>8} {:>6}\n",
                      "size", "count", "type", "redop", "impl", "time", "algbw", "busbw", "#wrong",
                      "time", "algbw", "busbw", "#wrong");
  out_ << fmt::format("# {:>10} {:>12} {:>8} {:>6} {:>11}   {:>10} {:>8} {:>8} {:>6}   {:>10} {:>8} {:>8} {:>6}\n",
                      "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)",
                      "(GB/s)", "");
  out_.flush();
}

namespace {
std::string wrong_text(long long w) { return w < 0 ? "N/A" : std::to_string(w); }
// The impl, and for `auto` what it chose at this size ("auto:ring").
std::string impl_text(const CollRecord& r) {
  if (r.algorithm.rfind(r.impl + ":", 0) == 0) return r.algorithm.substr(0, r.algorithm.find('/'));
  return r.impl;
}
}  // namespace

void CollConsoleReporter::row(const CollRecord& o, const CollRecord& i) {
  const std::string redop = coll::traits(o.kind).reduces ? std::string(coll::to_string(o.op)) : "none";
  out_ << fmt::format("  {:>10} {:>12} {:>8} {:>6} {:>11}   {:>10.2f} {:>8.3f} {:>8.3f} {:>6}   {:>10.2f} {:>8.3f} {:>8.3f} {:>6}\n",
                      o.bytes, o.count, coll::to_string(o.type), redop, impl_text(o), o.time.median * 1e6,
                      o.algbw_GBps, o.busbw_GBps, wrong_text(o.wrong), i.time.median * 1e6, i.algbw_GBps,
                      i.busbw_GBps, wrong_text(i.wrong));
  out_.flush();
}

void CollConsoleReporter::stragglers(const std::vector<CollRecord>& size_records) {
  const CollRecord* where = nullptr;
  for (const auto& r : size_records)
    if (r.straggler && (!where || r.straggler->slower > where->straggler->slower)) where = &r;
  if (!where) return;
  const std::string what = fmt::format("{} {}", impl_text(*where), where->in_place ? "in place" : "out of place");
  out_ << fmt::format("# straggler at {} B: {}\n", where->bytes,
                      straggler_text(*where->straggler, hosts_, kMicroseconds, what));
  out_.flush();
}

void CollConsoleReporter::ranking(const SizeRanking& ranking) {
  std::string text;
  for (const auto& [impl, t] : ranking.times)
    text += fmt::format("{}{} {:.2f}", text.empty() ? "" : " < ", impl, t * 1e6);
  out_ << fmt::format("# tune {} {}: {} (us, out of place + in place)\n", coll::to_string(ranking.kind), ranking.bytes,
                      text);
  out_.flush();
}

void CollConsoleReporter::stability(const std::vector<CollRecord>& all, const CollStability& s, int rounds) {
  using stability::Verdict;
  std::map<Verdict, int> count;
  for (const auto& r : s.rows) ++count[r.verdict];
  const double span = s.run.levels.empty() ? 0 : s.run.levels.back().end_s;
  out_ << fmt::format("# rounds: {} pass{} over the sizes in {:.1f} s, each row aggregating all of them; stability of "
                      "each row over its rounds (a change of more than {:.2f}x matters): {} stable, {} drift, {} "
                      "UNSTABLE, {} too few samples to test\n",
                      rounds, rounds == 1 ? "" : "es", span, s.run.material_ratio, count[Verdict::Stable],
                      count[Verdict::Drift], count[Verdict::Unstable], count[Verdict::TooFew]);
  const ValueText us = [](double v) { return fmt::format("{:.1f} us", v * 1e6); };
  for (std::size_t i = 0; i < all.size() && i < s.rows.size(); ++i)
    if (s.rows[i].verdict == Verdict::Unstable)
      out_ << "# " << stability_text(s.rows[i], fmt::format("{} at {} ({})", all[i].impl, format_bytes(all[i].bytes),
                                                              all[i].in_place ? "in place" : "out of place"),
                                     us, {})
           << "\n";
  const ValueText ratio = [](double v) { return fmt::format("{:.2f}x", v); };
  const LabelText size = [](std::uint64_t b) { return format_bytes(b); };
  out_ << "# the whole run, every row over its own median: "
       << stability_text(s.run, "the machine's speed", ratio, size) << "\n";
}

void CollConsoleReporter::footer(const std::vector<CollRecord>& all) {
  std::map<std::string, std::pair<double, int>> busbw;
  long long wrong = 0;
  bool checked = false;
  for (const auto& r : all) {
    auto& [sum, n] = busbw[r.impl];
    sum += r.busbw_GBps;
    ++n;
    if (r.wrong >= 0) {
      wrong += r.wrong;
      checked = true;
    }
  }
  for (const auto& [impl, acc] : busbw)
    out_ << fmt::format("# Avg bus bandwidth ({}) : {:.4f} GB/s (mean over sizes of the median busbw)\n", impl,
                        acc.second ? acc.first / acc.second : 0.0);
  if (checked) {
    out_ << fmt::format("# Out of bounds values : {} {}\n", wrong, wrong == 0 ? "OK" : "FAILED");
  } else {
    out_ << "# Out of bounds values : not checked (--check 0)\n";
  }
  out_ << "# Times: median over iterations of the max over ranks (--json: p50, p95, p99, interquartile mean, min, max and each rank's times)\n";
  out_.flush();
}

}  // namespace shardroof

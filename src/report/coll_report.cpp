#include "report/coll_report.h"

#include <fmt/format.h>

#include <map>

#include "timing/timing.h"

namespace shardroof {

nlohmann::json to_json(const CollRecord& r) {
  return {{"collective", coll::to_string(r.kind)},
          {"impl", r.impl},
          {"algorithm", r.algorithm},
          {"datatype", coll::to_string(r.type)},
          {"op", coll::to_string(r.op)},
          {"in_place", r.in_place},
          {"bytes", r.bytes},
          {"count", r.count},
          {"time_us", {{"median", r.time.median * 1e6}, {"min", r.time.min * 1e6}, {"max", r.time.max * 1e6}}},
          {"algbw_GBps", r.algbw_GBps},
          {"busbw_GBps", r.busbw_GBps},
          {"wrong", r.wrong < 0 ? nlohmann::json(nullptr) : nlohmann::json(r.wrong)}};
}

void CollConsoleReporter::header(const CollPlan& plan, const std::string& setup_text) {
  out_ << fmt::format("# shardroof coll: {} on {} ranks, {}\n", coll::to_string(plan.kind), nranks_, setup_text);
  out_ << fmt::format("# warmup {} iters {} check {}; {}\n", plan.timing.warmup, plan.timing.iters,
                      plan.check ? 1 : 0, kAggregationNote);
  out_ << "# algbw = S/time (GB/s, 1e9 bytes); busbw = algbw * "
       << (plan.kind == coll::CollectiveKind::AllReduce ? "2(N-1)/N" : "(N-1)/N") << "\n#\n";
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
  const std::string redop = o.kind == coll::CollectiveKind::AllGather ? "none" : std::string(coll::to_string(o.op));
  out_ << fmt::format("  {:>10} {:>12} {:>8} {:>6} {:>11}   {:>10.2f} {:>8.3f} {:>8.3f} {:>6}   {:>10.2f} {:>8.3f} {:>8.3f} {:>6}\n",
                      o.bytes, o.count, coll::to_string(o.type), redop, impl_text(o), o.time.median * 1e6,
                      o.algbw_GBps, o.busbw_GBps, wrong_text(o.wrong), i.time.median * 1e6, i.algbw_GBps,
                      i.busbw_GBps, wrong_text(i.wrong));
  out_.flush();
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
  out_ << "# Times: " << kAggregationNote << "\n";
  out_.flush();
}

}  // namespace shardroof

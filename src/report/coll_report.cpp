#include "report/coll_report.h"

#include <fmt/format.h>

#include <algorithm>
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
  if (r.expected) {
    const CollExpected& e = *r.expected;
    nlohmann::json x = {{"time_s", e.time_s},
                        {"busbw_GBps", e.busbw_GBps},
                        {"efficiency", r.time.median > 0 ? e.time_s / r.time.median : 0.0},
                        {"busbw_over_W", e.W_bytes_per_s > 0 ? r.busbw_GBps * 1e9 / e.W_bytes_per_s : 0.0},
                        {"W_bytes_per_s", e.W_bytes_per_s},
                        {"alpha_s", e.alpha_s},
                        {"g_s_per_byte", e.g_s_per_byte},
                        {"source", e.source},
                        {"formula", e.formula},
                        {"bound_only", e.bound_only}};
    if (!e.native_algorithm.empty()) x["native_algorithm"] = e.native_algorithm;
    if (e.bound_only) x["bound_reason"] = e.bound_reason;
    if (e.published_busbw_GBps > 0)
      x["published"] = {{"busbw_GBps", e.published_busbw_GBps}, {"source", e.published_source}};
    j["expected"] = std::move(x);
  } else {
    j["expected"] = nullptr;
  }
  if (!hosts.empty()) {
    j["ranks"] = rank_summaries_json(r.ranks, hosts, kMicroseconds);
    j["straggler"] = straggler_json(r.straggler, hosts, kMicroseconds);
  }
  return j;
}

nlohmann::json coll_model_json(const CollModelInputs& in) {
  nlohmann::json probe = nlohmann::json::array();
  for (std::size_t i = 0; i < in.probe_bytes.size() && i < in.probe_step_s.size(); ++i)
    probe.push_back({{"bytes", in.probe_bytes[i]}, {"step_s", in.probe_step_s[i]}});
  nlohmann::json j = {{"source", in.source},
                      {"alpha_s", in.link.alpha_s},
                      {"W_bytes_per_s", in.link.W_bytes_per_s},
                      {"g_s_per_byte", in.link.g_s_per_byte},
                      {"copy_s_per_byte", in.link.copy_s_per_byte},
                      {"ring_probe", probe},
                      {"formulas", "model/collective_cost.h; W per row at the row's message size when probed"}};
  if (in.hier_link)
    j["hier"] = {{"alpha_s", in.hier_link->alpha_s},
                 {"W_bytes_per_s", in.hier_link->W_bytes_per_s},
                 {"inter_alpha_s", in.hier_link->inter_alpha_s},
                 {"inter_W_bytes_per_s", in.hier_link->inter_W_bytes_per_s},
                 {"inter_ranks_per_link", in.hier_link->inter_ranks_per_link}};
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
  out_ << "# model = the implementation's cost formula on the run's link (out of place); eff = model time / "
          "measured time; bus/W = busbw / the link W the model took\n";
  const std::string groups = "# {:>10} {:>12} {:>8} {:>6} {:>24}   {:>10} {:>8} {:>8} {:>6}   {:>10} {:>8} {:>8} {:>6}"
                             "   {:>10} {:>5} {:>5} {:>5} {:>5}\n";
  out_ << fmt::format(fmt::runtime(groups), "", "", "", "", "", "out-of-place", "", "", "", "in-place", "", "", "",
                      "model", "", "", "", "");
  out_ << fmt::format(fmt::runtime(groups), "size", "count", "type", "redop", "impl", "time", "algbw", "busbw",
                      "#wrong", "time", "algbw", "busbw", "#wrong", "time", "eff", "eff", "bus/W", "bus/W");
  out_ << fmt::format(fmt::runtime(groups), "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)",
                      "(GB/s)", "(GB/s)", "", "(us)", "(out)", "(in)", "(out)", "(in)");
  out_.flush();
}

namespace {
std::string wrong_text(long long w) { return w < 0 ? "N/A" : std::to_string(w); }
// The impl, for `auto` what it chose at this size ("auto:ring"), and for
// native the library's algorithm where it is known ("native:rabenseifner",
// its first word: the calls it makes are in the JSON's formula) or "native
// (bound)" where only the bound is.
std::string impl_text(const CollRecord& r) {
  std::string text = r.algorithm.rfind(r.impl + ":", 0) == 0 ? r.algorithm.substr(0, r.algorithm.find('/')) : r.impl;
  if (!r.expected) return text;
  if (!r.expected->native_algorithm.empty())
    return text + ":" + r.expected->native_algorithm.substr(0, r.expected->native_algorithm.find(' '));
  if (r.expected->bound_only) return text + " (bound)";
  return text;
}
}  // namespace

void CollConsoleReporter::row(const CollRecord& o, const CollRecord& i) {
  const std::string redop = coll::traits(o.kind).reduces ? std::string(coll::to_string(o.op)) : "none";
  const auto eff = [](const CollRecord& r) {
    return r.expected && r.time.median > 0 ? fmt::format("{:.2f}", r.expected->time_s / r.time.median) : "-";
  };
  const auto bus_w = [](const CollRecord& r) {
    return r.expected && r.expected->W_bytes_per_s > 0
               ? fmt::format("{:.2f}", r.busbw_GBps * 1e9 / r.expected->W_bytes_per_s)
               : "-";
  };
  const std::string model = o.expected ? fmt::format("{:.2f}", o.expected->time_s * 1e6) : "-";
  out_ << fmt::format("  {:>10} {:>12} {:>8} {:>6} {:>24}   {:>10.2f} {:>8.3f} {:>8.3f} {:>6}   {:>10.2f} {:>8.3f} {:>8.3f} {:>6}"
                      "   {:>10} {:>5} {:>5} {:>5} {:>5}\n",
                      o.bytes, o.count, coll::to_string(o.type), redop, impl_text(o), o.time.median * 1e6,
                      o.algbw_GBps, o.busbw_GBps, wrong_text(o.wrong), i.time.median * 1e6, i.algbw_GBps,
                      i.busbw_GBps, wrong_text(i.wrong), model, eff(o), eff(i), bus_w(o), bus_w(i));
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
  // The model against the measurement at the sizes where bandwidth
  // dominates, and what was published for this hardware.
  std::map<std::string, std::pair<double, int>> eff;
  const CollExpected* published = nullptr;
  for (const auto& r : all) {
    if (!r.expected) continue;
    if (r.expected->published_busbw_GBps > 0) published = &*r.expected;
    if (r.bytes < (std::uint64_t{1} << 20) || !(r.time.median > 0)) continue;
    auto& [sum, n] = eff[r.impl];
    sum += r.expected->time_s / r.time.median;
    ++n;
  }
  for (const auto& [impl, acc] : eff)
    out_ << fmt::format("# Avg efficiency ({}) : {:.2f} (model time / measured time, mean over sizes from 1 MiB)\n",
                        impl, acc.first / acc.second);
  if (published)
    out_ << fmt::format("# Published busbw : {:.1f} GB/s ({})\n", published->published_busbw_GBps,
                        published->published_source);
  out_ << "# Times: median over iterations of the max over ranks (--json: p50, p95, p99, interquartile mean, min, max and each rank's times)\n";
  out_.flush();
}

nlohmann::json coll_settings_json(const CollPlan& plan, const CollSettings& in) {
  std::vector<std::string> names;
  for (const auto k : in.kinds) names.emplace_back(coll::to_string(k));
  nlohmann::json s = {{"rounds", in.rounds},
                      {"min_span_s", in.min_span_s},
                      {"collective", coll::to_string(plan.kind)},
                      {"datatype", coll::to_string(plan.type)},
                      {"op", coll::to_string(plan.op)},
                      {"impl", in.impl},
                      {"backend", in.backend},
                      {"transport", in.transport},
                      {"minbytes", plan.sizes.empty() ? 0 : plan.sizes.front()},
                      {"maxbytes", plan.sizes.empty() ? 0 : plan.sizes.back()},
                      {"stepfactor", in.stepfactor},
                      {"stepbytes", in.stepbytes},
                      {"sizes", plan.sizes},
                      {"iters", plan.timing.iters},
                      {"warmup_iters", plan.timing.warmup},
                      {"timing", to_string(plan.timing.mode)},
                      {"check", plan.check},
                      {"segment_bytes", plan.ring.segment_bytes == 0 ? nlohmann::json("auto")
                                                                     : nlohmann::json(plan.ring.segment_bytes)},
                      {"tuning", in.table_source}};
  if (plan.timing.mode == TimingMode::Batched) s["batch"] = plan.timing.batch;
  if (std::find(in.kinds.begin(), in.kinds.end(), coll::CollectiveKind::Broadcast) != in.kinds.end())
    s["root"] = plan.ring.broadcast.root;
  s["ranks_per_node"] = in.ranks_per_node == 0 ? nlohmann::json("shared memory") : nlohmann::json(in.ranks_per_node);
  // Only with levels above the node, so that two-level records compare as before (gate.cpp).
  if (!in.levels.empty()) s["levels"] = in.levels;
  if (!in.tune_to.empty()) {
    s["tune_to"] = in.tune_to;
    s["collectives"] = names;
  }
  return s;
}

std::vector<std::string> coll_auto_notes(const coll::TuningTable& table, coll::CollectiveKind kind, int ranks,
                                         const std::string& source, const std::vector<std::string>& dropped) {
  std::vector<std::string> notes = dropped;
  const auto rules = table.rules_for(kind, ranks);
  if (rules.empty()) {
    notes.push_back(fmt::format("auto: the tuning table ({}) has no {} rules for {} ranks: auto runs native "
                                "(the library's own), else {}; measure some with --tune-to FILE",
                                source, coll::to_string(kind), ranks,
                                coll::to_string(coll::traits(kind).algorithms.front().algorithm)));
    return notes;
  }
  std::string where;
  if (const coll::TuningOrigin* o = table.origin_for(kind, ranks)) {
    for (const char* key : {"host", "cpu", "mpi_library", "date", "load_average"})
      if (const std::string v = o->get(key); !v.empty()) where += fmt::format("{}{} {}", where.empty() ? "" : ", ", key, v);
  }
  notes.push_back(fmt::format("auto: {} rules of the tuning table ({}){}", rules.size(), source,
                              where.empty() ? "" : ", measured with " + where));
  return notes;
}

std::vector<std::string> coll_header_notes(const CollPlan& plan, std::vector<std::string> auto_notes,
                                           const std::string& hier_over, int prune_sizes,
                                           const std::string& model_source) {
  std::vector<std::string> notes = std::move(auto_notes);
  const auto& impls = plan.impls;
  if (std::find(impls.begin(), impls.end(), coll::Algorithm::Hier) != impls.end()) notes.push_back("hier over " + hier_over);
  if (impls.size() > 1)
    notes.push_back("implementations interleaved iteration by iteration, in an order that changes every "
                    "iteration so that each follows every other equally often");
  if (prune_sizes > 0) notes.push_back(fmt::format("tuning: every implementation at every size; one of ours that lost to the same fastest of ours by more than the noise at {} sizes in a row, its loss growing by more than the noise from each to the next, is not measured at larger ones (native always is)", prune_sizes));
  if (prune_sizes == 0) notes.push_back("model: " + model_source);
  return notes;
}

void add_coll_stability_json(nlohmann::json& doc, const CollStability& s, int rounds_done, int min_rounds,
                             double min_span_s) {
  for (std::size_t i = 0; i < s.rows.size() && i < doc["results"].size(); ++i) {
    doc["results"][i]["stability"] = stability_json(s.rows[i]);
    doc["results"][i]["time_us_ci95"] = {s.intervals[i].low * 1e6, s.intervals[i].high * 1e6};
    // The bootstrap's distribution of the median (us), for `shardroof combine`.
    nlohmann::json reps = nlohmann::json::array();
    for (const double v : s.intervals[i].percentiles) reps.push_back(v * 1e6);
    doc["results"][i]["time_us_replicates"] = reps;
  }
  doc["stability"] = {{"rounds", rounds_done}, {"min_rounds", min_rounds}, {"min_span_s", min_span_s},
                      {"run", stability_json(s.run)},
                      {"times", "seconds since the run's first timed iteration, rank 0's monotonic clock"}};
}

}  // namespace shardroof

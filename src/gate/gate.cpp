#include "gate/gate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string_view>
#include <vector>

#include "util/error.h"
#include "util/units.h"
#include "timing/stats.h"

namespace shardroof::gate {
namespace {

using nlohmann::json;

double number_at(const json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0.0;
}

// The host of `rank`: the environment lists hosts in rank order.
std::string host_of(const json& doc, std::size_t rank) {
  if (!doc.contains("environment") || !doc["environment"].contains("hosts")) return "";
  const json& hosts = doc["environment"]["hosts"];
  return hosts.is_array() && rank < hosts.size() && hosts[rank].is_string() ? hosts[rank].get<std::string>() : "";
}


// One rank's median time (seconds) and where it ran.
struct RankTime {
  int rank = 0;
  std::string host;
  double seconds = 0;
};

// "slowest rank R (host): median <what> T per iteration, the median rank T'":
// both in the unit of the slowest's (a sweep's D spans microseconds to seconds).
std::string slowest_rank_text(const std::vector<RankTime>& ranks, std::string_view what) {
  if (ranks.empty()) return "";
  const auto slowest = std::max_element(ranks.begin(), ranks.end(),
                                        [](const RankTime& a, const RankTime& b) { return a.seconds < b.seconds; });
  std::vector<double> all;
  for (const RankTime& r : ranks) all.push_back(r.seconds);
  const double t = slowest->seconds;
  const auto [scale, unit] = t >= 1 ? std::pair{1.0, "s"} : t >= 1e-3 ? std::pair{1e3, "ms"} : std::pair{1e6, "us"};
  return fmt::format("slowest rank {}{}: median {}{:.4g} {} per iteration, the median rank {:.4g} {}", slowest->rank,
                     slowest->host.empty() ? "" : " (" + slowest->host + ")", what, t * scale, unit,
                     median_of(all) * scale, unit);
}

// Each rank's median finish time (arrival skew + own time, the straggler
// analysis's measure) from a record's per-rank summaries: ranks[r] holds
// `finish_field` ({p50, ...}) in `per_second` units, directly or under
// `measurement` ("t_math_s" for a sweep's point). Inside a collective the
// rank that waits for a late one has the longest own time, so the finish
// time, not the own time, names the rank that held the others up.
std::vector<RankTime> finish_times(const json& doc, const json& record, const std::string& measurement,
                                   const char* finish_field, double per_second) {
  std::vector<RankTime> out;
  if (!record.contains("ranks") || !record["ranks"].is_array()) return out;
  for (std::size_t i = 0; i < record["ranks"].size(); ++i) {
    const json& r = record["ranks"][i];
    const json& m = measurement.empty() ? r : (r.contains(measurement) ? r[measurement] : json());
    if (!m.is_object() || !m.contains(finish_field)) return {};
    const int rank = r.value("rank", static_cast<int>(i));
    out.push_back({rank, r.value("host", host_of(doc, static_cast<std::size_t>(rank))),
                   number_at(m[finish_field], "p50") / per_second});
  }
  return out;
}

// Without per-rank summaries (a record of an older version): each rank's
// median own time from time_us.per_rank ([rank][iteration], microseconds).
std::vector<RankTime> own_times(const json& doc, const json& time_us) {
  std::vector<RankTime> out;
  if (!time_us.contains("per_rank") || !time_us["per_rank"].is_array()) return out;
  int rank = 0;
  for (const json& per_iteration : time_us["per_rank"]) {
    std::vector<double> times;
    for (const json& t : per_iteration)
      if (t.is_number()) times.push_back(t.get<double>() * 1e-6);
    out.push_back({rank, host_of(doc, static_cast<std::size_t>(rank)), median_of(times)});
    ++rank;
  }
  return out;
}

void coll_metrics(const json& doc, std::vector<Metric>& out) {
  for (const json& r : doc.value("results", json::array())) {
    const auto bytes = r.value("bytes", std::uint64_t{0});
    const double busbw = number_at(r, "busbw_GBps") * 1e9;
    if (!(busbw > 0)) continue;  // a 0-byte size moves nothing
    Metric m;
    m.key = fmt::format("{} {} {} {} B ({})", r.value("collective", ""), r.value("impl", ""),
                        r.value("in_place", false) ? "in-place" : "out-of-place", bytes, format_bytes(bytes));
    m.name = "busbw";
    m.unit = "B/s";
    m.value = busbw;
    m.better = Better::Higher;
    m.bytes = bytes;
    if (r.contains("expected") && r["expected"].is_object()) m.model = number_at(r["expected"], "busbw_GBps") * 1e9;
    const auto finishes = finish_times(doc, r, "", "finish_us", 1e6);
    m.where = finishes.empty() ? slowest_rank_text(own_times(doc, r.value("time_us", json::object())), "")
                               : slowest_rank_text(finishes, "finish ");
    out.push_back(std::move(m));
  }
}

void link_metrics(const json& doc, std::vector<Metric>& out) {
  for (const json& p : doc.value("pairs", json::array())) {
    // A pair without a fit has W null: 0 here, so an expectation fails it.
    const double W = number_at(p, "W_bytes_per_s");
    const int src = p.value("src", -1);
    const int dst = p.value("dst", -1);
    Metric m;
    m.key = fmt::format("pair {}-{}", src, dst);
    m.name = "W";
    m.unit = "B/s";
    m.value = W;
    m.better = Better::Higher;
    m.where = fmt::format("ranks {} and {} ({}, {})", src, dst, p.value("src_host", ""), p.value("dst_host", ""));
    if (p.contains("line_rate") && p["line_rate"].is_object()) m.hardware = number_at(p["line_rate"], "bytes_per_s");
    out.push_back(std::move(m));
  }
}

void sweep_metrics(const json& doc, std::vector<Metric>& out) {
  const std::string max_over_ranks =
      fmt::format("time per iteration = max over the {} ranks", doc.value("ranks", 0));
  for (const json& p : doc.value("points", json::array())) {
    const auto D = p.value("D", std::uint64_t{0});
    for (const auto& [field, name] :
         {std::pair{"t_math", "T_math"}, std::pair{"t_comm", "T_comm"}, std::pair{"t_step", "T_step"}}) {
      const std::string stats = std::string(field) + "_s";
      const double t = p.contains(stats) ? number_at(p[stats], "median") : 0.0;
      if (!(t > 0)) continue;  // one rank: no T_comm
      std::string where = slowest_rank_text(finish_times(doc, p, stats, "finish_s", 1.0), "finish ");
      out.push_back({fmt::format("D={}", D), name, "s", t, Better::Lower, 0,
                     where.empty() ? max_over_ranks : std::move(where)});
    }
  }
  if (doc.contains("ceilings") && doc["ceilings"].is_object()) {
    const json& c = doc["ceilings"];
    Metric m{"ceilings", "C", "FLOP/s", number_at(c, "C_flops_per_s"), Better::Higher, 0, max_over_ranks};
    if (c.contains("hardware_peak") && c["hardware_peak"].is_object())
      m.hardware = number_at(c["hardware_peak"], "flops_per_s_per_rank");
    if (m.value > 0) out.push_back(std::move(m));
  }
  if (doc.contains("crossover") && doc["crossover"].is_object()) {
    const double D = number_at(doc["crossover"], "D_empirical");
    if (D > 0) out.push_back({"crossover", "D*", "", D, Better::Neither, 0, "the measured T_math and T_comm cross"});
  }
}

void peak_metrics(const json& doc, std::vector<Metric>& out) {
  std::size_t i = 0;
  for (const json& node : doc.value("nodes", json::array())) {
    const std::string host = node.value("host", "");
    const std::string where = fmt::format("node {} ({}, {} ranks)", i, host, node.value("ranks", 0));
    const auto add = [&](std::string key, std::string name, std::string unit, double v, Better better) {
      if (v > 0)
        out.push_back({fmt::format("node {} {}", i, key), std::move(name), std::move(unit), v, better, 0, where});
    };
    for (const json& g : node.value("gemm", json::array())) {
      const std::string dt = g.value("datatype", "");
      // C: the large GEMM, beside the hardware's own peak where known.
      const std::size_t before = out.size();
      add(fmt::format("{} {}x{}x{}", dt, g.value("m", 0), g.value("n", 0), g.value("k", 0)), "C", "FLOP/s",
          number_at(g, "flops_per_s"), Better::Higher);
      if (out.size() > before && g.contains("hardware") && g["hardware"].is_object())
        out.back().hardware = number_at(g["hardware"], "flops_per_s_per_rank");
      for (const json& t : g.value("thin", json::array()))
        add(fmt::format("{} {}x{}x{}", dt, g.value("m", 0), g.value("n", 0), t.value("k", 0)), "GEMM", "FLOP/s",
            number_at(t, "flops_per_s"), Better::Higher);
    }
    if (node.contains("memory")) {
      add("memory", "copy", "B/s", number_at(node["memory"], "copy_bytes_per_s"), Better::Higher);
      add("memory", "triad", "B/s", number_at(node["memory"], "triad_bytes_per_s"), Better::Higher);
    }
    for (const json& r : node.value("reduction", json::array()))
      add(fmt::format("{} reduction", r.value("datatype", "")), "g", "s/element", number_at(r, "s_per_element"),
          Better::Lower);
    ++i;
  }
}

std::set<std::string> hosts_of(const json& doc) {
  std::set<std::string> out;
  if (doc.contains("environment") && doc["environment"].contains("hosts"))
    for (const json& h : doc["environment"]["hosts"])
      if (h.is_string()) out.insert(h.get<std::string>());
  return out;
}

// A comparison's verdict on one metric: how much worse than `limit`, and
// whether that is within `tolerance`.
Check compare(const Metric& m, double limit, double tolerance) {
  Check c;
  c.kind = Check::Kind::Baseline;
  c.metric = m;
  c.limit = limit;
  const double ratio = m.value / limit;
  switch (m.better) {
    case Better::Higher:
      c.worse_by = std::max(0.0, 1 - ratio);
      break;
    case Better::Lower:
      c.worse_by = std::max(0.0, ratio - 1);
      break;
    case Better::Neither:
      c.worse_by = std::abs(ratio - 1);
      break;
  }
  c.passed = c.worse_by <= tolerance;
  return c;
}

std::string first_and_count(const std::vector<std::string>& keys) {
  return keys.size() == 1 ? keys.front() : fmt::format("{} and {} more", keys.front(), keys.size() - 1);
}

}  // namespace

bool Verdict::passed() const { return failed() == 0; }

std::size_t Verdict::failed() const {
  return problems.size() + static_cast<std::size_t>(
                               std::count_if(checks.begin(), checks.end(), [](const Check& c) { return !c.passed; }));
}

std::vector<Metric> metrics_of(const nlohmann::json& doc) {
  std::vector<Metric> out;
  const std::string command = doc.value("command", "");
  if (command == "coll") coll_metrics(doc, out);
  if (command == "link") link_metrics(doc, out);
  if (command == "sweep") sweep_metrics(doc, out);
  if (command == "peak") peak_metrics(doc, out);
  return out;
}

const std::vector<std::string>& compared_settings(const std::string& command) {
  static const std::map<std::string, std::vector<std::string>> fields = {
      {"coll",
       {"collective", "datatype", "op", "impl", "backend", "transport", "sizes", "timing", "batch", "segment_bytes",
        "root", "pattern", "ranks_per_node", "levels"}},
      {"link", {"sizes", "pairs", "seed", "pattern"}},
      {"sweep",
       {"B", "F", "D", "datatype", "collective", "impl", "backend", "transport", "threads", "overlap", "segment_bytes",
        "ranks_per_node", "layers"}},
      {"peak", {"datatypes", "size", "k", "memory_bytes_per_array", "reduce_elements", "backend", "threads"}},
  };
  static const std::vector<std::string> none;
  const auto it = fields.find(command);
  return it == fields.end() ? none : it->second;
}

void require_comparable(const nlohmann::json& run, const nlohmann::json& baseline, const std::string& path) {
  if (!baseline.is_object() || !baseline.contains("command") || !baseline.contains("settings"))
    throw_usage("--baseline {}: not a shardroof --json record (no \"command\" and \"settings\")", path);
  const std::string command = run.value("command", "");
  if (baseline["command"] != run["command"])
    throw_usage("--baseline {}: a record of `shardroof {}`, not of `shardroof {}`", path,
                baseline["command"].is_string() ? baseline["command"].get<std::string>() : baseline["command"].dump(),
                command);
  std::vector<std::string> differ;
  const auto show = [](const json* v) {
    if (!v) return std::string("absent");
    const std::string text = v->dump();
    return text.size() > 60 ? text.substr(0, 57) + "..." : text;
  };
  const auto field = [&](const std::string& name, const json* mine, const json* theirs) {
    if ((mine == nullptr) != (theirs == nullptr) || (mine && *mine != *theirs))
      differ.push_back(fmt::format("{} {} (this run: {})", name, show(theirs), show(mine)));
  };
  field("ranks", run.contains("ranks") ? &run["ranks"] : nullptr,
        baseline.contains("ranks") ? &baseline["ranks"] : nullptr);
  const json hosts_run = hosts_of(run).size();
  const json hosts_base = hosts_of(baseline).size();
  if (!hosts_of(baseline).empty()) field("hosts", &hosts_run, &hosts_base);
  const json& mine = run["settings"];
  const json& theirs = baseline["settings"];
  for (const std::string& name : compared_settings(command))
    field("settings." + name, mine.contains(name) ? &mine[name] : nullptr,
          theirs.contains(name) ? &theirs[name] : nullptr);
  if (!differ.empty()) {
    std::string list;
    for (const auto& d : differ) list += (list.empty() ? "" : "; ") + d;
    throw_usage("--baseline {}: measured with other settings, so its numbers do not compare with this run's: {}", path,
                list);
  }
}

void check_expectation(Verdict& verdict, const std::vector<Metric>& run, const std::string& name, double at_least,
                       std::uint64_t from_bytes, const std::string& rule) {
  verdict.rules.push_back(rule);
  std::size_t checked = 0;
  for (const Metric& m : run) {
    if (m.name != name || m.bytes < from_bytes) continue;
    Check c;
    c.kind = Check::Kind::Expectation;
    c.metric = m;
    c.limit = at_least;
    c.worse_by = std::max(0.0, 1 - m.value / at_least);
    c.passed = m.value >= at_least;
    verdict.checks.push_back(std::move(c));
    ++checked;
  }
  if (checked == 0) verdict.problems.push_back(fmt::format("{}: no result was measured to check", rule));
}

namespace {

// The checks of `run`'s metrics named `name` against `fraction` times each
// metric's own reference (`reference` of it: its model or hardware value);
// metrics without one are counted in `without`.
std::size_t check_against_reference(Verdict& verdict, const std::vector<Metric>& run, const std::string& name,
                                    double fraction, std::uint64_t from_bytes, double Metric::*reference,
                                    std::size_t& without) {
  std::size_t checked = 0;
  for (const Metric& m : run) {
    if (m.name != name || m.bytes < from_bytes) continue;
    if (!(m.*reference > 0)) {
      ++without;
      continue;
    }
    Check c;
    c.kind = Check::Kind::Expectation;
    c.metric = m;
    c.limit = fraction * m.*reference;
    c.worse_by = std::max(0.0, 1 - m.value / c.limit);
    c.passed = m.value >= c.limit;
    verdict.checks.push_back(std::move(c));
    ++checked;
  }
  return checked;
}

}  // namespace

void check_model_expectation(Verdict& verdict, const std::vector<Metric>& run, const std::string& name,
                             double fraction, std::uint64_t from_bytes, const std::string& rule) {
  verdict.rules.push_back(rule);
  std::size_t without = 0;
  const std::size_t checked = check_against_reference(verdict, run, name, fraction, from_bytes, &Metric::model, without);
  if (without > 0) verdict.notes.push_back(fmt::format("{}: {} results without a model value not checked", rule, without));
  if (checked == 0) verdict.problems.push_back(fmt::format("{}: no result has a model value to check against", rule));
}

void check_hardware_expectation(Verdict& verdict, const std::vector<Metric>& run, const std::string& name,
                                double fraction, const std::string& rule) {
  verdict.rules.push_back(rule);
  std::size_t without = 0;  // a thin GEMM, a pair in memory: not a hardware ceiling
  const std::size_t checked = check_against_reference(verdict, run, name, fraction, 0, &Metric::hardware, without);
  if (checked == 0)
    verdict.problems.push_back(fmt::format("{}: no result has a hardware limit to check against", rule));
}

void check_baseline(Verdict& verdict, const std::vector<Metric>& run, const std::vector<Metric>& baseline,
                    double tolerance, const std::string& path) {
  verdict.rules.push_back(fmt::format(
      "--baseline {} --tolerance {:g}: each result at most {:g}% worse than the baseline's (rates lower, times "
      "higher; D* moved either way)",
      path, tolerance * 100, tolerance * 100));
  std::map<std::string, const Metric*> base;
  for (const Metric& m : baseline) base[m.key + " " + m.name] = &m;
  std::vector<std::string> only_run;
  std::vector<std::string> without_value;  // a link pair the baseline could not fit
  std::set<std::string> seen;
  for (const Metric& m : run) {
    const auto it = base.find(m.key + " " + m.name);
    if (it == base.end()) {
      only_run.push_back(m.key + " " + m.name);
      continue;
    }
    seen.insert(it->first);
    if (!(it->second->value > 0)) {
      without_value.push_back(it->first);
      continue;
    }
    verdict.checks.push_back(compare(m, it->second->value, tolerance));
  }
  std::vector<std::string> only_base;
  for (const auto& [key, m] : base)
    if (!seen.count(key)) only_base.push_back(key);
  if (!only_run.empty())
    verdict.notes.push_back(
        fmt::format("{} results of this run are not in the baseline: {}", only_run.size(), first_and_count(only_run)));
  if (!only_base.empty())
    verdict.notes.push_back(fmt::format("{} results of the baseline were not measured in this run: {}",
                                        only_base.size(), first_and_count(only_base)));
  if (!without_value.empty())
    verdict.notes.push_back(fmt::format("{} results have no value in the baseline (no fit): {}", without_value.size(),
                                        first_and_count(without_value)));
  if (seen.empty()) verdict.problems.push_back(fmt::format("--baseline {}: no result of this run is in it", path));
}

std::uint64_t default_expect_from(const std::vector<std::uint64_t>& sizes) {
  return sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end()) / 10;
}

}  // namespace shardroof::gate

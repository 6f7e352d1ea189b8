#include "report/bringup.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace shardroof::bringup {
namespace {

// Reads fields of one record, naming each one it cannot: a record from
// another version of shardroof still gives what it has.
class Fields {
 public:
  Fields(BringUp& into, std::string path) : into_(into), path_(std::move(path)) {}

  // The value at `where` ("a/b/c"), or null; `missing` names it in skipped.
  const nlohmann::json& at(const nlohmann::json& j, const std::string& where, bool missing_is_skipped = true) {
    const nlohmann::json* cur = &j;
    std::size_t start = 0;
    while (start <= where.size()) {
      const auto slash = where.find('/', start);
      const std::string key = where.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
      if (!cur->is_object() || !cur->contains(key)) {
        if (missing_is_skipped) skip(where, "not in the record");
        return null_;
      }
      cur = &(*cur)[key];
      if (slash == std::string::npos) break;
      start = slash + 1;
    }
    return *cur;
  }
  std::optional<double> number(const nlohmann::json& j, const std::string& where, bool required = true) {
    const nlohmann::json& v = at(j, where, required);
    if (v.is_number()) return v.get<double>();
    if (!v.is_null() && required) skip(where, "not a number");
    return std::nullopt;
  }
  std::string text(const nlohmann::json& j, const std::string& where, bool required = true) {
    const nlohmann::json& v = at(j, where, required);
    if (v.is_string()) return v.get<std::string>();
    if (v.is_number()) return v.dump();
    if (!v.is_null() && required) skip(where, "not text");
    return "";
  }
  Bounds bounds(const nlohmann::json& j, const std::string& where, bool required = true) {
    const nlohmann::json& v = at(j, where, required);
    Bounds b;
    if (v.is_array() && v.size() == 2) {
      if (v[0].is_number()) b.low = v[0].get<double>();
      if (v[1].is_number()) b.high = v[1].get<double>();
    } else if (!v.is_null() && required) {
      skip(where, "not an interval");
    }
    return b;
  }
  TimeStat time(const nlohmann::json& j, const std::string& where, bool required = true) {
    TimeStat t;
    const nlohmann::json& v = at(j, where, required);
    if (v.is_null()) return t;
    const auto get = [&](const char* k) {
      return v.is_object() && v.contains(k) && v[k].is_number() ? v[k].get<double>() : 0.0;
    };
    t.median = get("median");
    t.min = get("min");
    t.max = get("max");
    if (t.median <= 0 && required) skip(where + "/median", "not a positive number");
    return t;
  }
  void skip(const std::string& where, const std::string& why) {
    // One line per field and file, however many points lack it.
    std::string w = where;
    if (const auto bracket = w.find('['); bracket != std::string::npos) w = w.substr(0, bracket) + "[*]" + w.substr(w.find(']') + 1);
    const std::string line = fmt::format("{}: {} ({})", path_.empty() ? "this run" : path_, w, why);
    if (seen_.insert(line).second) into_.skipped.push_back(line);
  }

 private:
  BringUp& into_;
  std::string path_;
  std::set<std::string> seen_;
  const nlohmann::json null_ = nullptr;
};

void read_environment(BringUp& into, Fields& f, const nlohmann::json& doc) {
  if (into.environment || !doc.contains("environment")) return;
  const nlohmann::json& e = doc["environment"];
  Environment env;
  env.host = f.text(e, "host", false);
  env.cpu = f.text(e, "cpu", false);
  env.mpi = f.text(e, "mpi_library", false);
  env.date = f.text(e, "date", false);
  env.load_average = f.text(e, "load_average", false);
  if (const auto& b = f.at(e, "blas", false); b.is_object()) {
    env.blas = f.text(b, "library", false);
    if (const std::string v = f.text(b, "version", false); !v.empty()) env.blas += " " + v;
    if (const std::string k = f.text(b, "kernel", false); !k.empty()) env.blas += ", kernel " + k;
    if (const std::string isa = f.text(b, "kernel_isa", false); !isa.empty()) env.blas += " (" + isa + ")";
    if (const std::string by = f.text(b, "kernel_set_by", false); !by.empty() && by != "library")
      env.blas += ", set by " + by;
  }
  const auto& gpu = f.at(doc, "hardware/gpu", false);
  if (gpu.is_object()) env.gpu = f.text(gpu, "name", false);
  // The ring's line rate as the sweep judged it (its own words), or each
  // link pair's that has one.
  if (const std::string t = f.text(doc, "ceilings/line_rate/text", false); !t.empty()) env.line_rates.push_back(t);
  if (const auto& pairs = f.at(doc, "pairs", false); pairs.is_array())
    for (const auto& p : pairs)
      if (const auto bits = f.number(p, "line_rate/bits_per_s", false))
        env.line_rates.push_back(fmt::format("{} -> {}: {} {:g} Gbit/s", f.text(p, "src", false), f.text(p, "dst", false),
                                             f.text(p, "line_rate/interface", false), *bits / 1e9));
  into.environment = env;
}

// The hardware's own peak for `datatype` (doc.hardware.peaks).
std::optional<std::pair<double, std::string>> hardware_peak(const nlohmann::json& doc, const std::string& datatype) {
  if (!doc.contains("hardware") || !doc["hardware"].is_object()) return std::nullopt;
  const auto& peaks = doc["hardware"].value("peaks", nlohmann::json::array());
  if (!peaks.is_array()) return std::nullopt;
  for (const auto& p : peaks)
    if (p.is_object() && p.value("datatype", std::string()) == datatype && p.contains("flops_per_s_per_rank") &&
        p["flops_per_s_per_rank"].is_number())
      return std::pair{p["flops_per_s_per_rank"].get<double>(), p.value("name", std::string("the hardware's peak"))};
  return std::nullopt;
}

// The BLAS kernel's shortfall in words, where the record judged it below the CPU.
std::string kernel_warning(Fields& f, const nlohmann::json& doc) {
  const auto& b = f.at(doc, "environment/blas", false);
  if (b.is_object() && b.value("below_cpu", nlohmann::json()) == true) return f.text(b, "cause", false);
  return "";
}

void read_sweep(BringUp& into, Fields& f, const std::string& path, const nlohmann::json& doc) {
  SweepView s;
  s.path = path;
  s.kernel_warning = kernel_warning(f, doc);
  s.ranks = static_cast<int>(f.number(doc, "ranks").value_or(0));
  s.complete = f.at(doc, "complete", false) != false;
  const auto& st = f.at(doc, "settings");
  s.swept = f.text(st, "swept", false);
  if (s.swept.empty()) s.swept = "D";
  s.datatype = f.text(st, "datatype");
  s.collective = f.text(st, "collective");
  s.impl = f.text(st, "impl");
  s.B = f.number(st, "B", false).value_or(0);
  s.F = f.number(st, "F", false).value_or(0);
  const auto& pts = f.at(doc, "points");
  if (pts.is_array()) {
    for (std::size_t i = 0; i < pts.size(); ++i) {
      const std::string at = fmt::format("points[{}]", i);
      const auto& p = pts[i];
      const auto D = f.number(p, "D");
      if (!D) continue;
      SweepPoint sp;
      sp.D = *D;
      sp.t_math = f.time(p, "t_math_s", false);
      sp.t_comm = f.time(p, "t_comm_s", false);
      sp.t_step = f.time(p, "t_step_s", false);
      sp.regime = f.text(p, "regime", false);
      if (sp.t_math.median > 0 && sp.t_comm.median > 0) s.points.push_back(sp);
      else f.skip(at, "a point without a positive median T_math and T_comm: left out of the plot and the answer");
    }
  }
  const auto& x = f.at(doc, "crossover");
  s.kind = f.text(x, "kind");
  s.D = f.number(x, "D_empirical", false);
  s.D_interval = f.bounds(x, "D_empirical_ci", false);
  s.book = f.number(x, "D_book", false);
  s.book_interval = f.bounds(x, "D_book_ci", false);
  if (const auto& h = f.at(x, "book_holds_measured", false); h.is_boolean()) s.book_holds = h.get<bool>();
  s.roof = f.text(x, "roof", false);
  s.on_floor = f.at(x, "on_floor", false) == true;
  if (const auto& c = f.at(x, "conditioning", false); c.is_object()) {
    s.slope = f.number(c, "measured/slope", false);
    s.ill_conditioned = f.at(c, "measured/ill_conditioned", false) == true;
  }
  if (const auto& n = f.at(x, "no_crossover", false); n.is_object()) {
    s.no_crossover_t_comm_s = f.number(n, "t_comm_s", false);
    s.no_crossover_floor_s = f.number(n, "floor_s", false);
  }
  s.stop = f.text(x, "search/stop", false);
  const auto& stab = f.at(doc, "stability", false);
  if (stab.is_object()) {
    s.stability = f.text(stab, "verdict", false);
    const auto& states = f.at(stab, "t_comm/states", false);
    if (states.is_array()) s.comm_states = static_cast<int>(states.size());
  }
  const auto& c = f.at(doc, "ceilings", !s.points.empty());
  if (c.is_object()) {
    s.C_peak = f.number(c, "C_flops_per_s", false);
    s.M = f.number(c, "M_bytes_per_s", false);
    s.t_comm_book_s = f.number(c, "t_comm_book_s", false);
    s.t_comm_run_s = f.number(c, "t_comm_run_s", false);
    s.floor_s = f.number(c, "floor/time_s", false);
    s.floor_cause = f.text(c, "floor/cause", false);
    s.link_source = f.text(c, "link_source", false);
    s.W_book = f.number(c, "W_bytes_per_s", false);
    if (const auto& lr = f.at(c, "line_rate", false); lr.is_object()) s.W_line_rate = f.number(lr, "bytes_per_s", false);
    if (s.C_peak && *s.C_peak > 0) {
      Ceiling ce{"C_peak (" + s.datatype + ", per rank)", *s.C_peak, std::nullopt, "", "FLOP/s"};
      if (const auto& hp = f.at(c, "hardware_peak", false); hp.is_object()) {
        ce.limit = f.number(hp, "flops_per_s_per_rank", false);
        ce.limit_name = f.text(hp, "name", false);
      }
      s.compute = ce;
    }
  }
  const auto& hs = f.at(doc, "crossover/history_state", false);
  if (hs.is_object()) {
    s.history_without_states = hs.value("has_states", true) == false;
    for (const auto& p : f.at(hs, "parts", false)) {
      HistoryPart h;
      h.state = f.text(p, "state", false);
      h.seen = static_cast<int>(f.number(p, "seen_in", false).value_or(0));
      h.of = static_cast<int>(f.number(p, "of", false).value_or(0));
      h.tentative = p.value("tentative", false);
      h.expected = f.bounds(p, "expected", false);
      h.no_crossover_expected = f.text(p, "no_crossover_expected", false);
      h.D = f.number(p, "D", false);
      if (p.contains("inside") && p["inside"].is_boolean()) h.inside = p["inside"].get<bool>();
      h.share = f.number(p, "share", false).value_or(1);
      h.differing_is = f.text(p, "differing/is", false);
      h.differing_unit = f.text(p, "differing/unit", false);
      h.nearest = f.text(p, "differing/nearest_state", false);
      h.differing_value = f.number(p, "differing/value", false).value_or(0);
      h.nearest_level = f.number(p, "differing/nearest_level", false).value_or(0);
      s.history_parts.push_back(std::move(h));
    }
  }
  for (const auto& l : f.at(doc, "levels/levels", false)) {
    SweepLevel v;
    v.ranks = static_cast<long long>(f.number(l, "ranks", false).value_or(0));
    v.D_ring = f.number(l, "D_ring/D", false);
    v.D_ring_model = f.number(l, "D_ring_model/D", false);
    v.D_hier = f.number(l, "D_hier/D", false);
    v.D_hier_model = f.number(l, "D_hier_model/D", false);
    s.levels.push_back(v);
  }
  into.sweeps.push_back(std::move(s));
}

void read_coll(BringUp& into, Fields& f, const std::string& path, const nlohmann::json& doc) {
  CollView c;
  c.path = path;
  c.ranks = static_cast<int>(f.number(doc, "ranks").value_or(0));
  const auto& st = f.at(doc, "settings");
  c.collective = f.text(st, "collective");
  c.datatype = f.text(st, "datatype", false);
  c.stability = f.text(doc, "stability/run/verdict", false);
  c.rounds = static_cast<int>(f.number(doc, "stability/rounds", false).value_or(0));
  const auto& model = f.at(doc, "model", false);
  if (model.is_object()) {
    c.model_W = f.number(model, "W_bytes_per_s", false);
    c.model_source = f.text(model, "source", false);
  }
  const auto& results = f.at(doc, "results");
  if (results.is_array()) {
    for (std::size_t i = 0; i < results.size(); ++i) {
      const auto& r = results[i];
      CollRow row;
      row.impl = f.text(r, "impl");
      row.in_place = f.at(r, "in_place", false) == true;
      const auto bytes = f.number(r, "bytes");
      const auto median_us = f.number(r, "time_us/median");
      if (!bytes || !median_us || row.impl.empty()) continue;
      row.bytes = static_cast<std::uint64_t>(*bytes);
      row.time_s = *median_us * 1e-6;
      row.busbw_GBps = f.number(r, "busbw_GBps").value_or(0);
      if (const auto& w = f.at(r, "wrong", false); w.is_number()) c.wrong += w.get<long long>();
      if (const auto& e = f.at(r, "expected", false); e.is_object()) {
        row.model_time_s = f.number(e, "time_s", false);
        row.model_busbw_GBps = f.number(e, "busbw_GBps", false);
      }
      c.rows.push_back(row);
    }
  }
  into.colls.push_back(std::move(c));
}

void read_link(BringUp& into, Fields& f, const std::string& path, const nlohmann::json& doc) {
  LinkView l;
  l.path = path;
  l.ranks = static_cast<int>(f.number(doc, "ranks").value_or(0));
  l.pattern = f.text(doc, "settings/pattern", false);
  const auto& pairs = f.at(doc, "pairs");
  if (pairs.is_array()) {
    for (const auto& p : pairs) {
      const auto src = f.number(p, "src"), dst = f.number(p, "dst");
      if (!src || !dst) continue;
      LinkPair lp;
      lp.src = static_cast<int>(*src);
      lp.dst = static_cast<int>(*dst);
      lp.W = f.number(p, "W_bytes_per_s", false);
      lp.alpha_s = f.number(p, "alpha_s", false);
      lp.src_host = f.text(p, "src_host", false);
      lp.dst_host = f.text(p, "dst_host", false);
      if (const auto& lr = f.at(p, "line_rate", false); lr.is_object()) lp.line_rate = f.number(lr, "bytes_per_s", false);
      l.pairs.push_back(lp);
    }
  }
  into.links.push_back(std::move(l));
}

void read_peak(BringUp& into, Fields& f, const std::string& path, const nlohmann::json& doc) {
  PeakView p;
  p.path = path;
  p.ranks = static_cast<int>(f.number(doc, "ranks").value_or(0));
  const auto& nodes = f.at(doc, "nodes");
  if (nodes.is_array()) {
    for (const auto& n : nodes) {
      const std::string host = f.text(n, "host", false);
      const auto& gemms = f.at(n, "gemm");
      if (gemms.is_array()) {
        for (const auto& g : gemms) {
          PeakGemm pg;
          pg.host = host;
          pg.datatype = f.text(g, "datatype");
          const auto rate = f.number(g, "flops_per_s");
          if (!rate) continue;
          pg.flops_per_s = *rate;
          if (const auto& hw = f.at(g, "hardware", false); hw.is_object()) {
            pg.limit = f.number(hw, "flops_per_s_per_rank", false);
            pg.limit_name = f.text(hw, "name", false);
          } else if (const auto hp = hardware_peak(doc, pg.datatype)) {
            pg.limit = hp->first;
            pg.limit_name = hp->second;
          }
          p.gemms.push_back(pg);
        }
      }
      if (!p.triad_bytes_per_s) p.triad_bytes_per_s = f.number(n, "memory/triad_bytes_per_s", false);
    }
  }
  p.kernel_warning = kernel_warning(f, doc);
  into.peaks.push_back(std::move(p));
}

void read_predict(BringUp& into, Fields& f, const std::string& path, const nlohmann::json& doc) {
  PredictView p;
  p.path = path;
  const auto& st = f.at(doc, "settings");
  p.ranks = static_cast<int>(f.number(st, "ranks", false).value_or(0));
  p.collective = f.text(st, "collective", false);
  p.datatype = f.text(st, "datatype", false);
  p.swept = f.text(st, "swept", false);
  if (p.swept.empty()) p.swept = "D";
  p.C = f.number(doc, "ceilings/flops_per_s", false);
  p.W = f.number(doc, "ceilings/link_bytes_per_s", false);
  p.D_star = f.number(doc, "D_star");
  p.roofline_D = f.number(doc, "roofline/D", false);
  p.roof = f.text(doc, "roofline/roof", false);
  p.roofline_kind = f.text(doc, "roofline/kind", false);
  into.predicts.push_back(std::move(p));
}

void read_combine(BringUp& into, Fields& f, const std::string& path, const nlohmann::json& doc) {
  CombineView c;
  c.path = path;
  c.command = f.text(doc, "of");
  const auto& launches = f.at(doc, "launches");
  if (launches.is_array()) c.launches = static_cast<int>(launches.size());
  if (c.command == "coll") {
    const auto& rows = f.at(doc, "rows", false);
    if (rows.is_array()) c.coll_rows = static_cast<int>(rows.size());
    into.combines.push_back(std::move(c));
    return;
  }
  c.swept = f.text(doc, "settings/swept", false);
  if (c.swept.empty()) c.swept = "D";
  const auto& none = f.at(doc, "without_crossover", false);
  if (none.is_object()) {
    c.uncrossed = static_cast<int>(f.number(none, "launches", false).value_or(0));
    launches::KindCounts kinds;
    for (const auto& k : f.at(none, "kinds", false))
      kinds.emplace_back(f.text(k, "kind", false), static_cast<int>(f.number(k, "launches", false).value_or(0)));
    c.uncrossed_kinds = launches::kinds_text(kinds);
    c.uncrossed_t_comm_s = f.number(none, "t_comm_s/median", false);
    c.uncrossed_floor_s = f.number(none, "floor_s/median", false);
  }
  // Fewer than two launches with a crossover: no D* was combined ("D": null).
  const bool combined = !(c.uncrossed > 0 && f.at(doc, "D", false).is_null());
  const auto& x = f.at(doc, "D", combined);
  if (combined) {
    c.D = f.number(x, "median");
    c.interval = f.bounds(x, "ci");
    c.next_launch = f.bounds(x, "prediction_interval", false);
    c.between_share = f.number(x, "between_share", false);
  }
  const auto& book = f.at(doc, "book", false);
  if (book.is_object()) {
    c.book = f.number(book, "median", false);
    c.book_interval = f.bounds(book, "ci", false);
  }
  if (const auto& h = f.at(doc, "book_holds_measured", false); h.is_boolean()) c.book_holds = h.get<bool>();
  if (launches.is_array())
    for (const auto& l : launches) {
      CombineLaunch cl;
      cl.path = f.text(l, "path", false);
      cl.D = f.number(l, "D/value", false);
      cl.interval = f.bounds(l, "D/ci", false);
      cl.stability = f.text(l, "stability", false);
      c.each.push_back(cl);
    }
  c.uncrossed_below_floor = none.is_object() && f.at(none, "each", false).is_array() && c.uncrossed > 0;
  if (none.is_object())
    for (const auto& l : f.at(none, "each", false)) {
      const auto t_comm = f.number(l, "t_comm_s", false), floor = f.number(l, "floor_s", false);
      if (f.text(l, "kind", false) != "below_range" || !t_comm || !floor || !(*t_comm < *floor))
        c.uncrossed_below_floor = false;
      CombineLaunch cl;
      cl.path = f.text(l, "path", false);
      cl.stability = f.text(l, "stability", false);
      cl.no_crossover = f.text(l, "kind", false);
      if (const std::string cause = f.text(l, "cause", false); !cause.empty()) cl.no_crossover += ", " + cause;
      c.each.push_back(cl);
    }
  c.launches += c.uncrossed;
  const auto& states = f.at(doc, "states", false);
  if (states.is_object()) {
    for (const auto& st : f.at(states, "list", false)) {
      CombineState s;
      s.name = f.text(st, "name", false);
      s.seen = static_cast<int>(f.number(st, "launches_seen", false).value_or(0));
      // Over every launch (records since launches without a crossover have
      // states too), else over those with D* (older records).
      s.of = static_cast<int>(f.number(states, "of_launches", false)
                                  .value_or(launches.is_array() ? static_cast<double>(launches.size()) : 0));
      s.no_crossover = f.text(st, "no_crossover", false);
      s.predicts_no_crossover = f.at(st, "predicts_no_crossover", false).is_boolean() &&
                                f.at(st, "predicts_no_crossover", false).get<bool>();
      s.share = f.number(st, "share", false).value_or(0);
      s.tentative = f.at(st, "tentative", false).is_boolean() && f.at(st, "tentative", false).get<bool>();
      s.value = f.number(st, "value/median", false);
      s.interval = f.bounds(st, "value/ci", false);
      s.next_launch = f.bounds(st, "prediction_interval", false);
      for (const auto& l : f.at(st, "levels", false))
        if (const auto q = launches::parse_level_quantity(f.text(l, "quantity", false)))
          s.levels.push_back({*q, f.number(l, "median", false).value_or(0), f.number(l, "spread_sd_log", false).value_or(0)});
      c.states.push_back(std::move(s));
    }
    for (const auto& name : f.at(states, "each_launch", false))
      c.launch_states.push_back(name.is_string() ? name.get<std::string>() : "-");
    const auto& mixed = f.at(states, "mixed", false);
    if (mixed.is_array()) c.mixed = static_cast<int>(mixed.size());
  }
  into.combines.push_back(std::move(c));
}

}  // namespace

void add_record(BringUp& into, const std::string& path, const nlohmann::json& doc) {
  Fields f(into, path);
  if (!doc.is_object()) {
    f.skip("the whole file", "not a JSON object");
    return;
  }
  const std::string command = doc.contains("command") && doc["command"].is_string() ? doc["command"].get<std::string>() : "";
  if (command.empty()) {
    f.skip("the whole file", "no \"command\": not a shardroof record");
    return;
  }
  if (command == "sweep") read_sweep(into, f, path, doc);
  else if (command == "coll") read_coll(into, f, path, doc);
  else if (command == "link") read_link(into, f, path, doc);
  else if (command == "peak") read_peak(into, f, path, doc);
  else if (command == "predict") read_predict(into, f, path, doc);
  else if (command == "combine") read_combine(into, f, path, doc);
  else {
    f.skip("the whole file", fmt::format("command '{}' is not one the report draws", command));
    return;
  }
  read_environment(into, f, doc);
}

BringUp read_record(const nlohmann::json& doc, const std::string& path) {
  BringUp b;
  add_record(b, path, doc);
  return b;
}

}  // namespace shardroof::bringup

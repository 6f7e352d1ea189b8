#include "launches/records.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <tuple>

#include "gate/gate.h"
#include "model/collective_cost.h"
#include "util/error.h"
#include "util/units.h"

namespace shardroof::launches {
namespace {

using nlohmann::json;

double number(const json& j, const char* key, double fallback = 0) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return fallback;
  return j[key].get<double>();
}

// [low, high] of a JSON interval; null high is +infinity, null low 0.
std::pair<double, double> interval_of(const json& j, double value) {
  if (!j.is_array() || j.size() != 2) return {value, value};
  const double low = j[0].is_number() ? j[0].get<double>() : 0.0;
  const double high = j[1].is_number() ? j[1].get<double>() : std::numeric_limits<double>::infinity();
  return {low, high};
}

std::optional<stability::Verdict> verdict_of(const json& stability) {
  if (!stability.is_object()) return std::nullopt;
  return stability::parse_verdict(stability.value("verdict", std::string()));
}

LaunchInfo info_of(const std::string& path, const json& doc) {
  LaunchInfo info;
  info.path = path;
  const json env = doc.value("environment", json::object());
  info.date = env.value("date", std::string());
  info.load_average = env.value("load_average", std::string());
  return info;
}

std::string show(const json* v) {
  if (!v) return "absent";
  const std::string t = v->dump();
  return t.size() > 60 ? t.substr(0, 57) + "..." : t;
}

// The first field in which `doc` differs from `first`, in words; "" when none.
std::string first_difference(const json& first, const json& doc, const std::string& command) {
  const auto field = [](const json& d, const std::string& name) -> const json* {
    return d.contains(name) ? &d[name] : nullptr;
  };
  if (first.value("ranks", 0) != doc.value("ranks", 0))
    return fmt::format("ranks {} (the first record: {})", show(field(doc, "ranks")), show(field(first, "ranks")));
  const json& a = first["settings"];
  const json& b = doc["settings"];
  for (const std::string& name : gate::compared_settings(command)) {
    const json* x = field(a, name);
    const json* y = field(b, name);
    if ((x == nullptr) != (y == nullptr) || (x && *x != *y))
      return fmt::format("settings.{} {} (the first record: {})", name, show(y), show(x));
  }
  return "";
}

double noise_of(const json& stability) {
  return stability.is_object() ? number(stability, "noise_sd_log") : 0.0;
}

bool unstable(const json& stability) {
  return stability.is_object() && stability.value("verdict", std::string()) == "unstable";
}

// The estimate a part of a launch gives: its crossing alone (no interval of its own).
LaunchEstimate point_estimate(double v) { return {v, v, v, {}}; }

// A sweep record whose crossover object names a kind but no D*: a launch
// that ran, located nothing, and says why.
bool uncrossed(const json& doc) {
  static const std::set<std::string> kinds = {"above_range", "below_range", "only_downward", "tied"};
  const json cr = doc.value("crossover", json());
  return cr.is_object() && cr.value("D_empirical", json()).is_null() && cr.value("kind", json()).is_string() &&
         kinds.count(cr["kind"].get<std::string>()) > 0;
}

// The material ratio the record's stability tests used; 0 where it says none.
double material_ratio_of(const json& doc) {
  const json st = doc.value("stability", json());
  if (st.is_object() && st.contains("t_comm")) return number(st["t_comm"], "material_ratio");
  for (const json& r : doc.value("results", json::array()))
    if (r.is_object() && r.contains("stability")) return number(r["stability"], "material_ratio");
  return 0;
}

}  // namespace

LaunchReadings sweep_readings(const json& doc) {
  LaunchReadings out;
  const json st = doc.value("stability", json());
  const json stab = st.is_object() ? st : json::object();
  const json ceilings = doc.value("ceilings", json::object());
  const json cr = doc.value("crossover", json::object());
  const json t_comm = stab.value("t_comm", json());
  std::vector<LevelReading> shared;  // the levels every part has
  // The ring probe's W where it held one level through the launch.
  const json probe = ceilings.is_object() ? ceilings.value("ring_probe", json()) : json();
  json probe_stability;
  const json others = stab.value("ceilings", json::object());
  for (const auto& [name, value] : others.items())
    if (name.rfind("ring probe", 0) == 0) probe_stability = value;
  if (probe.is_object() && number(probe, "W_bytes_per_s") > 0 && !unstable(probe_stability))
    shared.push_back({LevelQuantity::RingProbeW, number(probe, "W_bytes_per_s"), noise_of(probe_stability)});
  if (number(ceilings, "C_flops_per_s") > 0)
    shared.push_back({LevelQuantity::GemmRate, number(ceilings, "C_flops_per_s"), noise_of(stab.value("gemm", json()))});
  // T_comm at S: over every sample where the record has its stability,
  // else the ceilings' own measurement; noise from the record's stability,
  // or (older records) the uncertainty of its level over the rounds.
  double comm = number(t_comm, "median");
  if (!(comm > 0)) comm = number(ceilings, "t_comm_measured_s");
  const double comm_noise = t_comm.is_object() && t_comm.contains("noise_sd_log") ? noise_of(t_comm)
                                                                                  : number(cr, "t_comm_spread_log");
  const double d = number(cr, "D_empirical");
  // A launch that located no crossover: its kind (and cause) instead of D*.
  std::string no_crossover;
  if (uncrossed(doc)) {
    no_crossover = cr["kind"].get<std::string>();
    const json nc = cr.value("no_crossover", json());
    if (nc.is_object() && !nc.value("cause", std::string()).empty()) no_crossover += ", " + nc["cause"].get<std::string>();
  }
  LaunchEstimate value = point_estimate(d);
  if (d > 0) {
    std::tie(value.low, value.high) = interval_of(cr.value("D_empirical_ci", json()), d);
    value.percentiles = percentiles_from_json(cr.value("D_empirical_replicates", json()));
  }
  std::optional<LaunchEstimate> book;
  if (number(cr, "D_book") > 0) {
    LaunchEstimate b = point_estimate(number(cr, "D_book"));
    std::tie(b.low, b.high) = interval_of(cr.value("D_book_ci", json()), b.value);
    b.percentiles = percentiles_from_json(cr.value("D_book_replicates", json()));
    book = b;
  }
  if (unstable(t_comm)) {
    // Changed state inside the launch: one part per state of T_comm, where
    // the record solved the crossing in each.
    for (const json& x : stab.value("crossover_per_state", json::array())) {
      if (x.value("quantity", std::string()) != "t_comm") continue;
      const double level = number(x, "level_s"), part_d = number(x, "D");
      // A state with T_comm below the GEMM's floor has no crossing by
      // construction: that part located none, whatever the launch did.
      const bool below_floor = x.value("below_floor", false);
      if ((!(part_d > 0) && no_crossover.empty() && !below_floor) || !(level > 0)) {
        out.parts.clear();
        out.mixed = fmt::format("T_comm changed {:.1f}x inside it and its state at {} has no crossing",
                                number(t_comm, "max_ratio", 1), fmt::format("{:.4g} ms", level * 1e3));
        return out;
      }
      Observation o;
      o.share = number(x, "share", 0);
      o.levels = shared;
      o.levels.push_back({LevelQuantity::CollectiveAtS, level, comm_noise});
      o.value = point_estimate(part_d);
      if (!(part_d > 0)) o.no_crossover = no_crossover.empty() ? "below_range" : no_crossover;
      if (number(x, "book_D") > 0) o.book = point_estimate(number(x, "book_D"));
      out.parts.push_back(std::move(o));
    }
    if (!out.parts.empty()) {
      // Each part with its crossing: a launch whose parts lack the book's has none.
      if (std::any_of(out.parts.begin(), out.parts.end(), [](const Observation& o) { return !o.book; }))
        for (auto& o : out.parts) o.book.reset();
      return out;
    }
    out.mixed = fmt::format("T_comm changed {:.1f}x inside it and the record has no crossing per state",
                            number(t_comm, "max_ratio", 1));
    return out;
  }
  Observation whole;
  whole.levels = shared;
  if (comm > 0) whole.levels.push_back({LevelQuantity::CollectiveAtS, comm, comm_noise});
  whole.value = value;
  whole.book = book;
  whole.no_crossover = no_crossover;
  out.parts.push_back(std::move(whole));
  return out;
}

namespace {

UncrossedLaunch read_uncrossed(const std::string& path, const json& doc) {
  UncrossedLaunch l;
  l.info = info_of(path, doc);
  l.info.stability = verdict_of(doc.value("stability", json()));
  const json& cr = doc["crossover"];
  l.kind = cr["kind"].get<std::string>();
  const json nc = cr.value("no_crossover", json());
  if (nc.is_object()) {
    l.cause = nc.value("cause", std::string());
    if (number(nc, "t_comm_s") > 0) l.t_comm_s = number(nc, "t_comm_s");
    if (number(nc, "floor_s") > 0) l.floor_s = number(nc, "floor_s");
  }
  l.readings = sweep_readings(doc);
  return l;
}

SweepLaunch read_sweep(const std::string& path, const json& doc) {
  SweepLaunch l;
  l.info = info_of(path, doc);
  const json cr = doc.value("crossover", json::object());
  if (!cr.is_object() || !cr.value("D_empirical", json()).is_number())
    throw_usage("combine: {}: no crossover D* in this launch ({}): nothing to combine", path,
                cr.is_object() && cr.contains("kind") ? cr["kind"].dump() : "no crossover record");
  l.d_star.value = cr["D_empirical"].get<double>();
  if (!(l.d_star.value > 0)) throw_usage("combine: {}: D* = {} is not positive", path, l.d_star.value);
  std::tie(l.d_star.low, l.d_star.high) = interval_of(cr.value("D_empirical_ci", json()), l.d_star.value);
  l.d_star.percentiles = percentiles_from_json(cr.value("D_empirical_replicates", json()));
  if (cr.value("D_book", json()).is_number() && cr["D_book"].get<double>() > 0) {
    LaunchEstimate b;
    b.value = cr["D_book"].get<double>();
    std::tie(b.low, b.high) = interval_of(cr.value("D_book_ci", json()), b.value);
    b.percentiles = percentiles_from_json(cr.value("D_book_replicates", json()));
    l.book = b;
  }
  l.info.stability = verdict_of(doc.value("stability", json()));
  if (cr.contains("search") && cr["search"].is_object()) l.stop = cr["search"].value("stop", std::string());
  l.readings = sweep_readings(doc);
  return l;
}

CollLaunch read_coll(const std::string& path, const json& doc) {
  CollLaunch l;
  l.info = info_of(path, doc);
  l.info.stability = verdict_of(doc.value("stability", json()));
  for (const json& r : doc.value("results", json::array())) {
    CollRow row;
    row.key = {r.value("collective", std::string()), r.value("impl", std::string()), r.value("in_place", false),
               r.value("bytes", std::uint64_t{0})};
    const double median_us = number(r.value("time_us", json::object()), "median");
    if (!(median_us > 0)) continue;  // a 0-byte size moves nothing
    row.time_s.value = median_us * 1e-6;
    const auto [low, high] = interval_of(r.value("time_us_ci95", json()), median_us);
    row.time_s.low = low * 1e-6;
    row.time_s.high = high * 1e-6;
    for (double v : percentiles_from_json(r.value("time_us_replicates", json()))) row.time_s.percentiles.push_back(v * 1e-6);
    const auto kind = coll::parse_collective(row.key.collective);
    row.busbw_factor = kind ? model::bus_factor(*kind, doc.value("ranks", 0)) : 0;
    row.stability = verdict_of(r.value("stability", json()));
    // The row's level is its time; a row that changed state inside the
    // launch is split into its states (each state's median is that part's
    // time).
    const json rs = r.value("stability", json());
    if (unstable(rs) && rs.value("states", json::array()).size() >= 2) {
      for (const json& x : rs["states"]) {
        const double t = number(x, "median");
        if (!(t > 0)) continue;
        Observation o;
        o.share = number(x, "share", 0);
        o.levels = {{LevelQuantity::RowTime, t, noise_of(rs)}};
        o.value = point_estimate(t);
        row.readings.parts.push_back(std::move(o));
      }
    } else {
      Observation o;
      o.levels = {{LevelQuantity::RowTime, row.time_s.value, noise_of(rs)}};
      o.value = row.time_s;
      row.readings.parts.push_back(std::move(o));
    }
    l.rows.push_back(std::move(row));
  }
  return l;
}

}  // namespace

bool CollRowKey::operator<(const CollRowKey& o) const {
  return std::tie(collective, impl, in_place, bytes) < std::tie(o.collective, o.impl, o.in_place, o.bytes);
}

json percentiles_json(const std::vector<double>& p) {
  json out = json::array();
  for (const double v : p) out.push_back(std::isfinite(v) ? json(v) : json());
  return out;
}

std::vector<double> percentiles_from_json(const json& j) {
  std::vector<double> out;
  if (!j.is_array()) return out;
  for (const json& v : j) out.push_back(v.is_number() ? v.get<double>() : std::numeric_limits<double>::infinity());
  return out;
}

LaunchSet read_launches(const std::vector<std::string>& paths, const std::vector<json>& docs) {
  if (paths.size() < 2)
    throw_usage("combine: needs the records of at least two launches, got {}: one launch cannot show how the next "
                "one will differ",
                paths.size());
  LaunchSet set;
  for (std::size_t i = 0; i < docs.size(); ++i) {
    const json& doc = docs[i];
    const std::string& path = paths[i];
    if (!doc.is_object() || !doc.contains("command") || !doc.contains("settings") || !doc["command"].is_string())
      throw_usage("combine: {}: not a shardroof --json record (no \"command\" and \"settings\")", path);
    const std::string command = doc["command"].get<std::string>();
    if (command != "sweep" && command != "coll")
      throw_usage("combine: {}: a record of `shardroof {}`; combine takes sweep or coll records", path, command);
    if (doc.contains("interrupted"))
      throw_usage("combine: {}: the run was interrupted ({}): an incomplete launch is not combined", path,
                  doc["interrupted"].dump());
    if (doc.contains("complete") && doc["complete"] == false)
      throw_usage("combine: {}: the run did not finish (\"complete\": false): an incomplete launch is not combined",
                  path);
    if (set.material_ratio == kDefaultMaterialRatio && material_ratio_of(doc) > 1)
      set.material_ratio = material_ratio_of(doc);
    if (i == 0) {
      set.command = command;
      set.settings = doc["settings"];
      set.ranks = doc.value("ranks", 0);
    } else {
      if (command != set.command)
        throw_usage("combine: {}: a record of `shardroof {}`, but {} is one of `shardroof {}`", path, command,
                    paths[0], set.command);
      const std::string diff = first_difference(docs[0], doc, command);
      if (!diff.empty())
        throw_usage("combine: {}: measured with other settings than {}: {}", path, paths[0], diff);
    }
    if (command == "sweep" && uncrossed(doc))
      set.uncrossed.push_back(read_uncrossed(path, doc));
    else if (command == "sweep")
      set.sweeps.push_back(read_sweep(path, doc));
    else
      set.colls.push_back(read_coll(path, doc));
  }
  return set;
}

LaunchHistory read_history(const std::string& path, const json& settings, int ranks) {
  std::ifstream in(path);
  if (!in) throw_usage("--history: cannot read '{}'", path);
  std::stringstream text;
  text << in.rdbuf();
  json doc;
  try {
    doc = json::parse(text.str());
  } catch (const json::parse_error& e) {
    throw_usage("--history {}: not JSON ({})", path, e.what());
  }
  // Fewer than two of its launches located a crossover: no D* was
  // combined, and the states (what each launch's levels showed, and that
  // they located none) are what it can tell a new launch.
  const bool without_d = doc.is_object() && doc.value("command", std::string()) == "combine" &&
                         doc.value("D", json(0)).is_null() && doc.value("without_crossover", json()).is_object();
  if (without_d && !doc.value("states", json()).is_object())
    throw_usage("--history {}: {} of its {} launches located no crossover and the record has no states: there is "
                "nothing to expect",
                path, doc["without_crossover"].value("launches", 0), doc["without_crossover"].value("of", 0));
  if (!doc.is_object() || doc.value("command", std::string()) != "combine" || doc.value("of", std::string()) != "sweep" ||
      !doc.contains("D") || !(doc["D"].is_object() || without_d))
    throw_usage("--history {}: not a `shardroof combine` record of sweep launches", path);
  const json mine = {{"ranks", ranks}, {"settings", settings}};
  const json theirs = {{"ranks", doc.value("ranks", 0)}, {"settings", doc.value("settings", json::object())}};
  if (std::string diff = first_difference(theirs, mine, "sweep"); !diff.empty()) {
    const auto at = diff.find("(the first record");
    if (at != std::string::npos) diff.replace(at, 17, "(the history");
    throw_usage("--history {}: its launches had other settings than this run: {}", path, diff);
  }
  LaunchHistory h;
  h.path = path;
  if (!without_d) {
    h.launches = doc["D"].value("launches", 0);
    h.between_sd_log = doc["D"].value("between_sd_log", 0.0);
    h.within_sd_log = doc["D"].value("within_sd_log", 0.0);
    h.median = doc["D"].value("median", 0.0);
  }
  // The states, where the record has them (a record made before states
  // has none: the launch-to-launch spread alone is used).
  const json states = doc.value("states", json());
  if (states.is_object() && states.contains("list") && states["list"].is_array()) {
    h.has_states = true;
    h.material_ratio = number(states, "material_ratio", kDefaultMaterialRatio);
    h.significance = number(states, "significance", 0.01);
    if (!(h.material_ratio >= 1) || !(h.significance > 0 && h.significance < 1))
      throw_usage("--history {}: its states carry material_ratio {} and significance {}: not a ratio >= 1 and a level "
                  "in (0, 1)",
                  path, h.material_ratio, h.significance);
    for (const json& st : states["list"]) {
      KnownState k;
      k.name = st.value("name", std::string("?"));
      k.launches_seen = st.value("launches_seen", 0);
      k.launches = states.value("of_launches", h.launches);
      k.tentative = st.value("tentative", false);
      if (st.value("predicts_no_crossover", false)) k.no_crossover = st.value("no_crossover", std::string("no crossover"));
      for (const json& l : st.value("levels", json::array())) {
        const auto q = parse_level_quantity(l.value("quantity", std::string()));
        if (!q) throw_usage("--history {}: state {}: unknown level '{}'", path, k.name, l.value("quantity", std::string()));
        if (!(number(l, "median") > 0))
          throw_usage("--history {}: state {}: level {} has no positive median", path, k.name, to_string(*q));
        k.levels.push_back({*q, number(l, "median"), number(l, "spread_sd_log")});
      }
      const auto [low, high] = interval_of(st.value("prediction_interval", json()), 0);
      k.predict_low = low;
      k.predict_high = high;
      h.states.push_back(std::move(k));
    }
  }
  return h;
}

LaunchSet read_launch_files(const std::vector<std::string>& paths) {
  std::vector<json> docs;
  for (const auto& path : paths) {
    std::ifstream in(path);
    if (!in) throw_usage("combine: cannot read '{}'", path);
    std::stringstream text;
    text << in.rdbuf();
    try {
      docs.push_back(json::parse(text.str()));
    } catch (const json::parse_error& e) {
      throw_usage("combine: {}: not JSON ({})", path, e.what());
    }
  }
  return read_launches(paths, docs);
}

}  // namespace shardroof::launches

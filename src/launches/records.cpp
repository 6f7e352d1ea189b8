#include "launches/records.h"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <tuple>

#include "gate/gate.h"
#include "model/collective_cost.h"
#include "util/error.h"

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
    if (command == "sweep")
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
  if (!doc.is_object() || doc.value("command", std::string()) != "combine" || doc.value("of", std::string()) != "sweep" ||
      !doc.contains("D") || !doc["D"].is_object())
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
  h.launches = doc["D"].value("launches", 0);
  h.between_sd_log = doc["D"].value("between_sd_log", 0.0);
  h.within_sd_log = doc["D"].value("within_sd_log", 0.0);
  h.median = doc["D"].value("median", 0.0);
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

#include "tuning/tuning_sources.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "collectives/collective.h"
#include "tuning/tuner.h"
#include "util/error.h"
#include "util/units.h"

namespace shardroof {

namespace {

using nlohmann::json;

json read_document(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw_usage("--tune-from: cannot read '{}'", path);
  std::stringstream text;
  text << in.rdbuf();
  json doc = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object())
    throw_usage("--tune-from: '{}' is not a JSON document (write one with `shardroof coll --json`)", path);
  const bool shaped = doc.contains("results") && doc["results"].is_array() && doc.contains("ranks") &&
                      doc["ranks"].is_number_integer() && doc.contains("settings") && doc["settings"].is_object() &&
                      doc.contains("environment") && doc["environment"].is_object();
  if (!shaped || doc.value("command", "") != "coll")
    throw_usage("--tune-from: '{}' is not a `shardroof coll --json` document (results, ranks, settings, environment)",
                path);
  return doc;
}

std::string text_of(const json& object, const char* key) {
  if (!object.contains(key)) return "";
  const json& v = object[key];
  return v.is_string() ? v.get<std::string>() : v.dump();
}

// What must agree between the documents, in the order it is checked.
std::vector<std::pair<std::string, std::string>> identity(const json& doc) {
  const json& s = doc["settings"];
  const json& hosts = doc["environment"].value("hosts", json::array());
  std::set<std::string> distinct;
  for (const json& h : hosts)
    if (h.is_string()) distinct.insert(h.get<std::string>());
  return {{"ranks", doc["ranks"].dump()},          {"transport", text_of(s, "transport")},
          {"backend", text_of(s, "backend")},      {"datatype", text_of(s, "datatype")},
          {"op", text_of(s, "op")},                {"timing", text_of(s, "timing")},
          {"hosts", std::to_string(distinct.size())}};
}

// The distinct values, joined.
std::string joined(const std::set<std::string>& values) {
  std::string out;
  for (const auto& v : values)
    if (!v.empty()) out += (out.empty() ? "" : "; ") + v;
  return out;
}

// "0.57 to 4.19 (1 minute)" from load averages "0.57 2.18 2.34", ...
std::string load_range(const std::set<std::string>& loads) {
  double least = 0, most = 0;
  bool any = false;
  for (const auto& l : loads) {
    std::istringstream in(l);
    double one = 0;
    if (!(in >> one)) continue;
    least = any ? std::min(least, one) : one;
    most = any ? std::max(most, one) : one;
    any = true;
  }
  return any ? fmt::format("{:.2f} to {:.2f} (1 minute, at each launch's start)", least, most) : "";
}

// "worst loss over 5 launches per size" (or "4-5 launches").
std::string launches_text(const std::map<std::pair<int, std::uint64_t>, int>& documents_of_size) {
  int least = 0, most = 0;
  for (const auto& [key, n] : documents_of_size) {
    least = least == 0 ? n : std::min(least, n);
    most = std::max(most, n);
  }
  return least == most ? fmt::format("worst loss over {} launches per size", most)
                       : fmt::format("worst loss over {}-{} launches per size", least, most);
}

}  // namespace

TuningSources read_tuning_sources(const std::vector<std::string>& paths, const std::string& command) {
  if (paths.size() < 2)
    throw_usage("--tune-from: {} document given; the table takes the worst loss over launches, so it needs the "
                "documents of two launches or more",
                paths.size());
  TuningSources out;
  std::vector<std::pair<std::string, std::string>> first_identity;
  std::map<std::pair<int, std::uint64_t>, int> documents_of_size;
  std::set<coll::CollectiveKind> kinds;
  std::set<std::string> hosts, cpus, libraries, timings, dates, loads;
  std::uint64_t lo = coll::kNoUpperBound, hi = 0;
  for (const std::string& path : paths) {
    const json doc = read_document(path);
    const auto id = identity(doc);
    if (first_identity.empty()) {
      first_identity = id;
    } else {
      for (std::size_t i = 0; i < id.size(); ++i)
        if (id[i].second != first_identity[i].second)
          throw_usage("--tune-from: '{}' has {} {}, '{}' has {}; a table combines launches of one setup", path,
                      id[i].first, id[i].second, paths.front(), first_identity[i].second);
    }
    // (collective, size) -> impl -> summed interquartile means of its placements.
    std::map<std::pair<int, std::uint64_t>, std::map<std::string, double>> times;
    for (const json& r : doc["results"]) {
      if (!r.is_object() || !r.contains("impl") || !r.contains("bytes") || !r.contains("collective") ||
          !r.contains("time_us") || !r["time_us"].is_object() || !r["time_us"].contains("iqm"))
        throw_usage("--tune-from: '{}': a result without impl, collective, bytes or time_us.iqm", path);
      const std::string impl = r["impl"].get<std::string>();
      if (impl == "auto") continue;
      const auto kind = coll::parse_collective(r["collective"].get<std::string>());
      if (!kind) throw_usage("--tune-from: '{}': unknown collective '{}'", path, r["collective"].dump());
      const auto bytes = r["bytes"].get<std::uint64_t>();
      if (r.contains("wrong") && r["wrong"].is_number() && r["wrong"].get<long long>() > 0)
        throw_usage("--tune-from: '{}': {} {} at {} had {} wrong elements; a table is not made from wrong results",
                    path, impl, coll::to_string(*kind), format_bytes(bytes), r["wrong"].get<long long>());
      times[{static_cast<int>(*kind), bytes}][impl] += r["time_us"]["iqm"].get<double>() * 1e-6;
    }
    std::vector<SizeRanking> launch;
    for (const auto& [key, per_impl] : times) {
      if (per_impl.size() < 2)
        throw_usage("--tune-from: '{}' measured only {} at {} {}; a table needs implementations measured side by "
                    "side (coll --tune-to, or --impl ring,pairwise,direct,native)",
                    path, per_impl.begin()->first, coll::to_string(static_cast<coll::CollectiveKind>(key.first)),
                    format_bytes(key.second));
      SizeRanking s;
      s.kind = static_cast<coll::CollectiveKind>(key.first);
      s.bytes = key.second;
      s.times.assign(per_impl.begin(), per_impl.end());
      std::stable_sort(s.times.begin(), s.times.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
      launch.push_back(std::move(s));
      ++documents_of_size[key];
      kinds.insert(static_cast<coll::CollectiveKind>(key.first));
      lo = std::min(lo, key.second);
      hi = std::max(hi, key.second);
    }
    if (launch.empty()) throw_usage("--tune-from: '{}' has no results", path);
    out.launches.push_back(std::move(launch));
    const json& env = doc["environment"];
    for (const json& h : env.value("hosts", json::array()))
      if (h.is_string()) hosts.insert(h.get<std::string>());
    cpus.insert(text_of(env, "cpu"));
    libraries.insert(text_of(env, "mpi_library"));
    dates.insert(text_of(env, "date"));
    loads.insert(text_of(env, "load_average"));
    const json& s = doc["settings"];
    timings.insert(fmt::format("{}, {} iterations, {} warm-up calls", text_of(s, "timing"), text_of(s, "iters"),
                               text_of(s, "warmup_iters")));
  }
  for (const auto& [key, n] : documents_of_size)
    if (n < 2)
      throw_usage("--tune-from: {} at {} was measured in only one of the documents; every size needs two launches "
                  "or more",
                  coll::to_string(static_cast<coll::CollectiveKind>(key.first)), format_bytes(key.second));

  out.ranks = std::stoi(first_identity[0].second);
  coll::TuningOrigin& o = out.origin;
  o.ranks = out.ranks;
  o.kinds.assign(kinds.begin(), kinds.end());
  o.min_bytes = lo;
  o.max_bytes = hi;
  const auto setting = [&](const std::string& key) {
    for (const auto& [k, v] : first_identity)
      if (k == key) return v;
    return std::string();
  };
  o.fields = {{"host", joined(hosts)},
              {"hosts", setting("hosts")},
              {"cpu", joined(cpus)},
              {"mpi_library", joined(libraries)},
              {"transport", setting("transport")},
              {"backend", setting("backend")},
              {"datatype", setting("datatype")},
              {"op", setting("op")},
              {"sizes", fmt::format("{} to {}", format_bytes(lo), format_bytes(hi))},
              {"timing", joined(timings)},
              {"launches", launches_text(documents_of_size)},
              {"date", dates.empty() ? "" : *dates.begin() + (dates.size() > 1 ? " to " + *dates.rbegin() : "")},
              {"load_average", load_range(loads)},
              {"command", command}};
  o.fields.erase(std::remove_if(o.fields.begin(), o.fields.end(), [](const auto& f) { return f.second.empty(); }),
                 o.fields.end());
  return out;
}

}  // namespace shardroof

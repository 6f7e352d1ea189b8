// Checks a `shardroof coll --json` record against the documented layout and
// the nccl-tests formulas (README "shardroof coll"):
//   bytes = count * element size, algbw = bytes / time (GB/s, 1e9 bytes,
//   from the median time), busbw = algbw * 2(N-1)/N (AllReduce), algbw
//   (Broadcast) or algbw * (N-1)/N (ReduceScatter, AllGather, AllToAll),
//   wrong == 0; time_us holds
//   median = p50 <= p95 <= p99 <= max, the interquartile mean, and each
//   rank's per-iteration times
//   (per_rank: one array per rank, settings.iters x settings.rounds long) and arrival skews
//   (per_rank_skew: the same shape, >= 0, some rank 0 in every iteration);
//   `ranks` holds each rank's summary (rank, host, time_us, skew_us and
//   finish_us as p50 <= p95 <= p99), `straggler` is null or names a rank;
//   settings.timing names the timing mode, which the aggregation note matches;
//   `expected` (the model column) is null or holds time_s > 0, busbw_GBps =
//   bytes / time_s * the bus factor, efficiency = time_s / the median time,
//   busbw_over_W = busbw / W_bytes_per_s, a source and a formula; with more
//   than one rank (and the default probe) every row of ring, pairwise,
//   direct and native has one, and the document's "model" says its source;
//   a native row names the library's algorithm (native_algorithm) or is
//   bound_only with its bound_reason.
// Usage: check_coll_json FILE RANKS COLLECTIVE IMPLS
//   IMPLS: comma-separated impls expected in the results (e.g. ring,native),
//          or '*' for any non-empty set.
// Exit status 0 when every check passes; each failure is printed.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <tuple>

namespace {

int failures = 0;

void fail(const std::string& where, const std::string& what) {
  ++failures;
  std::cerr << "check_coll_json: " << where << ": " << what << "\n";
}

// Relative closeness; the JSON holds doubles printed with full precision, so
// only rounding of the last digits separates recomputed values.
bool close(double got, double want) {
  return std::fabs(got - want) <= 1e-9 * std::max(std::fabs(want), 1e-300) || got == want;
}

std::size_t element_size(const std::string& type) {
  if (type == "float" || type == "int32") return 4;
  if (type == "double") return 8;
  if (type == "bfloat16" || type == "half") return 2;
  return 0;
}

bool has_all(const nlohmann::json& obj, std::initializer_list<const char*> keys, const std::string& where) {
  bool ok = obj.is_object();
  if (!ok) fail(where, "is not an object");
  for (const char* k : keys) {
    if (ok && !obj.contains(k)) {
      fail(where, std::string("missing key '") + k + "'");
      ok = false;
    }
  }
  return ok;
}

// Arrival skews, each rank's summary and the named straggler.
void check_stragglers(const nlohmann::json& r, int ranks, std::size_t iters, const std::string& where) {
  const auto& skews = r["time_us"].value("per_rank_skew", nlohmann::json());
  bool shaped = skews.is_array() && skews.size() == static_cast<std::size_t>(ranks);
  for (const auto& mine : skews) shaped = shaped && mine.is_array() && mine.size() == iters;
  if (!shaped) {
    fail(where, "time_us.per_rank_skew needs each rank's skew of every iteration");
  } else {
    for (std::size_t i = 0; i < iters; ++i) {
      double first = INFINITY;
      for (const auto& mine : skews) first = std::min(first, mine[i].get<double>());
      if (first != 0) fail(where, "an iteration's skews do not start at 0 (the earliest rank)");
    }
  }
  const auto& summaries = r.value("ranks", nlohmann::json());
  if (!summaries.is_array() || summaries.size() != static_cast<std::size_t>(ranks)) {
    fail(where, "ranks needs one summary per rank");
    return;
  }
  for (int k = 0; k < ranks; ++k) {
    const auto& s = summaries[static_cast<std::size_t>(k)];
    if (!has_all(s, {"rank", "host", "time_us", "skew_us", "finish_us"}, where + ".ranks")) continue;
    if (s["rank"] != k) fail(where, "ranks are not in rank order");
    for (const char* field : {"time_us", "skew_us", "finish_us"}) {
      const auto& p = s[field];
      if (!has_all(p, {"p50", "p95", "p99"}, where + ".ranks." + field)) continue;
      if (!(p["p50"].get<double>() >= 0 && p["p50"] <= p["p95"] && p["p95"] <= p["p99"]))
        fail(where, std::string("ranks.") + field + " needs 0 <= p50 <= p95 <= p99");
    }
  }
  const auto& straggler = r.value("straggler", nlohmann::json::object());
  if (!straggler.is_null() && !(straggler.contains("rank") && straggler["rank"].is_number_integer() &&
                                straggler["rank"].get<int>() >= 0 && straggler["rank"].get<int>() < ranks &&
                                straggler.value("slower", 0.0) > 0.10))
    fail(where, "straggler is neither null nor a rank over 10% slower than the median rank");
}

}  // namespace

// The model column of one result (see the top of this file).
void check_expected(const nlohmann::json& r, int ranks, double factor, double median_us, const nlohmann::json& model,
                    const std::string& where) {
  if (!r.contains("expected")) {
    fail(where, "no 'expected' (null or the model's block)");
    return;
  }
  const auto& e = r["expected"];
  const std::string impl = r["impl"];
  const bool modelled = impl == "ring" || impl == "pairwise" || impl == "direct" || impl == "native";
  const bool probe = model.is_object() && model.value("source", "").rfind("ring probe", 0) == 0;
  if (e.is_null()) {
    if (modelled && ranks > 1 && probe) fail(where, "expected is null for " + impl + " with the ring probe");
    return;
  }
  if (!has_all(e, {"time_s", "busbw_GBps", "efficiency", "busbw_over_W", "W_bytes_per_s", "alpha_s", "g_s_per_byte",
                   "source", "formula"},
               where + ".expected"))
    return;
  const double t = e["time_s"], busbw = e["busbw_GBps"], W = e["W_bytes_per_s"];
  const auto bytes = r["bytes"].get<std::uint64_t>();
  if (!(t > 0) && bytes > 0) fail(where, "expected.time_s is not positive");
  if (t > 0 && !close(busbw, static_cast<double>(bytes) / t * factor * 1e-9))
    fail(where, "expected.busbw_GBps " + std::to_string(busbw) + " != bytes / time_s * bus factor");
  if (t > 0 && !close(e["efficiency"].get<double>(), t / (median_us * 1e-6)))
    fail(where, "expected.efficiency != expected.time_s / the median time");
  if (!(W > 0) || !close(e["busbw_over_W"].get<double>(), r["busbw_GBps"].get<double>() * 1e9 / W))
    fail(where, "expected.busbw_over_W != busbw / W_bytes_per_s");
  if (e["source"].get<std::string>().empty() || e["formula"].get<std::string>().empty())
    fail(where, "expected needs a source and a formula");
  if (impl == "native") {
    // Either the library's algorithm is named and modelled, or the row
    // keeps the bound and says why.
    const bool bound = e.value("bound_only", false);
    if (bound && (e["formula"].get<std::string>().rfind("bound only (", 0) != 0 ||
                  e.value("bound_reason", "").empty()))
      fail(where, "a bound-only native row must say so in its formula and give its reason");
    if (!bound && e.value("native_algorithm", "").empty())
      fail(where, "a modelled native row must name the library's algorithm");
  }
}

int main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: check_coll_json FILE RANKS COLLECTIVE IMPLS\n";
    return 2;
  }
  const std::string path = argv[1];
  const int ranks = std::stoi(argv[2]);
  const std::string collective = argv[3];
  std::set<std::string> want_impls;
  {
    std::stringstream ss(argv[4]);
    for (std::string item; std::getline(ss, item, ',');) want_impls.insert(item);
  }

  std::ifstream in(path);
  if (!in) {
    std::cerr << "check_coll_json: cannot read " << path << "\n";
    return 1;
  }
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    std::cerr << "check_coll_json: " << path << " is not JSON: " << e.what() << "\n";
    return 1;
  }

  if (!has_all(doc, {"command", "ranks", "settings", "environment", "aggregation", "results"}, "top level")) return 1;
  if (doc["command"] != "coll") fail("command", "is not \"coll\"");
  if (doc["ranks"] != ranks) fail("ranks", "is " + doc["ranks"].dump() + ", want " + std::to_string(ranks));
  if (!doc["aggregation"].is_string() || doc["aggregation"].get<std::string>().find("max over ranks") == std::string::npos)
    fail("aggregation", "does not say the per-iteration time is the max over ranks");
  std::size_t iters = 0;
  if (has_all(doc["settings"], {"collective", "datatype", "op", "impl", "iters", "warmup_iters", "check", "sizes", "timing"},
              "settings")) {
    const auto& st = doc["settings"];
    if (st["collective"] != collective) fail("settings.collective", st["collective"].dump());
    // Each row aggregates its rounds (passes over the sizes): as many as the
    // run took (at least settings.rounds; more to span --min-span-s).
    const std::size_t rounds = doc.contains("stability") && doc["stability"].contains("rounds")
                                   ? doc["stability"]["rounds"].get<std::size_t>()
                                   : st.contains("rounds") ? st["rounds"].get<std::size_t>() : 1;
    if (st.contains("rounds") && rounds < st["rounds"].get<std::size_t>()) fail("stability.rounds", "fewer than settings.rounds");
    iters = st["iters"].get<std::size_t>() * rounds;
    const std::string note = doc["aggregation"].is_string() ? doc["aggregation"].get<std::string>() : "";
    if (st["timing"] == "batched") {
      if (!st.contains("batch") || !st["batch"].is_number_integer() || st["batch"].get<int>() < 1)
        fail("settings.batch", "batched timing without a batch size");
      if (note.find("back-to-back") == std::string::npos) fail("aggregation", "does not describe the batches");
    } else if (st["timing"] != "per-iteration") {
      fail("settings.timing", st["timing"].dump());
    }
  }
  if (has_all(doc["environment"], {"hosts", "mpi_library", "blas", "compiler", "build_type", "date"}, "environment")) {
    const auto& hosts = doc["environment"]["hosts"];
    if (!hosts.is_array() || hosts.size() != static_cast<std::size_t>(ranks))
      fail("environment.hosts", "should list one host per rank");
  }

  const double factor = collective == "all_reduce"  ? 2.0 * (ranks - 1) / ranks
                        : collective == "broadcast" ? 1.0
                                                    : static_cast<double>(ranks - 1) / ranks;
  const auto& results = doc["results"];
  if (!results.is_array() || results.empty()) {
    fail("results", "empty");
    return 1;
  }
  // Every (size, impl) must come out of place and in place.
  std::map<std::tuple<std::uint64_t, std::string>, std::set<bool>> seen;
  std::set<std::string> impls;
  std::size_t i = 0;
  for (const auto& r : results) {
    const std::string where = "results[" + std::to_string(i++) + "]";
    if (!has_all(r, {"collective", "impl", "algorithm", "datatype", "op", "in_place", "bytes", "count", "time_us",
                     "algbw_GBps", "busbw_GBps", "wrong"},
                 where))
      continue;
    if (r["collective"] != collective) fail(where, "collective " + r["collective"].dump());
    const auto bytes = r["bytes"].get<std::uint64_t>();
    const auto count = r["count"].get<std::uint64_t>();
    const std::size_t es = element_size(r["datatype"].get<std::string>());
    if (es == 0) fail(where, "unknown datatype " + r["datatype"].dump());
    if (bytes != count * es) fail(where, "bytes " + std::to_string(bytes) + " != count * element size");
    if (!has_all(r["time_us"], {"median", "p50", "p95", "p99", "iqm", "min", "max", "per_rank"}, where + ".time_us"))
      continue;
    const auto& t = r["time_us"];
    const double med = t["median"], lo = t["min"], hi = t["max"], p95 = t["p95"], p99 = t["p99"], iqm = t["iqm"];
    if (!(med > 0) || !(lo <= med) || !(med <= p95) || !(p95 <= p99) || !(p99 <= hi))
      fail(where, "time_us needs 0 < min <= median <= p95 <= p99 <= max");
    if (!(lo <= iqm) || !(iqm <= hi)) fail(where, "time_us.iqm is outside [min, max]");
    if (t["p50"] != t["median"]) fail(where, "time_us.p50 differs from the median");
    const auto& per_rank = t["per_rank"];
    if (!per_rank.is_array() || per_rank.size() != static_cast<std::size_t>(ranks)) {
      fail(where, "time_us.per_rank needs one array per rank");
    } else {
      for (const auto& mine : per_rank) {
        if (!mine.is_array() || mine.size() != iters) {
          fail(where, "time_us.per_rank needs each rank's time of every iteration");
          break;
        }
        // Each iteration's time is the max over ranks: no rank took longer than the slowest.
        for (const auto& v : mine)
          if (!v.is_number() || v.get<double>() > hi * (1 + 1e-12)) fail(where, "a rank's time exceeds time_us.max");
      }
    }
    check_stragglers(r, ranks, iters, where);
    // The row's stability over its rounds: a verdict, and levels in time
    // order that hold every sample.
    if (!r.contains("stability") || !r["stability"].is_object()) {
      fail(where, "no stability record");
    } else {
      const auto& st = r["stability"];
      const std::set<std::string> verdicts = {"too_few", "stable", "drift", "unstable"};
      if (!st["verdict"].is_string() || !verdicts.count(st["verdict"].get<std::string>()))
        fail(where, "stability.verdict " + st["verdict"].dump());
      std::size_t held = 0;
      double last_begin = -1;
      for (const auto& l : st["levels"]) {
        held += l["samples"].get<std::size_t>();
        if (l["begin_s"].get<double>() < last_begin) fail(where, "stability.levels not in time order");
        last_begin = l["begin_s"].get<double>();
      }
      if (held != iters || st["samples"].get<std::size_t>() != iters)
        fail(where, "stability levels hold " + std::to_string(held) + " samples, not the row's " + std::to_string(iters));
      if (st["verdict"] == "unstable" && st["levels"].size() < 2) fail(where, "unstable with one level");
    }
    // The median's 95% interval holds the median.
    if (!r.contains("time_us_ci95") || !r["time_us_ci95"].is_array() || r["time_us_ci95"].size() != 2 ||
        !(r["time_us_ci95"][0].get<double>() <= med && med <= r["time_us_ci95"][1].get<double>()))
      fail(where, "time_us_ci95 missing or not around the median");
    // algbw = S / t with t in seconds, in GB/s of 1e9 bytes = bytes / time_us * 1e-3.
    const double algbw = static_cast<double>(bytes) / med * 1e-3;
    const double got_alg = r["algbw_GBps"], got_bus = r["busbw_GBps"];
    if (!close(got_alg, algbw)) fail(where, "algbw_GBps " + std::to_string(got_alg) + " != bytes/time = " + std::to_string(algbw));
    if (!close(got_bus, got_alg * factor))
      fail(where, "busbw_GBps " + std::to_string(got_bus) + " != algbw * " + std::to_string(factor));
    check_expected(r, ranks, factor, med, doc.contains("model") ? doc["model"] : nlohmann::json(), where);
    if (r["wrong"] != 0) fail(where, "wrong = " + r["wrong"].dump());
    if (!r["in_place"].is_boolean()) fail(where, "in_place is not a boolean");
    else seen[{bytes, r["impl"].get<std::string>()}].insert(r["in_place"].get<bool>());
    impls.insert(r["impl"].get<std::string>());
  }
  for (const auto& [key, modes] : seen)
    if (modes.size() != 2)
      fail("results", "size " + std::to_string(std::get<0>(key)) + " impl " + std::get<1>(key) +
                          " lacks an out-of-place or in-place record");
  const bool any_impls = want_impls == std::set<std::string>{"*"};
  if (any_impls ? impls.empty() : impls != want_impls) fail("results", "impls differ from the ones asked for");
  const auto sizes = doc["settings"]["sizes"];
  if (sizes.is_array() && seen.size() != sizes.size() * impls.size())
    fail("results", "not one record pair per size and impl");

  if (failures == 0) std::cout << "check_coll_json: " << path << ": " << results.size() << " records OK\n";
  return failures == 0 ? 0 : 1;
}

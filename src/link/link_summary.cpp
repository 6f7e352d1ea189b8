#include "link/link_summary.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "link/patterns.h"
#include "util/error.h"

namespace shardroof::link {
Spread spread_of(std::vector<double> v) {
  Spread s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  s.min = v.front();
  s.max = v.back();
  s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  return s;
}

namespace {

ClassSummary summarize_class(const std::vector<PairFit>& pairs, bool same_node) {
  ClassSummary c;
  std::vector<double> alphas;
  std::vector<double> ws;
  for (const auto& p : pairs) {
    if (p.same_node != same_node) continue;
    ++c.pairs;
    if (!p.valid) continue;
    ++c.fitted;
    alphas.push_back(p.alpha_s);
    ws.push_back(p.W_bytes_per_s);
  }
  c.alpha_s = spread_of(alphas);
  c.W_bytes_per_s = spread_of(ws);
  return c;
}

}  // namespace

LinkSummary summarize(const std::vector<PairFit>& pairs) {
  return {summarize_class(pairs, true), summarize_class(pairs, false)};
}

ModelLink model_link(const std::vector<PairFit>& pairs) {
  const LinkSummary s = summarize(pairs);
  const bool cross = s.cross_node.fitted > 0;
  const ClassSummary& c = cross ? s.cross_node : s.same_node;
  if (c.fitted == 0) throw RuntimeError("no rank pair has a valid latency-bandwidth fit");
  return {c.W_bytes_per_s.median, c.alpha_s.median, cross ? "cross_node" : "same_node", c.fitted};
}

ModelLink load_link_fit(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError(fmt::format("--link-from: cannot read '{}'", path));
  nlohmann::json doc;
  try {
    in >> doc;
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(fmt::format("--link-from: '{}' is not JSON: {}", path, e.what()));
  }
  if (!doc.is_object() || !doc.contains("pairs") || !doc["pairs"].is_array())
    throw UsageError(fmt::format("--link-from: '{}' has no \"pairs\" list (expected `shardroof link --json`)", path));
  std::vector<PairFit> fits;
  std::size_t index = 0;
  for (const auto& p : doc["pairs"]) {
    const auto bad = [&](const char* what) {
      return UsageError(fmt::format("--link-from: '{}': pairs[{}]: {}", path, index, what));
    };
    if (!p.is_object()) throw bad("not an object");
    for (const char* key : {"src", "dst", "same_node", "alpha_s", "W_bytes_per_s"})
      if (!p.contains(key)) throw bad((std::string("missing \"") + key + "\"").c_str());
    PairFit f;
    try {
      f.src = p["src"].get<int>();
      f.dst = p["dst"].get<int>();
      f.same_node = p["same_node"].get<bool>();
      // A pair whose fit failed carries null for both numbers.
      f.valid = !p["W_bytes_per_s"].is_null() && !p["alpha_s"].is_null();
      if (f.valid) {
        f.alpha_s = p["alpha_s"].get<double>();
        f.W_bytes_per_s = p["W_bytes_per_s"].get<double>();
      }
    } catch (const nlohmann::json::exception& e) {
      throw bad(e.what());
    }
    if (f.valid && (!(f.W_bytes_per_s > 0) || f.alpha_s < 0)) throw bad("W_bytes_per_s must be > 0 and alpha_s >= 0");
    fits.push_back(f);
    ++index;
  }
  std::string pattern = "pingpong";
  if (doc.contains("pattern")) {
    if (!doc["pattern"].is_string() || !parse_pattern(doc["pattern"].get<std::string>()))
      throw UsageError(fmt::format("--link-from: '{}': \"pattern\" is not one of pingpong, bidir, shift, ring", path));
    pattern = doc["pattern"].get<std::string>();
  }
  try {
    ModelLink m = model_link(fits);
    m.pattern = pattern;
    return m;
  } catch (const RuntimeError&) {
    throw UsageError(fmt::format("--link-from: '{}' has no pair with a valid fit", path));
  }
}

}  // namespace shardroof::link

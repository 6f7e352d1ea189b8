#include "launches/states.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "stability/statistics.h"
#include "timing/stats.h"

namespace shardroof::launches {
namespace {

constexpr LevelQuantity kQuantities[] = {LevelQuantity::CollectiveAtS, LevelQuantity::RingProbeW,
                                         LevelQuantity::GemmRate, LevelQuantity::RowTime};

const LevelReading* reading_of(const std::vector<LevelReading>& levels, LevelQuantity q) {
  for (const auto& l : levels)
    if (l.quantity == q && l.value > 0 && std::isfinite(l.value)) return &l;
  return nullptr;
}

// A state's key: its group per quantity, -1 where it has no reading.
using Key = std::vector<int>;

bool compatible(const Key& a, const Key& b) {
  for (std::size_t q = 0; q < a.size(); ++q)
    if (a[q] >= 0 && b[q] >= 0 && a[q] != b[q]) return false;
  return true;
}

std::string state_name(std::size_t i) {
  std::string name;
  for (std::size_t n = i + 1; n > 0; n = (n - 1) / 26) name.insert(name.begin(), static_cast<char>('A' + (n - 1) % 26));
  return name;
}

}  // namespace

std::string to_string(LevelQuantity q) {
  switch (q) {
    case LevelQuantity::CollectiveAtS: return "t_comm_at_S";
    case LevelQuantity::RingProbeW: return "ring_probe_W";
    case LevelQuantity::GemmRate: return "gemm_rate";
    case LevelQuantity::RowTime: return "row_time";
  }
  return "?";
}

std::optional<LevelQuantity> parse_level_quantity(std::string_view name) {
  for (const LevelQuantity q : kQuantities)
    if (to_string(q) == name) return q;
  return std::nullopt;
}

std::string describe(LevelQuantity q) {
  switch (q) {
    case LevelQuantity::CollectiveAtS: return "the collective's time at S";
    case LevelQuantity::RingProbeW: return "the ring probe's W";
    case LevelQuantity::GemmRate: return "the GEMM's rate";
    case LevelQuantity::RowTime: return "the row's time";
  }
  return "?";
}

std::string unit_of(LevelQuantity q) {
  switch (q) {
    case LevelQuantity::CollectiveAtS:
    case LevelQuantity::RowTime: return "s";
    case LevelQuantity::RingProbeW: return "B/s";
    case LevelQuantity::GemmRate: return "FLOP/s";
  }
  return "";
}

double state_gap_log(double noise_a, double noise_b, double material_ratio, double z) {
  return std::max(std::log(std::max(material_ratio, 1.0)), z * std::sqrt(noise_a * noise_a + noise_b * noise_b));
}

StateSplit find_states(const std::vector<LaunchReadings>& readings, const StateOptions& options) {
  StateSplit out;
  out.launches = static_cast<int>(readings.size());
  out.material_ratio = options.material_ratio;
  out.significance = options.significance;
  out.z = stability::normal_quantile(1 - options.significance / 2);
  for (std::size_t i = 0; i < readings.size(); ++i) {
    if (!readings[i].mixed.empty() || readings[i].parts.empty()) {
      out.mixed.emplace_back(i, readings[i].mixed.empty() ? "no estimate" : readings[i].mixed);
      continue;
    }
    for (Observation o : readings[i].parts) {
      o.launch = i;
      out.observations.push_back(std::move(o));
    }
  }
  const std::size_t n = out.observations.size();
  if (n == 0) return out;

  // 1. Per quantity: groups split at gaps larger than both the material
  // ratio and the two neighbours' own noise.
  constexpr std::size_t kCount = std::size(kQuantities);
  std::vector<Key> keys(n, Key(kCount, -1));
  for (std::size_t q = 0; q < kCount; ++q) {
    std::vector<std::pair<double, std::size_t>> sorted;  // log level, observation
    for (std::size_t i = 0; i < n; ++i)
      if (const LevelReading* r = reading_of(out.observations[i].levels, kQuantities[q]))
        sorted.emplace_back(std::log(r->value), i);
    std::sort(sorted.begin(), sorted.end());
    int group = 0;
    for (std::size_t j = 0; j < sorted.size(); ++j) {
      if (j > 0) {
        const double na = reading_of(out.observations[sorted[j - 1].second].levels, kQuantities[q])->noise_sd_log;
        const double nb = reading_of(out.observations[sorted[j].second].levels, kQuantities[q])->noise_sd_log;
        if (sorted[j].first - sorted[j - 1].first > state_gap_log(na, nb, options.material_ratio, out.z)) ++group;
      }
      keys[sorted[j].second][q] = group;
    }
  }

  // 2. States: distinct keys, the observations with the most quantities
  // first; one that matches several existing states joins the one with the
  // most observations.
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  const auto known = [&](std::size_t i) { return std::count_if(keys[i].begin(), keys[i].end(), [](int g) { return g >= 0; }); };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return known(a) > known(b); });
  std::vector<Key> state_keys;
  std::vector<std::vector<std::size_t>> members;
  for (const std::size_t i : order) {
    std::optional<std::size_t> best;
    for (std::size_t s = 0; s < state_keys.size(); ++s)
      if (compatible(state_keys[s], keys[i]) && (!best || members[s].size() > members[*best].size())) best = s;
    if (!best) {
      state_keys.push_back(keys[i]);
      members.emplace_back();
      best = state_keys.size() - 1;
    }
    for (std::size_t q = 0; q < kCount; ++q)
      if (state_keys[*best][q] < 0) state_keys[*best][q] = keys[i][q];
    members[*best].push_back(i);
  }

  // 3. Each state's launches, levels and combination.
  for (auto& m : members) {
    std::sort(m.begin(), m.end());
    LaunchState s;
    s.observations = m;
    double weight = 0;
    for (const std::size_t i : m) {
      const Observation& o = out.observations[i];
      if (std::find(s.launches.begin(), s.launches.end(), o.launch) == s.launches.end()) s.launches.push_back(o.launch);
      weight += o.share;
    }
    std::sort(s.launches.begin(), s.launches.end());
    for (const std::size_t i : m) {
      const std::string& kind = out.observations[i].no_crossover;
      if (kind.empty()) {
        ++s.crossed;
        s.crossed_share += out.observations[i].share;
        continue;
      }
      ++s.uncrossed;
      s.uncrossed_share += out.observations[i].share;
      count_kind(s.no_crossover_kinds, kind);
    }
    s.share = out.launches > 0 ? weight / out.launches : 0;
    s.tentative = s.launches.size() < 2;
    for (const LevelQuantity q : kQuantities) {
      std::vector<double> logs;
      double noise2 = 0;
      for (const std::size_t i : m)
        if (const LevelReading* r = reading_of(out.observations[i].levels, q)) {
          logs.push_back(std::log(r->value));
          noise2 += r->noise_sd_log * r->noise_sd_log;
        }
      if (logs.empty()) continue;
      const double k = static_cast<double>(logs.size());
      double mean = 0, var = 0;
      for (const double v : logs) mean += v / k;
      for (const double v : logs) var += (v - mean) * (v - mean) / std::max(k - 1, 1.0);
      std::vector<double> values;
      for (const double v : logs) values.push_back(std::exp(v));
      s.levels.push_back({q, median_of(values), std::sqrt(std::max(var, noise2 / k))});
    }
    std::vector<LaunchEstimate> est, books;
    for (const std::size_t i : m) {
      if (!out.observations[i].no_crossover.empty()) continue;
      est.push_back(out.observations[i].value);
      if (out.observations[i].book) books.push_back(*out.observations[i].book);
    }
    if (!est.empty()) s.value = combine(est, options.level);
    if (!books.empty() && books.size() == est.size()) s.book = combine(books, options.level);
    out.states.push_back(std::move(s));
  }
  std::stable_sort(out.states.begin(), out.states.end(), [](const LaunchState& a, const LaunchState& b) {
    if (a.launches.size() != b.launches.size()) return a.launches.size() > b.launches.size();
    return a.value.median < b.value.median;
  });

  // 4. Predictions: a state's own launches where two or more have a value;
  // else the spread within the other states (pooled over their launches),
  // the launch effect being the machine's, not the state's; else its one
  // launch's own interval. A state none of whose launches located a
  // crossover predicts none.
  const auto valued = [&](const LaunchState& s) {
    std::vector<std::size_t> v;
    for (const std::size_t i : s.observations)
      if (out.observations[i].no_crossover.empty()) v.push_back(i);
    return v;
  };
  double pooled = 0;
  int df = 0;
  for (const auto& s : out.states) {
    const std::vector<std::size_t> with = valued(s);
    if (with.size() < 2 || s.predicts_no_crossover()) continue;
    std::vector<double> logs;
    for (const std::size_t i : with) logs.push_back(std::log(out.observations[i].value.value));
    double mean = 0;
    for (const double v : logs) mean += v / static_cast<double>(logs.size());
    for (const double v : logs) pooled += (v - mean) * (v - mean);
    df += static_cast<int>(logs.size()) - 1;
  }
  for (std::size_t k = 0; k < out.states.size(); ++k) {
    LaunchState& s = out.states[k];
    s.name = state_name(k);
    const std::vector<std::size_t> with = valued(s);
    if (s.predicts_no_crossover()) {
      s.prediction_from = with.empty() ? "no crossover in its launches" : "no crossover in most of its launches";
    } else if (with.size() >= 2) {
      s.predict_low = s.value.predict_low;
      s.predict_high = s.value.predict_high;
      s.prediction_from = "its launches";
    } else if (df > 0) {
      const LaunchEstimate& e = out.observations[with.front()].value;
      const double own = within_sd(e);
      const double sd = std::sqrt(std::max(pooled / df, own * own));
      const stability::Bounds b = stability::next_launch_interval(std::log(e.value), sd, df + 1, 1, options.level);
      s.predict_low = b.low;
      s.predict_high = b.high;
      s.prediction_from = "the other states' launches (pooled)";
    } else {
      const LaunchEstimate& e = out.observations[with.front()].value;
      s.predict_low = e.low;
      s.predict_high = e.high;
      s.prediction_from = "its one launch's own interval";
    }
  }
  return out;
}

Placement place(const std::vector<LevelReading>& mine, const std::vector<KnownState>& known, double material_ratio,
                double significance) {
  Placement out;
  const double z = stability::normal_quantile(1 - significance / 2);
  // Each state's distance: the largest over shared quantities of |gap| in
  // units of the gap that says two states (> 1: another state).
  double nearest = INFINITY;
  for (std::size_t s = 0; s < known.size(); ++s) {
    double worst = 0;
    std::optional<LevelQuantity> worst_q;
    double worst_value = 0, worst_level = 0;
    for (const StateLevel& l : known[s].levels) {
      const LevelReading* r = reading_of(mine, l.quantity);
      if (!r || !(l.median > 0)) continue;
      const double d = std::abs(std::log(r->value) - std::log(l.median)) /
                       state_gap_log(r->noise_sd_log, l.spread_sd_log, material_ratio, z);
      if (!worst_q || d > worst) {
        worst = d;
        worst_q = l.quantity;
        worst_value = r->value;
        worst_level = l.median;
      }
    }
    if (!worst_q || worst >= nearest) continue;
    nearest = worst;
    out.nearest = known[s].name;
    out.state = worst <= 1 ? std::optional<std::size_t>(s) : std::nullopt;
    out.differing = worst_q;
    out.value = worst_value;
    out.known_level = worst_level;
  }
  if (out.state) out.differing.reset();
  return out;
}

void count_kind(KindCounts& counts, const std::string& kind) {
  const auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& k) { return k.first == kind; });
  if (it == counts.end())
    counts.emplace_back(kind, 1);
  else
    ++it->second;
}

std::string kinds_text(const KindCounts& counts) {
  std::string out;
  for (const auto& [kind, n] : counts) out += (out.empty() ? "" : "; ") + kind + ": " + std::to_string(n);
  return out;
}

std::vector<PlacedPart> place_launch(const LaunchReadings& mine, const LaunchHistory& history) {
  std::vector<PlacedPart> out;
  if (!history.has_states) return out;
  for (const Observation& o : mine.parts) {
    PlacedPart p{o.share, o.no_crossover.empty() ? o.value.value : 0,
                 place(o.levels, history.states, history.material_ratio, history.significance), std::nullopt};
    if (p.placement.state) {
      const KnownState& k = history.states[*p.placement.state];
      p.inside = k.no_crossover.empty() ? p.value > 0 && k.predict_low <= p.value && p.value <= k.predict_high
                                        : !(p.value > 0);
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace shardroof::launches

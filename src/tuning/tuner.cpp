#include "tuning/tuner.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <tuple>

#include "stability/statistics.h"
#include "timing/timing.h"

namespace shardroof {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
// Sums of logarithms that differ by less than this differ by rounding only.
constexpr double kRoundingTolerance = 1e-9;

// Of values on a log scale (any sign).
double interquartile_range(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const stability::Bounds quartiles = stability::central(values, 0.5, false);
  return quartiles.high - quartiles.low;
}

// The interquartile mean of each pass of `samples`.
std::vector<double> pass_means(const std::vector<double>& samples) {
  std::vector<double> out;
  for (const auto& [begin, end] : pass_bounds(samples.size()))
    out.push_back(summarize({samples.begin() + static_cast<std::ptrdiff_t>(begin),
                             samples.begin() + static_cast<std::ptrdiff_t>(end)})
                      .iqm);
  return out;
}

// Where a range whose largest measured size is `last` ends: the geometric
// midpoint to the next measured size of its collective, or no bound where
// none follows.
std::uint64_t range_end(std::uint64_t last, std::optional<std::uint64_t> next) {
  return next ? static_cast<std::uint64_t>(std::sqrt(static_cast<double>(last) * static_cast<double>(*next)))
              : coll::kNoUpperBound;
}

// Appends `r`, or, where the previous rule of its collective runs the same,
// extends that one to r's end.
void append_rule(std::vector<coll::TuningRule>& rules, coll::TuningRule r) {
  if (!rules.empty() && rules.back().kind == r.kind && rules.back().order == r.order) {
    rules.back().max_bytes = r.max_bytes;
  } else {
    rules.push_back(std::move(r));
  }
}

}  // namespace

std::vector<std::pair<std::size_t, std::size_t>> pass_bounds(std::size_t iterations) {
  const auto n_passes = static_cast<std::size_t>(std::floor(std::sqrt(static_cast<double>(iterations))));
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (std::size_t p = 0; p < n_passes; ++p) out.emplace_back(p * iterations / n_passes, (p + 1) * iterations / n_passes);
  return out;
}

std::vector<SizeRanking> rank_sizes(const std::vector<CollRecord>& records) {
  using Key = std::tuple<int, std::uint64_t>;
  std::map<Key, std::map<std::string, double>> sums;
  std::map<Key, std::map<std::string, std::vector<std::vector<double>>>> placements;  // each record's pass means
  for (const CollRecord& r : records) {
    const Key key{static_cast<int>(r.kind), r.bytes};
    sums[key][r.impl] += r.time.iqm;
    placements[key][r.impl].push_back(pass_means(r.time.samples));
  }
  std::vector<SizeRanking> out;
  for (auto& [key, per_impl] : sums) {
    SizeRanking s;
    s.kind = static_cast<coll::CollectiveKind>(std::get<0>(key));
    s.bytes = std::get<1>(key);
    s.times.assign(per_impl.begin(), per_impl.end());
    std::stable_sort(s.times.begin(), s.times.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    // A pass's time: the sum over placements, as the size's time.
    for (const auto& [impl, means] : placements[key]) {
      std::vector<double> passes = means.front();
      bool same = true;
      for (const auto& m : means) same = same && m.size() == passes.size();
      if (!same || passes.empty()) continue;
      for (std::size_t i = 1; i < means.size(); ++i)
        for (std::size_t p = 0; p < passes.size(); ++p) passes[p] += means[i][p];
      s.passes[impl] = std::move(passes);
    }
    out.push_back(std::move(s));
  }
  return out;
}

Loss loss_to(const SizeRanking& size, const std::string& impl, const std::string& reference) {
  const auto time_of = [&](const std::string& name) {
    return std::find_if(size.times.begin(), size.times.end(), [&](const auto& t) { return t.first == name; });
  };
  const auto mine = time_of(impl);
  const auto ref = time_of(reference);
  if (mine == size.times.end() || ref == size.times.end()) return {kInfinity, 0};
  Loss out;
  out.loss = mine->second > 0 && ref->second > 0 ? std::log(mine->second / ref->second) : 0;
  const auto my_passes = size.passes.find(impl);
  const auto ref_passes = size.passes.find(reference);
  if (my_passes == size.passes.end() || ref_passes == size.passes.end() ||
      my_passes->second.size() != ref_passes->second.size())
    return out;
  std::vector<double> losses;
  for (std::size_t p = 0; p < my_passes->second.size(); ++p) {
    const double t = my_passes->second[p];
    const double b = ref_passes->second[p];
    if (t > 0 && b > 0) losses.push_back(std::log(t / b));
  }
  out.noise_known = losses.size() >= 2;
  out.spread = interquartile_range(std::move(losses));
  return out;
}

Loss loss_to_best(const SizeRanking& size, const std::string& impl) {
  if (size.times.empty()) return {kInfinity, 0};
  return loss_to(size, impl, size.times.front().first);
}

bool within_noise(const SizeRanking& size, const std::string& impl) {
  const Loss l = loss_to_best(size, impl);
  return l.loss <= l.spread;
}

double unsteadiness(const SizeRanking& size, const std::string& impl) {
  const auto passes = size.passes.find(impl);
  if (passes == size.passes.end()) return 0;
  std::vector<double> logs;
  for (const double t : passes->second)
    if (t > 0) logs.push_back(std::log(t));
  return logs.size() >= 2 ? interquartile_range(std::move(logs)) : 0;
}

bool worth_measuring(const std::string& impl, const std::vector<SizeRanking>& rankings) {
  if (impl == coll::kNativeImpl) return true;
  const auto measured = [&](const SizeRanking& s, const std::string& name) {
    return std::any_of(s.times.begin(), s.times.end(), [&](const auto& t) { return t.first == name; });
  };
  if (!rankings.empty() && !measured(rankings.back(), impl)) return false;  // dropped already
  if (rankings.size() < static_cast<std::size_t>(kPruneSizes)) return true;
  // The fastest of ours at a size (times are sorted, fastest first).
  const auto fastest_of_ours = [](const SizeRanking& s) {
    for (const auto& [name, t] : s.times)
      if (name != coll::kNativeImpl) return name;
    return std::string();
  };
  const auto first = rankings.end() - kPruneSizes;
  const std::string reference = fastest_of_ours(*first);
  if (reference.empty() || reference == impl) return true;
  std::optional<Loss> before;
  for (auto it = first; it != rankings.end(); ++it) {
    if (fastest_of_ours(*it) != reference) return true;
    const Loss now = loss_to(*it, impl, reference);
    if (!now.noise_known || now.loss <= now.spread) return true;  // not clearly behind
    if (before && now.loss - before->loss <= now.spread + before->spread) return true;  // not falling behind
    before = now;
  }
  return false;
}

std::vector<coll::TuningRule> tuning_rules(const std::vector<SizeRanking>& rankings, int ranks) {
  std::vector<coll::TuningRule> rules;
  std::size_t first = 0;
  while (first < rankings.size()) {
    const SizeRanking& start = rankings[first];
    // Each candidate (as fast as the best at the range's first size): how
    // many sizes in a row it stays so, and its summed loss over them.
    // Among those reaching equally far, every one was as fast as the best
    // within the noise at every size, so their nominal losses are noise:
    // the steadiest (the least summed unsteadiness) is chosen, the smallest
    // summed loss deciding only between equally steady ones.
    std::string chosen;
    std::size_t reach = 0;
    double chosen_loss = kInfinity;
    double chosen_unsteadiness = kInfinity;
    for (const auto& [impl, t] : start.times) {
      if (!within_noise(start, impl)) continue;
      std::size_t end = first;
      double loss = 0;
      double unsteady = 0;
      while (end < rankings.size() && rankings[end].kind == start.kind && within_noise(rankings[end], impl)) {
        loss += loss_to_best(rankings[end], impl).loss;
        unsteady += unsteadiness(rankings[end], impl);
        ++end;
      }
      const bool as_steady = std::abs(unsteady - chosen_unsteadiness) <= kRoundingTolerance;
      if (end > reach || (end == reach && !as_steady && unsteady < chosen_unsteadiness) ||
          (end == reach && as_steady && loss < chosen_loss)) {
        chosen = impl;
        reach = end;
        chosen_loss = loss;
        chosen_unsteadiness = unsteady;
      }
    }
    if (chosen.empty()) {  // nothing measured at this size
      ++first;
      continue;
    }
    coll::TuningRule r;
    r.kind = start.kind;
    r.ranks = ranks;
    r.order.push_back(chosen);
    if (chosen == coll::kNativeImpl) {
      // Where native is not available: the one of ours that lost least over the range.
      std::string fallback;
      double fallback_loss = kInfinity;
      for (const auto& [impl, t] : start.times) {
        if (impl == coll::kNativeImpl) continue;
        double loss = 0;
        for (std::size_t i = first; i < reach; ++i) loss += loss_to_best(rankings[i], impl).loss;
        if (loss < fallback_loss) {
          fallback = impl;
          fallback_loss = loss;
        }
      }
      if (!fallback.empty()) r.order.push_back(fallback);
    }
    const bool last_of_kind = reach == rankings.size() || rankings[reach].kind != start.kind;
    r.max_bytes = range_end(rankings[reach - 1].bytes,
                            last_of_kind ? std::nullopt : std::optional<std::uint64_t>(rankings[reach].bytes));
    append_rule(rules, std::move(r));
    first = reach;
  }
  return rules;
}

std::vector<coll::TuningRule> tuning_rules_over_launches(const std::vector<std::vector<SizeRanking>>& launches,
                                                         int ranks) {
  using Key = std::pair<int, std::uint64_t>;
  // (collective, size) -> each launch's times there (impl -> seconds).
  std::map<Key, std::vector<std::map<std::string, double>>> sizes;
  for (const auto& launch : launches)
    for (const SizeRanking& s : launch)
      if (!s.times.empty())
        sizes[{static_cast<int>(s.kind), s.bytes}].emplace_back(s.times.begin(), s.times.end());
  struct Choice {
    coll::CollectiveKind kind;
    std::uint64_t bytes;
    std::vector<std::string> order;
  };
  std::vector<Choice> choices;
  for (const auto& [key, per_launch] : sizes) {
    // Worst and summed log loss of each implementation measured in every launch.
    std::vector<double> bests;  // each launch's best time
    for (const auto& times : per_launch) {
      double best = kInfinity;
      for (const auto& [impl, t] : times) best = std::min(best, t);
      bests.push_back(best);
    }
    std::map<std::string, std::pair<double, double>> losses;
    for (const auto& [impl, t] : per_launch.front()) {
      double worst = 0;
      double sum = 0;
      bool everywhere = true;
      for (std::size_t l = 0; l < per_launch.size(); ++l) {
        const auto mine = per_launch[l].find(impl);
        if (mine == per_launch[l].end()) {
          everywhere = false;
          break;
        }
        const double best = bests[l];
        const double loss = mine->second > 0 && best > 0 ? std::log(mine->second / best) : 0;
        worst = std::max(worst, loss);
        sum += loss;
      }
      if (everywhere) losses[impl] = {worst, sum};
    }
    const auto least = [&](bool ours_only) {
      std::string name;
      std::pair<double, double> at{kInfinity, kInfinity};
      for (const auto& [impl, l] : losses) {
        if (ours_only && impl == coll::kNativeImpl) continue;
        if (l.first < at.first - kRoundingTolerance ||
            (std::abs(l.first - at.first) <= kRoundingTolerance && l.second < at.second)) {
          name = impl;
          at = l;
        }
      }
      return name;
    };
    const std::string chosen = least(false);
    if (chosen.empty()) continue;
    Choice c{static_cast<coll::CollectiveKind>(key.first), key.second, {chosen}};
    if (chosen == coll::kNativeImpl) {
      const std::string fallback = least(true);
      if (!fallback.empty()) c.order.push_back(fallback);
    }
    choices.push_back(std::move(c));
  }
  std::vector<coll::TuningRule> rules;
  for (std::size_t i = 0; i < choices.size(); ++i) {
    const Choice& c = choices[i];
    const bool last_of_kind = i + 1 == choices.size() || choices[i + 1].kind != c.kind;
    coll::TuningRule r;
    r.kind = c.kind;
    r.ranks = ranks;
    r.order = c.order;
    r.max_bytes = range_end(c.bytes, last_of_kind ? std::nullopt : std::optional<std::uint64_t>(choices[i + 1].bytes));
    append_rule(rules, std::move(r));
  }
  return rules;
}

std::vector<coll::Algorithm> impls_worth_measuring(const std::vector<coll::Algorithm>& impls,
                                                   const std::vector<SizeRanking>& rankings) {
  std::vector<coll::Algorithm> out;
  for (const coll::Algorithm impl : impls)
    if (worth_measuring(std::string(coll::to_string(impl)), rankings)) out.push_back(impl);
  return out;
}

}  // namespace shardroof

#include "launches/combined_records.h"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace shardroof::launches {

namespace {

std::optional<UncrossedSummary::Spread> uncrossed_spread(std::vector<double> v) {
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end());
  UncrossedSummary::Spread s;
  s.launches = static_cast<int>(v.size());
  const std::size_t n = v.size();
  s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  s.min = v.front();
  s.max = v.back();
  return s;
}

}  // namespace

UncrossedSummary summarize_uncrossed(const LaunchSet& set) {
  UncrossedSummary out;
  out.launches = static_cast<int>(set.uncrossed.size());
  out.of = static_cast<int>(set.uncrossed.size() + set.sweeps.size());
  std::vector<double> t_comm, floor;
  for (const auto& l : set.uncrossed) {
    count_kind(out.kinds, l.kind_text());
    if (l.t_comm_s) t_comm.push_back(*l.t_comm_s);
    if (l.floor_s) floor.push_back(*l.floor_s);
  }
  out.t_comm_s = uncrossed_spread(std::move(t_comm));
  out.floor_s = uncrossed_spread(std::move(floor));
  return out;
}

SweepCombination combine_sweeps(const LaunchSet& set, double level) {
  if (set.sweeps.size() < 2)
    throw std::logic_error("combine_sweeps: needs two launches with a crossover, got " +
                           std::to_string(set.sweeps.size()));
  SweepCombination out;
  std::vector<LaunchEstimate> d, book;
  for (const auto& l : set.sweeps) {
    d.push_back(l.d_star);
    if (l.book) book.push_back(*l.book);
  }
  out.d_star = combine(d, level);
  if (!book.empty() && book.size() == d.size()) {
    out.book = combine(book, level);
    out.book_holds_measured = out.book->low <= out.d_star.median && out.d_star.median <= out.book->high;
  }
  out.states = sweep_states(set, level);
  out.uncrossed = summarize_uncrossed(set);
  return out;
}

StateSplit sweep_states(const LaunchSet& set, double level) {
  std::vector<LaunchReadings> readings;
  for (const auto& l : set.sweeps) readings.push_back(l.readings);
  for (const auto& l : set.uncrossed) readings.push_back(l.readings);
  return find_states(readings, {set.material_ratio, stability::ChangePointOptions{}.significance, level});
}

CollCombination combine_colls(const LaunchSet& set, double level) {
  CollCombination out;
  std::map<CollRowKey, std::vector<const CollRow*>> by_key;
  for (const auto& l : set.colls)
    for (const auto& r : l.rows) by_key[r.key].push_back(&r);
  for (const auto& [key, rows] : by_key) {
    if (rows.size() != set.colls.size()) {
      out.partial.push_back(key);
      continue;
    }
    std::vector<LaunchEstimate> times;
    for (const CollRow* r : rows) times.push_back(r->time_s);
    CollCombination::Row row;
    row.key = key;
    row.time_s = combine(times, level);
    row.busbw_factor = rows.front()->busbw_factor;
    row.launches_with_row = static_cast<int>(rows.size());
    std::vector<LaunchReadings> readings;
    for (const CollRow* r : rows) readings.push_back(r->readings);
    row.states = find_states(readings, {set.material_ratio, stability::ChangePointOptions{}.significance, level});
    out.rows.push_back(std::move(row));
  }
  return out;
}

}  // namespace shardroof::launches

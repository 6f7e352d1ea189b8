#include "launches/combined_records.h"

#include <map>

namespace shardroof::launches {

SweepCombination combine_sweeps(const LaunchSet& set, double level) {
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
  std::vector<LaunchReadings> readings;
  for (const auto& l : set.sweeps) readings.push_back(l.readings);
  out.states = find_states(readings, {set.material_ratio, stability::ChangePointOptions{}.significance, level});
  return out;
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

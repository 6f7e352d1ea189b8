#include "report/combine_report.h"

#include <fmt/format.h>

#include <cmath>

#include "report/answer.h"
#include "util/units.h"

namespace shardroof {

std::string combine_method(int within_low, int within_high) {
  return fmt::format(
      "on the log scale; the median's interval: a hierarchical bootstrap (each replicate draws the launches with "
      "replacement, then from each drawn launch one value of its own bootstrap, which drew its rounds and then its "
      "samples); between and within: the launches' variance minus the mean within-launch variance (each launch's "
      "from its {}th-{}th percentiles), and that mean; the next launch: mean +- t(K-1) x s x sqrt(1 + 1/K), s the "
      "launches' spread, at least one launch's own noise; disagreeing: a launch whose own interval misses the next "
      "launch's as the other launches place it (Kalibera and Jones, ISMM 2013)",
      within_low, within_high);
}

std::string states_method(const launches::StateSplit& s) {
  return fmt::format(
      "launches grouped by the levels of what each measured itself (the collective's time at S, the ring probe's W, "
      "the GEMM's rate; for coll the row's time), never by their D*: per quantity, the launches sorted by log level "
      "and split where neighbours differ by more than both the material ratio {:.3g} and z = {:.3g} (the change-point "
      "test's {:g}% level) times their own noise (the spread of each launch's measurements at one level, "
      "sqrt(n_a^2 + n_b^2)); a state is a launch's groups over every quantity it has; a launch that changed state "
      "inside itself is split into its states by its per-state crossings (or named mixed where it has none); each "
      "state combined as the launches are; a state seen in fewer than two launches is tentative, its prediction "
      "from the other states' spread (pooled)",
      s.material_ratio, s.z, 100 * s.significance);
}

std::string state_levels_text(const std::vector<launches::StateLevel>& levels) {
  if (levels.empty()) return "no levels in the records";
  std::string out;
  for (const auto& l : levels) {
    std::string v;
    switch (l.quantity) {
      case launches::LevelQuantity::CollectiveAtS: v = "T_comm at S " + time_text(l.median); break;
      case launches::LevelQuantity::RowTime: v = "time " + time_text(l.median); break;
      case launches::LevelQuantity::RingProbeW: v = "W " + rate_text(l.median, "B/s"); break;
      case launches::LevelQuantity::GemmRate: v = "C " + rate_text(l.median, "FLOP/s"); break;
    }
    out += (out.empty() ? "" : ", ") + v;
  }
  return out;
}

namespace {

using nlohmann::json;
using launches::Combined;
using launches::LaunchEstimate;

std::string num(double v) {
  if (std::isinf(v)) return "inf";
  if (v == 0) return "0";
  return std::abs(v) >= 100 ? fmt::format("{:.1f}", v) : fmt::format("{:.3g}", v);
}

std::string interval(double low, double high) { return fmt::format("[{}, {}]", num(low), num(high)); }

std::string verdict(const std::optional<stability::Verdict>& v) { return v ? stability::to_string(*v) : "-"; }

std::string pct(double log_sd) { return fmt::format("{:.1f}%", 100 * (std::exp(log_sd) - 1)); }

json number_or_null(double v) { return std::isfinite(v) ? json(v) : json(); }

json combined_json(const Combined& c, double scale = 1) {
  return {{"median", c.median * scale},
          {"ci", {c.low * scale, number_or_null(c.high * scale)}},
          {"launches", c.launches},
          {"between_share", c.between_share},
          {"within_share", c.within_share},
          {"between_sd_log", c.between_sd},
          {"within_sd_log", c.within_sd},
          {"prediction_interval", {c.predict_low * scale, number_or_null(c.predict_high * scale)}},
          {"disagreeing", c.disagreeing}};
}

// Each launch's states by name ("A", "A+B" for a launch split into two,
// "mixed"), one per launch.
std::vector<std::string> launch_states(const launches::StateSplit& s) {
  std::vector<std::string> out(static_cast<std::size_t>(s.launches));
  for (const auto& st : s.states)
    for (const std::size_t l : st.launches) out[l] += (out[l].empty() ? "" : "+") + st.name;
  for (const auto& [l, why] : s.mixed) out[l] = "mixed";
  for (auto& x : out)
    if (x.empty()) x = "-";
  return out;
}

json estimate_json(const LaunchEstimate& e, double scale = 1) {
  return {{"value", e.value * scale}, {"ci", {e.low * scale, number_or_null(e.high * scale)}},
          {"has_distribution", !e.percentiles.empty()}};
}

std::string disagreeing_text(const std::vector<std::size_t>& idx, const std::vector<LaunchEstimate>& est) {
  if (idx.empty()) return "none (every launch's own interval overlaps the next launch's as the others place it)";
  std::string out;
  for (const std::size_t i : idx)
    out += (out.empty() ? "" : "; ") + fmt::format("launch {} (its {} misses where the others place the next launch)",
                                                   i + 1, interval(est[i].low, est[i].high));
  return out;
}

std::string variance_text(const Combined& c) {
  return fmt::format("between launches {:.0f}% (sd {}), within a launch {:.0f}% (sd {})", 100 * c.between_share,
                     pct(c.between_sd), 100 * c.within_share, pct(c.within_sd));
}

json uncrossed_spread_json(const std::optional<launches::UncrossedSummary::Spread>& s) {
  if (!s) return json();
  return {{"median", s->median}, {"min", s->min}, {"max", s->max}, {"launches", s->launches}};
}

std::string uncrossed_spread_text(const std::optional<launches::UncrossedSummary::Spread>& s) {
  if (!s) return "-";
  if (s->launches == 1) return time_text(s->median);
  return fmt::format("{} [{}, {}]", time_text(s->median), time_text(s->min), time_text(s->max));
}

json sweep_launch_json(const launches::SweepLaunch& l) {
  json x = {{"path", l.info.path},         {"date", l.info.date}, {"load_average", l.info.load_average},
            {"stability", verdict(l.info.stability)}, {"stop", l.stop},     {"D", estimate_json(l.d_star)},
            {"interval_covers", "within that launch: its iterations, rounds and the states it saw"}};
  x["book"] = l.book ? estimate_json(*l.book) : json();
  return x;
}

// Launches without a crossover: their levels, the kind in the quantity's place.
void append_uncrossed_csv(std::string& out, const launches::LaunchSet& set) {
  for (std::size_t i = 0; i < set.uncrossed.size(); ++i) {
    const auto& l = set.uncrossed[i];
    const std::string launch = std::to_string(set.sweeps.size() + i + 1);
    const std::string kind = l.kind_text(" ");  // no comma inside a CSV field
    if (l.t_comm_s) out += fmt::format("no_crossover,{},{},t_comm_s,{:.6g},,\n", launch, l.info.path, *l.t_comm_s);
    if (l.floor_s) out += fmt::format("no_crossover,{},{},floor_s,{:.6g},,\n", launch, l.info.path, *l.floor_s);
    if (!l.t_comm_s && !l.floor_s) out += fmt::format("no_crossover,{},{},{},,,\n", launch, l.info.path, kind);
  }
}

// One row of a sweep combination's CSV (kind,launch,file,quantity,value,low,high).
void append_sweep_csv_row(std::string& out, const std::string& kind, const std::string& launch,
                          const std::string& file, const std::string& q, double v, double lo, double hi) {
  out += fmt::format("{},{},{},{},{:.6g},{:.6g},{}\n", kind, launch, file, q, v, lo,
                     std::isinf(hi) ? std::string("inf") : fmt::format("{:.6g}", hi));
}

// Each launch with a crossover: its D* and, where it has one, the book's D*.
void append_launch_csv_rows(std::string& out, const launches::LaunchSet& set) {
  for (std::size_t i = 0; i < set.sweeps.size(); ++i) {
    const auto& l = set.sweeps[i];
    const auto launch = std::to_string(i + 1);
    append_sweep_csv_row(out, "launch", launch, l.info.path, "D", l.d_star.value, l.d_star.low, l.d_star.high);
    if (l.book)
      append_sweep_csv_row(out, "launch", launch, l.info.path, "D_book", l.book->value, l.book->low, l.book->high);
  }
}

// Each state: its combined D* and its prediction, the launch column naming
// the state; a state that predicts no crossover: its count of launches
// without one under that quantity.
void append_state_csv(std::string& out, const launches::StateSplit& states) {
  for (const auto& st : states.states) {
    const std::string name = "state " + st.name;
    if (st.uncrossed > 0) out += fmt::format("state,{},,no_crossover_launches,{},,\n", name, st.uncrossed);
    if (st.predicts_no_crossover()) continue;
    append_sweep_csv_row(out, "state", name, "", "D", st.value.median, st.value.low, st.value.high);
    append_sweep_csv_row(out, "state_prediction", name, "", "D", st.value.median, st.predict_low, st.predict_high);
    if (st.book) append_sweep_csv_row(out, "state", name, "", "D_book", st.book->median, st.book->low, st.book->high);
  }
}

std::string settings_text(const launches::LaunchSet& set) {
  const json& s = set.settings;
  if (set.command == "sweep")
    return fmt::format("B {}, F {}, {}, {} {}, {} ranks", s.value("B", json()).dump(), s.value("F", json()).dump(),
                       s.value("datatype", std::string("?")), s.value("collective", std::string("?")),
                       s.value("impl", std::string("?")), set.ranks);
  return fmt::format("{}, {}, impl {}, {} ranks", s.value("collective", std::string("?")),
                     s.value("datatype", std::string("?")), s.value("impl", std::string("?")), set.ranks);
}

std::string row_name(const launches::CollRowKey& k) {
  return fmt::format("{} {} {} {}", k.collective, k.impl, k.in_place ? "in-place" : "out-of-place",
                     format_bytes(k.bytes));
}

std::string seen_text(const launches::LaunchState& st, int launches) {
  return fmt::format("seen in {} of {} launches, {:.0f}%{}", st.launches.size(), launches, 100 * st.share,
                     st.tentative ? ", tentative" : "");
}

// The states, one line each, the mixed launches and the prediction set.
void print_states(std::ostream& out, const launches::StateSplit& s, const std::string& x, double scale,
                  const std::string& unit) {
  const auto v = [&](double d) { return num(d * scale); };
  out << fmt::format("# states: {} ({})\n", s.states.size(), states_method(s));
  for (const auto& st : s.states) {
    if (st.predicts_no_crossover()) {
      out << fmt::format("state {} ({}): {}; no crossover in {} ({}){}; next launch: no crossover\n", st.name,
                         seen_text(st, s.launches), state_levels_text(st.levels),
                         st.crossed == 0 ? std::string("its launches")
                                         : fmt::format("{} of its {} launches or parts", st.uncrossed,
                                                       st.crossed + st.uncrossed),
                         st.no_crossover_text(),
                         st.crossed == 0 ? std::string()
                                         : fmt::format("; {} = {}{} {} in the others", x, v(st.value.median), unit,
                                                       interval(st.value.low * scale, st.value.high * scale)));
      continue;
    }
    std::string line = fmt::format("state {} ({}): {}; {} = {}{} {}; next launch {}", st.name, seen_text(st, s.launches),
                                   state_levels_text(st.levels), x, v(st.value.median), unit,
                                   interval(st.value.low * scale, st.value.high * scale),
                                   interval(st.predict_low * scale, st.predict_high * scale));
    if (st.prediction_from != "its launches") line += " (from " + st.prediction_from + ")";
    if (st.uncrossed > 0)
      line += fmt::format(" (no crossover in {} of its {} launches or parts: {})", st.uncrossed,
                          st.crossed + st.uncrossed, st.no_crossover_text());
    if (st.book) line += fmt::format("; book {} = {} {}", x, v(st.book->median), interval(st.book->low * scale, st.book->high * scale));
    out << line << "\n";
  }
  for (const auto& [l, why] : s.mixed) out << fmt::format("mixed: launch {}: {} (left out of the states)\n", l + 1, why);
  if (s.states.size() > 1) {
    std::string set;
    for (const auto& st : s.states)
      set += (set.empty() ? "" : " or ") +
             fmt::format("{} (state {}, {} of {} launches{})",
                         st.predicts_no_crossover() ? std::string("no crossover")
                                                    : x + " within " + interval(st.predict_low * scale, st.predict_high * scale),
                         st.name, st.launches.size(), s.launches, st.tentative ? ", tentative" : "");
    out << fmt::format("prediction set for the next launch: {}\n", set);
  }
}

}  // namespace

json states_json(const launches::StateSplit& s, double scale) {
  json list = json::array();
  for (const auto& st : s.states) {
    json levels = json::array();
    for (const auto& l : st.levels)
      levels.push_back({{"quantity", launches::to_string(l.quantity)},
                        {"is", launches::describe(l.quantity)},
                        {"median", l.median},
                        {"unit", launches::unit_of(l.quantity)},
                        {"spread_sd_log", l.spread_sd_log}});
    json parts = json::array();
    for (const std::size_t i : st.observations)
      parts.push_back({{"launch", s.observations[i].launch + 1}, {"share", s.observations[i].share}});
    std::vector<std::size_t> seen;
    for (const std::size_t l : st.launches) seen.push_back(l + 1);
    list.push_back({{"name", st.name},
                    {"launches_seen", st.launches.size()},
                    {"launches", seen},
                    {"share", st.share},
                    {"tentative", st.tentative},
                    {"levels", levels},
                    {"with_value", st.crossed},
                    {"no_crossover", st.uncrossed > 0 ? json(st.no_crossover_text()) : json()},
                    {"no_crossover_launches", st.uncrossed},
                    {"predicts_no_crossover", st.predicts_no_crossover()},
                    {"value", st.crossed > 0 ? combined_json(st.value, scale) : json()},
                    {"book", st.book ? combined_json(*st.book, scale) : json()},
                    {"prediction_interval", st.predicts_no_crossover()
                                                ? json()
                                                : json{st.predict_low * scale, number_or_null(st.predict_high * scale)}},
                    {"prediction_from", st.prediction_from},
                    {"parts", parts}});
  }
  json mixed = json::array();
  for (const auto& [l, why] : s.mixed) mixed.push_back({{"launch", l + 1}, {"why", why}});
  return {{"of_launches", s.launches},
          {"list", list},
          {"mixed", mixed},
          {"each_launch", launch_states(s)},
          {"material_ratio", s.material_ratio},
          {"significance", s.significance},
          {"z", s.z},
          {"method", states_method(s)}};
}

json prediction_set_json(const launches::StateSplit& s, double scale) {
  json set = json::array();
  for (const auto& st : s.states)
    set.push_back({{"state", st.name},
                   {"seen_in", st.launches.size()},
                   {"of", s.launches},
                   {"share", st.share},
                   {"tentative", st.tentative},
                   {"no_crossover", st.predicts_no_crossover()},
                   {"interval", st.predicts_no_crossover()
                                    ? json()
                                    : json{st.predict_low * scale, number_or_null(st.predict_high * scale)}}});
  return set;
}

void print_sweep_combination(std::ostream& out, const launches::LaunchSet& set, const launches::SweepCombination& c) {
  out << fmt::format("# shardroof combine: {} launches of `shardroof sweep` with the same settings ({})\n",
                     set.sweeps.size(), settings_text(set));
  out << "# each launch's D* with its own 95% interval: within that launch (its iterations, its rounds and the "
         "states it saw), not the next launch\n";
  out << fmt::format("{:>6} {:<21} {:<16} {:>9} {:<21} {:<9} {:<10} {:<26} {:<6} {}\n", "launch", "date (UTC)", "load",
                     "D*", "own interval", "stability", "stop", "book D* [own interval]", "state", "file");
  const std::vector<std::string> state_of = launch_states(c.states);
  std::vector<LaunchEstimate> est;
  for (std::size_t i = 0; i < set.sweeps.size(); ++i) {
    const auto& l = set.sweeps[i];
    est.push_back(l.d_star);
    out << fmt::format("{:>6} {:<21} {:<16} {:>9} {:<21} {:<9} {:<10} {:<26} {:<6} {}\n", i + 1, l.info.date,
                       l.info.load_average, num(l.d_star.value), interval(l.d_star.low, l.d_star.high),
                       verdict(l.info.stability), l.stop.empty() ? "-" : l.stop,
                       l.book ? num(l.book->value) + " " + interval(l.book->low, l.book->high) : std::string("-"),
                       state_of[i], l.info.path);
  }
  const Combined& d = c.d_star;
  out << "# combined over the launches (" << combine_method() << ")\n";
  out << fmt::format("D* = {} (the median of {} launches) {} (95%, across launches)\n", num(d.median), d.launches,
                     interval(d.low, d.high));
  out << "variance of log D*: " << variance_text(d) << "\n";
  out << fmt::format("next launch: D* within {} (95% prediction interval)\n", interval(d.predict_low, d.predict_high));
  out << "disagreeing: " << disagreeing_text(d.disagreeing, est) << "\n";
  if (c.book)
    out << fmt::format("book: D*_book = {} {} across launches: its interval {} the measured D* {} ({:+.0f}%)\n",
                       num(c.book->median), interval(c.book->low, c.book->high),
                       c.book_holds_measured ? "holds" : "does not hold", num(d.median),
                       100 * (c.book->median - d.median) / d.median);
  else
    out << "book: not every launch has a book D*: not combined\n";
  print_states(out, c.states, "D*", 1, "");
  print_uncrossed(out, set, c.uncrossed, c.states);
}

void print_coll_combination(std::ostream& out, const launches::LaunchSet& set, const launches::CollCombination& c) {
  out << fmt::format("# shardroof combine: {} launches of `shardroof coll` with the same settings ({})\n",
                     set.colls.size(), settings_text(set));
  out << "# per row: each launch's median time (us; its own interval is in the JSON), the combined median with its "
         "95% interval across launches, where the next launch's median falls (95% prediction interval), busbw at the "
         "combined median, and the share of the variance between launches\n";
  for (std::size_t i = 0; i < set.colls.size(); ++i)
    out << fmt::format("# launch {}: {} (load {}), {}\n", i + 1, set.colls[i].info.date, set.colls[i].info.load_average,
                       set.colls[i].info.path);
  std::string head = fmt::format("{:<12} {:<10} {:<12} {:>10}", "collective", "impl", "placement", "size");
  for (std::size_t i = 0; i < set.colls.size(); ++i) head += fmt::format(" {:>10}", fmt::format("L{} us", i + 1));
  head += fmt::format(" {:>10} {:<21} {:<21} {:>9} {:>8}  {}", "median us", "95% across launches", "next launch",
                      "busbw", "between", "disagreeing");
  out << head << "\n";
  for (const auto& r : c.rows) {
    std::string line = fmt::format("{:<12} {:<10} {:<12} {:>10}", r.key.collective, r.key.impl,
                                   r.key.in_place ? "in-place" : "out-of-place", format_bytes(r.key.bytes));
    for (const auto& l : set.colls)
      for (const auto& x : l.rows)
        if (x.key == r.key) line += fmt::format(" {:>10.2f}", x.time_s.value * 1e6);
    const double busbw = r.time_s.median > 0 ? r.busbw_factor * static_cast<double>(r.key.bytes) / r.time_s.median : 0;
    std::string dis;
    for (const auto i : r.time_s.disagreeing) dis += (dis.empty() ? "L" : ", L") + std::to_string(i + 1);
    line += fmt::format(" {:>10.2f} {:<21} {:<21} {:>9.3f} {:>7.0f}%  {}", r.time_s.median * 1e6,
                        interval(r.time_s.low * 1e6, r.time_s.high * 1e6),
                        interval(r.time_s.predict_low * 1e6, r.time_s.predict_high * 1e6), busbw / 1e9,
                        100 * r.time_s.between_share, dis.empty() ? "-" : dis);
    out << line << "\n";
  }
  for (const auto& r : c.rows) {
    out << fmt::format("# {}: ", row_name(r.key));
    print_states(out, r.states, "time", 1e6, " us");
  }
  if (!c.partial.empty())
    out << fmt::format("# {} rows not measured by every launch, not combined (first: {})\n", c.partial.size(),
                       row_name(c.partial.front()));
  out << "# busbw in GB/s, as nccl-tests (algbw x its factor) at the combined median time; " << combine_method() << "\n";
}

json sweep_combination_json(const launches::LaunchSet& set, const launches::SweepCombination& c) {
  json launches_j = json::array();
  for (const auto& l : set.sweeps) launches_j.push_back(sweep_launch_json(l));
  json out = {{"of", "sweep"},
              {"settings", set.settings},
              {"ranks", set.ranks},
              {"launches", launches_j},
              {"D", combined_json(c.d_star)},
              {"method", combine_method()}};
  out["book"] = c.book ? combined_json(*c.book) : json();
  out["book_holds_measured"] = c.book ? json(c.book_holds_measured) : json();
  out["states"] = states_json(c.states);
  out["prediction_set"] = prediction_set_json(c.states);
  out["without_crossover"] = uncrossed_json(set, c.uncrossed);
  return out;
}

void print_uncrossed(std::ostream& out, const launches::LaunchSet& set, const launches::UncrossedSummary& u,
                     const launches::StateSplit& states) {
  if (u.launches == 0) return;
  out << fmt::format("# {} of {} launches located no crossover (not in D*): each one's kind, and T_comm at S against "
                     "the GEMM's floor where its record has them\n",
                     u.launches, u.of);
  out << fmt::format("{:>6} {:<21} {:<16} {:<24} {:>12} {:>12} {:<6} {}\n", "launch", "date (UTC)", "load", "kind",
                     "T_comm at S", "GEMM floor", "state", "file");
  const std::vector<std::string> state_of = launch_states(states);
  for (std::size_t i = 0; i < set.uncrossed.size(); ++i) {
    const auto& l = set.uncrossed[i];
    const std::size_t n = set.sweeps.size() + i;
    out << fmt::format("{:>6} {:<21} {:<16} {:<24} {:>12} {:>12} {:<6} {}\n", n + 1, l.info.date,
                       l.info.load_average, l.kind_text(),
                       l.t_comm_s ? time_text(*l.t_comm_s) : "-", l.floor_s ? time_text(*l.floor_s) : "-",
                       n < state_of.size() ? state_of[n] : "-", l.info.path);
  }
  out << fmt::format("no crossover: {} of {} launches ({}); T_comm at S {}, the GEMM's floor {} (median [min, max] "
                     "over them)\n",
                     u.launches, u.of, launches::kinds_text(u.kinds), uncrossed_spread_text(u.t_comm_s), uncrossed_spread_text(u.floor_s));
}

json uncrossed_json(const launches::LaunchSet& set, const launches::UncrossedSummary& u) {
  json each = json::array();
  for (const auto& l : set.uncrossed)
    each.push_back({{"path", l.info.path},
                    {"date", l.info.date},
                    {"load_average", l.info.load_average},
                    {"stability", verdict(l.info.stability)},
                    {"kind", l.kind},
                    {"cause", l.cause},
                    {"t_comm_s", l.t_comm_s ? json(*l.t_comm_s) : json()},
                    {"floor_s", l.floor_s ? json(*l.floor_s) : json()}});
  json kinds = json::array();
  for (const auto& [kind, n] : u.kinds) kinds.push_back({{"kind", kind}, {"launches", n}});
  return {{"launches", u.launches},
          {"of", u.of},
          {"kinds", kinds},
          {"t_comm_s", uncrossed_spread_json(u.t_comm_s)},
          {"floor_s", uncrossed_spread_json(u.floor_s)},
          {"each", each},
          {"aggregation", "median, min and max over the launches without a crossover that record the value"}};
}

void print_sweep_uncombined(std::ostream& out, const launches::LaunchSet& set, const launches::UncrossedSummary& u,
                            const launches::StateSplit& states) {
  out << fmt::format("# shardroof combine: {} launches of `shardroof sweep` with the same settings ({})\n", u.of,
                     settings_text(set));
  for (std::size_t i = 0; i < set.sweeps.size(); ++i) {
    const auto& l = set.sweeps[i];
    out << fmt::format("launch {}: D* = {} {} (its own 95% interval), {}\n", i + 1, num(l.d_star.value),
                       interval(l.d_star.low, l.d_star.high), l.info.path);
  }
  print_uncrossed(out, set, u, states);
  out << fmt::format("D*: not combined: {} of {} launches located a crossover; combining needs two\n",
                     set.sweeps.size(), u.of);
  print_states(out, states, "D*", 1, "");
}

json sweep_uncombined_json(const launches::LaunchSet& set, const launches::UncrossedSummary& u,
                           const launches::StateSplit& states) {
  json launches_j = json::array();
  for (const auto& l : set.sweeps) launches_j.push_back(sweep_launch_json(l));
  return {{"of", "sweep"},
          {"settings", set.settings},
          {"ranks", set.ranks},
          {"launches", launches_j},
          {"D", json()},
          {"book", json()},
          {"without_crossover", uncrossed_json(set, u)},
          {"states", states_json(states)},
          {"prediction_set", prediction_set_json(states)},
          {"method", "D* is combined from two launches with a crossover or more; here fewer located one"}};
}

std::string sweep_uncombined_csv(const launches::LaunchSet& set, const launches::StateSplit& states) {
  std::string out = "kind,launch,file,quantity,value,low,high\n";
  append_launch_csv_rows(out, set);
  append_uncrossed_csv(out, set);
  append_state_csv(out, states);
  return out;
}

json coll_combination_json(const launches::LaunchSet& set, const launches::CollCombination& c) {
  json launches_j = json::array();
  for (const auto& l : set.colls)
    launches_j.push_back({{"path", l.info.path}, {"date", l.info.date}, {"load_average", l.info.load_average},
                          {"stability", verdict(l.info.stability)}});
  json rows = json::array();
  for (const auto& r : c.rows) {
    json per = json::array();
    for (const auto& l : set.colls)
      for (const auto& x : l.rows)
        if (x.key == r.key) per.push_back(estimate_json(x.time_s, 1e6));
    const double busbw = r.time_s.median > 0 ? r.busbw_factor * static_cast<double>(r.key.bytes) / r.time_s.median : 0;
    rows.push_back({{"collective", r.key.collective},
                    {"impl", r.key.impl},
                    {"in_place", r.key.in_place},
                    {"bytes", r.key.bytes},
                    {"time_us", combined_json(r.time_s, 1e6)},
                    {"launches_time_us", per},
                    {"busbw_GBps", busbw / 1e9},
                    {"states", states_json(r.states, 1e6)},
                    {"prediction_set_us", prediction_set_json(r.states, 1e6)}});
  }
  json partial = json::array();
  for (const auto& k : c.partial) partial.push_back(row_name(k));
  return {{"of", "coll"}, {"settings", set.settings}, {"ranks", set.ranks}, {"launches", launches_j},
          {"rows", rows},  {"rows_not_in_every_launch", partial}, {"method", combine_method()}};
}

std::string sweep_combination_csv(const launches::LaunchSet& set, const launches::SweepCombination& c) {
  std::string out = "kind,launch,file,quantity,value,low,high\n";
  append_launch_csv_rows(out, set);
  append_sweep_csv_row(out, "combined", "", "", "D", c.d_star.median, c.d_star.low, c.d_star.high);
  append_sweep_csv_row(out, "prediction", "", "", "D", c.d_star.median, c.d_star.predict_low, c.d_star.predict_high);
  if (c.book) append_sweep_csv_row(out, "combined", "", "", "D_book", c.book->median, c.book->low, c.book->high);
  append_state_csv(out, c.states);
  append_uncrossed_csv(out, set);
  return out;
}

std::string coll_combination_csv(const launches::LaunchSet& set, const launches::CollCombination& c) {
  std::string out = "kind,launch,collective,impl,in_place,bytes,time_us,low_us,high_us,busbw_GBps\n";
  for (const auto& r : c.rows) {
    const auto head = fmt::format("{},{},{},{}", r.key.collective, r.key.impl, r.key.in_place ? 1 : 0, r.key.bytes);
    for (std::size_t i = 0; i < set.colls.size(); ++i)
      for (const auto& x : set.colls[i].rows)
        if (x.key == r.key)
          out += fmt::format("launch,{},{},{:.6g},{:.6g},{:.6g},\n", i + 1, head, x.time_s.value * 1e6,
                             x.time_s.low * 1e6, x.time_s.high * 1e6);
    const double busbw = r.time_s.median > 0 ? r.busbw_factor * static_cast<double>(r.key.bytes) / r.time_s.median : 0;
    out += fmt::format("combined,,{},{:.6g},{:.6g},{:.6g},{:.6g}\n", head, r.time_s.median * 1e6, r.time_s.low * 1e6,
                       r.time_s.high * 1e6, busbw / 1e9);
    out += fmt::format("prediction,,{},{:.6g},{:.6g},{:.6g},\n", head, r.time_s.median * 1e6,
                       r.time_s.predict_low * 1e6, r.time_s.predict_high * 1e6);
    for (const auto& st : r.states.states)
      out += fmt::format("state_prediction,state {},{},{:.6g},{:.6g},{},\n", st.name, head, st.value.median * 1e6,
                         st.predict_low * 1e6,
                         std::isinf(st.predict_high) ? std::string("inf") : fmt::format("{:.6g}", st.predict_high * 1e6));
  }
  return out;
}

}  // namespace shardroof

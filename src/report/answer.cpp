#include "report/answer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "report/combine_report.h"
#include "util/units.h"

namespace shardroof {
namespace {

using bringup::Bounds;

std::string share_text(double measured, const std::optional<double>& limit, const std::string& name) {
  if (!limit || *limit <= 0) return "";
  return fmt::format(" = {:.2f}x {}", measured / *limit, name.empty() ? "the hardware's limit" : name);
}

}  // namespace

std::string count_text(double v) {
  if (!std::isfinite(v)) return "inf";
  return std::fabs(v) >= 100 ? fmt::format("{:.0f}", v) : fmt::format("{:.3g}", v);
}

std::string rate_text(double v, const std::string& unit) {
  const char* prefix[] = {"", "k", "M", "G", "T", "P"};
  int i = 0;
  while (std::fabs(v) >= 1000 && i < 5) {
    v /= 1000;
    ++i;
  }
  return fmt::format("{:.3g} {}{}", v, prefix[i], unit);
}

std::string time_text(double s) {
  if (s >= 1) return fmt::format("{:.3g} s", s);
  if (s >= 1e-3) return fmt::format("{:.3g} ms", s * 1e3);
  return fmt::format("{:.3g} us", s * 1e6);
}

std::string bounds_text(const Bounds& b) {
  return fmt::format("{}{}, {}{}", b.low ? "[" : "(", b.low ? count_text(*b.low) : "0", b.high ? count_text(*b.high) : "inf",
                     b.high ? "]" : ")");
}

AnswerBlock sweep_answer(const bringup::SweepView& s) {
  AnswerBlock a;
  const std::string x = s.swept;
  a.title = fmt::format("sweep: {} {}, {}, B={} F={}, {} ranks", s.collective, s.impl, s.datatype, count_text(s.B),
                        count_text(s.F), s.ranks);
  double lo = 0, hi = 0;
  for (const auto& p : s.points) {
    lo = lo == 0 ? p.D : std::min(lo, p.D);
    hi = std::max(hi, p.D);
  }
  // The answer.
  if (s.D) {
    a.lines.push_back(fmt::format("{}* = {} {} (95%, within this launch), {} roof{}", x, count_text(*s.D),
                                  bounds_text(s.D_interval), s.roof.empty() ? "the GEMM's" : s.roof,
                                  s.on_floor ? " (the GEMM's floor)" : ""));
  } else if (s.no_crossover_t_comm_s && s.no_crossover_floor_s) {
    a.lines.push_back(fmt::format("no crossover: T_comm {} is below the GEMM's floor {} ({}): compute-side at every {}",
                                  time_text(*s.no_crossover_t_comm_s), time_text(*s.no_crossover_floor_s),
                                  s.floor_cause.empty() ? "its cause unknown" : s.floor_cause, x));
  } else if (s.kind == "above_range") {
    a.lines.push_back(fmt::format("{}* above the range measured (> {}): communication-bound at every {} measured", x,
                                  count_text(hi), x));
  } else if (s.kind == "below_range") {
    a.lines.push_back(fmt::format("{}* below the range measured (< {}): compute-side at every {} measured", x,
                                  count_text(lo), x));
  } else {
    a.lines.push_back(fmt::format("no {}*: T_math does not cross T_comm upward ({})", x,
                                  s.kind.empty() ? "no crossover in the record" : s.kind));
  }
  // With --history: the state this launch's own ceilings place it in.
  const auto level_value = [](double v, const std::string& unit) {
    return unit == "s" ? time_text(v) : rate_text(v, unit);
  };
  for (std::size_t i = 0; i < s.history_parts.size(); ++i) {
    const auto& h = s.history_parts[i];
    const std::string part = s.history_parts.size() > 1
                                 ? fmt::format("part {} ({:.0f}% of samples, {}* {}): ", i + 1, 100 * h.share, x,
                                               h.D ? count_text(*h.D) : "-")
                                 : "";
    if (!h.state.empty() && !h.no_crossover_expected.empty())
      a.lines.push_back(fmt::format("{}state {} (seen in {} of {} launches{}): no crossover expected ({}){}", part,
                                    h.state, h.seen, h.of, h.tentative ? ", tentative" : "", h.no_crossover_expected,
                                    h.inside ? (*h.inside ? ": none here either" : ": this launch located one") : ""));
    else if (!h.state.empty())
      a.lines.push_back(fmt::format("{}state {} (seen in {} of {} launches{}): {}* expected within {}{}", part, h.state,
                                    h.seen, h.of, h.tentative ? ", tentative" : "", x, bounds_text(h.expected),
                                    h.inside ? (*h.inside ? ": inside" : ": outside") : ""));
    else if (!h.differing_is.empty())
      a.lines.push_back(fmt::format("{}a state not seen before: {} {} against {} in state {}, the nearest", part,
                                    h.differing_is, level_value(h.differing_value, h.differing_unit),
                                    level_value(h.nearest_level, h.differing_unit), h.nearest));
    else
      a.lines.push_back(part + "a state not seen before: no level in common with the history's states");
  }
  if (s.history_without_states)
    a.lines.push_back("state: --history's record has no states (an older combine record): its spread only");
  // Whether to trust it.
  std::string trust = s.stability.empty() ? "stability not tested"
                      : s.stability == "unstable"
                          ? fmt::format("unstable (T_comm in {} states)", std::max(s.comm_states, 2))
                          : "stable over the run";
  if (s.D && s.slope)
    trust += s.ill_conditioned
                 ? fmt::format("; ill-conditioned (slope {:.2f}: a change x of T_comm moves {}* by about x/{:.2f})",
                               *s.slope, x, *s.slope)
                 : fmt::format("; well-conditioned (slope {:.2f})", *s.slope);
  if (!s.complete) trust += "; the run did not finish";
  a.lines.push_back("trust: " + trust);
  // The prediction beside it.
  if (s.book) {
    std::string book = fmt::format("book: {}*_book = {}", x, count_text(*s.book));
    if (s.book_interval.low || s.book_interval.high) book += fmt::format(" {}", bounds_text(s.book_interval));
    if (s.book_holds && s.D)
      book += fmt::format(": {} the measured {}* ({:+.0f}%)", *s.book_holds ? "holds" : "does not hold", x,
                          100 * (*s.book - *s.D) / *s.D);
    if (!s.link_source.empty()) book += " (link from " + s.link_source + ")";
    a.lines.push_back(book);
  } else {
    a.lines.push_back("book: no prediction in the record");
  }
  // Past two levels: D* at each level of the algorithm that ran (the table: -v).
  if (!s.levels.empty()) {
    const bool hier = s.impl == "hier";
    std::string line = fmt::format("levels: {}* of {} when the shard spans", x, hier ? "hier" : "the ring");
    for (std::size_t i = 0; i < s.levels.size(); ++i) {
      const auto& l = s.levels[i];
      const auto& d = hier ? l.D_hier : l.D_ring;
      const auto& m = hier ? l.D_hier_model : l.D_ring_model;
      line += fmt::format("{} {} ranks {} (model {})", i ? ";" : "", l.ranks, d ? count_text(*d) : "-",
                          m ? count_text(*m) : "-");
    }
    a.lines.push_back(line);
  }
  // The limiting ceiling beside the hardware's own limit.
  if (s.compute) {
    std::string line = fmt::format("ceiling: C_peak {} per rank{}", rate_text(s.compute->measured, "FLOP/s"),
                                   share_text(s.compute->measured, s.compute->limit, s.compute->limit_name));
    if (s.W_book && *s.W_book > 0)
      line += fmt::format("; link W {}{}", rate_text(*s.W_book, "B/s"), share_text(*s.W_book, s.W_line_rate, "line rate"));
    a.lines.push_back(line);
  }
  // What to do next: the first that applies.
  const double C_share = s.compute && s.compute->limit && *s.compute->limit > 0 ? s.compute->measured / *s.compute->limit : 1;
  if (!s.complete)
    a.lines.push_back("next: run it to the end; an interrupted run's D* holds only the points it measured");
  else if (!s.kernel_warning.empty())
    a.lines.push_back("next: fix the BLAS kernel first (the default --blas-kernel auto runs the CPU's unless its "
                      "variable was set by hand): " +
                      s.kernel_warning);
  else if (C_share < 0.5)
    a.lines.push_back(fmt::format("next: C_peak is {:.2f}x the hardware's own peak: -v sets the BLAS kernel and the "
                                  "core's loops beside it",
                                  C_share));
  else if (s.stability == "unstable")
    a.lines.push_back("next: the machine changed state during the run: combine several launches (shardroof combine)");
  else if (s.D && s.ill_conditioned)
    a.lines.push_back(fmt::format("next: {}* sits where T_math hardly grows; read it as its interval, and combine "
                                  "launches before relying on it",
                                  x));
  else if (s.kind == "above_range")
    a.lines.push_back(fmt::format("next: sweep larger {} (the points end at {})", x, count_text(hi)));
  else if (!s.D && s.no_crossover_t_comm_s)
    a.lines.push_back("next: these ranks' link is faster than the GEMM's floor: no sharding along D is "
                      "communication-bound here");
  else
    a.lines.push_back("next: confirm it on another launch, or combine several (shardroof combine)");
  return a;
}

AnswerBlock coll_answer(const bringup::CollView& c) {
  AnswerBlock a;
  a.title = fmt::format("coll: {}, {}, {} ranks", c.collective, c.datatype.empty() ? "?" : c.datatype, c.ranks);
  // Each implementation at the largest size (out of place), beside the model.
  std::map<std::string, const bringup::CollRow*> largest;
  std::vector<std::string> order;
  for (const auto& r : c.rows) {
    if (r.in_place) continue;
    auto it = largest.find(r.impl);
    if (it == largest.end()) {
      order.push_back(r.impl);
      largest[r.impl] = &r;
    } else if (r.bytes >= it->second->bytes) {
      it->second = &r;
    }
  }
  if (order.empty()) {
    a.lines.push_back("no rows measured");
    return a;
  }
  const std::size_t shown = std::min<std::size_t>(order.size(), kAnswerMaxLines - 4);
  const bringup::CollRow* best = nullptr;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const bringup::CollRow& r = *largest[order[i]];
    if (!best || (r.bytes == best->bytes && r.time_s < best->time_s)) best = &r;
    if (i >= shown) continue;
    std::string line = fmt::format("{}: busbw {} at {} ({})", r.impl, rate_text(r.busbw_GBps * 1e9, "B/s"),
                                   format_bytes(r.bytes), time_text(r.time_s));
    if (r.model_busbw_GBps && *r.model_busbw_GBps > 0)
      line += fmt::format("; model {} ({:.2f}x of it)", rate_text(*r.model_busbw_GBps * 1e9, "B/s"),
                          r.busbw_GBps / *r.model_busbw_GBps);
    a.lines.push_back(line);
  }
  if (order.size() > shown) a.lines.push_back(fmt::format("... and {} more implementations (-v)", order.size() - shown));
  const std::string over = c.rounds > 0 ? fmt::format(" over {} rounds", c.rounds) : "";
  a.lines.push_back(fmt::format("trust: {}{}", c.stability.empty() ? "stability not tested"
                                               : c.stability == "unstable"
                                                   ? "unstable" + over + " (rows whose time changed state: -v)"
                                                   : c.stability + over,
                                c.wrong > 0 ? fmt::format("; WRONG RESULTS: {} elements", c.wrong) : "; results checked"));
  if (order.size() > 1 && best)
    a.lines.push_back(fmt::format("next: {} is the fastest at {}; `--impl auto` picks per size from a tuning table "
                                  "(--tune-to)",
                                  best->impl, format_bytes(best->bytes)));
  else
    a.lines.push_back("next: put the library's own beside it (--impl ring,native)");
  return a;
}

std::vector<bringup::LinkPair> slow_pairs(const bringup::LinkView& l, double& median_W) {
  std::vector<double> w;
  for (const auto& p : l.pairs)
    if (p.W) w.push_back(*p.W);
  median_W = 0;
  if (w.empty()) return {};
  std::sort(w.begin(), w.end());
  median_W = w.size() % 2 ? w[w.size() / 2] : (w[w.size() / 2 - 1] + w[w.size() / 2]) / 2;
  std::vector<bringup::LinkPair> slow;
  for (const auto& p : l.pairs)
    if (p.W && *p.W < kSlowPairShare * median_W) slow.push_back(p);
  std::sort(slow.begin(), slow.end(), [](const auto& x, const auto& y) { return *x.W < *y.W; });
  return slow;
}

AnswerBlock link_answer(const bringup::LinkView& l) {
  AnswerBlock a;
  a.title = fmt::format("link: {}, {} ranks, {} pairs", l.pattern.empty() ? "ping_pong" : l.pattern, l.ranks,
                        l.pairs.size());
  double median = 0;
  const auto slow = slow_pairs(l, median);
  if (median <= 0) {
    a.lines.push_back("no pair has a fitted W: t(n) = alpha + n/W fits none of them (-v shows each pair's times)");
    return a;
  }
  const auto [lo, hi] = std::minmax_element(l.pairs.begin(), l.pairs.end(), [](const auto& x, const auto& y) {
    return x.W.value_or(INFINITY) < y.W.value_or(INFINITY);
  });
  std::vector<double> alphas;
  for (const auto& p : l.pairs)
    if (p.alpha_s) alphas.push_back(*p.alpha_s);
  std::sort(alphas.begin(), alphas.end());
  a.lines.push_back(fmt::format("W median {} (slowest {} -> {}: {}, fastest {} -> {}: {}); alpha median {}",
                                rate_text(median, "B/s"), lo->src, lo->dst, rate_text(lo->W.value_or(0), "B/s"), hi->src,
                                hi->dst, rate_text(hi->W.value_or(0), "B/s"),
                                alphas.empty() ? "-" : time_text(alphas[alphas.size() / 2])));
  if (slow.empty()) {
    a.lines.push_back(fmt::format("slow pairs: none below {:.1f}x the median W", kSlowPairShare));
  } else {
    std::string names;
    for (std::size_t i = 0; i < std::min<std::size_t>(slow.size(), 6); ++i)
      names += fmt::format("{}{} -> {} ({:.2f}x)", i ? ", " : "", slow[i].src, slow[i].dst, *slow[i].W / median);
    if (slow.size() > 6) names += fmt::format(", and {} more", slow.size() - 6);
    a.lines.push_back(fmt::format("slow pairs (below {:.1f}x the median W): {}", kSlowPairShare, names));
  }
  for (const auto& p : l.pairs)
    if (p.line_rate && p.W && *p.line_rate > 0) {
      a.lines.push_back(fmt::format("ceiling: W = {:.2f}x the line rate ({}) on {} -> {}", *p.W / *p.line_rate,
                                    rate_text(*p.line_rate, "B/s"), p.src, p.dst));
      break;
    }
  a.lines.push_back(slow.empty() ? "next: feed this link to the model: sweep --link-from or coll's model column"
                                 : fmt::format("next: look at the slow pairs' hosts and links ({} -> {} first)",
                                               slow.front().src, slow.front().dst));
  return a;
}

AnswerBlock peak_answer(const bringup::PeakView& p) {
  AnswerBlock a;
  a.title = fmt::format("peak: {} ranks", p.ranks);
  // The slowest node per datatype: what a sharded step waits for.
  std::map<std::string, const bringup::PeakGemm*> slowest;
  std::vector<std::string> order;
  for (const auto& g : p.gemms) {
    auto it = slowest.find(g.datatype);
    if (it == slowest.end()) {
      order.push_back(g.datatype);
      slowest[g.datatype] = &g;
    } else if (g.flops_per_s < it->second->flops_per_s) {
      it->second = &g;
    }
  }
  double worst_share = 1;
  for (const auto& t : order) {
    const auto& g = *slowest[t];
    a.lines.push_back(fmt::format("{}: C {} per rank{}", t, rate_text(g.flops_per_s, "FLOP/s"),
                                  share_text(g.flops_per_s, g.limit, g.limit_name)));
    if (g.limit && *g.limit > 0) worst_share = std::min(worst_share, g.flops_per_s / *g.limit);
  }
  if (p.triad_bytes_per_s) a.lines.push_back("memory: M (triad) " + rate_text(*p.triad_bytes_per_s, "B/s") + " per rank");
  if (!p.kernel_warning.empty())
    a.lines.push_back("next: " + p.kernel_warning +
                      " (the default --blas-kernel auto runs the CPU's unless its variable was set by hand)");
  else if (worst_share < 0.5)
    a.lines.push_back(fmt::format("next: C is {:.2f}x the hardware's own peak: -v sets the BLAS kernel and the core's "
                                  "loops beside it",
                                  worst_share));
  else
    a.lines.push_back("next: these ceilings are what sweep's book uses; run the sweep");
  return a;
}

AnswerBlock predict_answer(const bringup::PredictView& p) {
  AnswerBlock a;
  const std::string x = p.swept;
  a.title = fmt::format("predict: {}, {}, {} ranks", p.collective, p.datatype, p.ranks);
  if (p.D_star) a.lines.push_back(fmt::format("{}* = {} (the book: bandwidth and latency terms)", x, count_text(*p.D_star)));
  if (p.roofline_D)
    a.lines.push_back(fmt::format("with the GEMM's roofs: {}* = {} on the {} roof", x, count_text(*p.roofline_D),
                                  p.roof.empty() ? "?" : p.roof));
  else if (!p.roofline_kind.empty())
    a.lines.push_back(fmt::format("with the GEMM's roofs: {}", p.roofline_kind));
  if (p.C && p.W)
    a.lines.push_back(fmt::format("inputs: C {} per rank, W {} one way; critical intensity C/W = {}",
                                  rate_text(*p.C, "FLOP/s"), rate_text(*p.W, "B/s"), count_text(*p.C / *p.W)));
  a.lines.push_back("next: measure it on these ranks (shardroof sweep) and put the two side by side");
  return a;
}

AnswerBlock combine_answer(const bringup::CombineView& c) {
  AnswerBlock a;
  a.title = fmt::format("combine: {} launches of {}", c.launches, c.command);
  if (c.command == "coll") {
    a.lines.push_back(fmt::format("{} rows combined across the launches, each row's states beside it (the table: -v)",
                                  c.coll_rows));
    a.lines.push_back("next: compare the next launch's rows with their prediction intervals");
    return a;
  }
  const std::string x = c.swept;
  const int crossed = c.launches - c.uncrossed;
  // What the launches without a crossover located instead: the answer
  // where most found none, a note beside D* where some did.
  std::string uncrossed;
  if (c.uncrossed > 0) {
    uncrossed = fmt::format("no crossover in {} of {} launches ({})", c.uncrossed, c.launches, c.uncrossed_kinds);
    if (c.uncrossed_t_comm_s && c.uncrossed_floor_s)
      uncrossed += fmt::format(": T_comm at S {} against the GEMM's floor {} (medians over them)",
                               time_text(*c.uncrossed_t_comm_s), time_text(*c.uncrossed_floor_s));
  }
  // The states the launches' own levels show: one line where there is one.
  const auto state_lines = [&] {
    const std::size_t shown = std::min<std::size_t>(c.states.size(), 4);
    for (std::size_t i = 0; i < shown; ++i) {
      const auto& st = c.states[i];
      const std::string answer =
          st.predicts_no_crossover ? fmt::format("no crossover ({})", st.no_crossover)
                                   : fmt::format("{}* = {} {}", x, st.value ? count_text(*st.value) : "-",
                                                 bounds_text(st.interval)) +
                                         (st.no_crossover.empty() ? "" : " (no crossover in its other launches: " +
                                                                             st.no_crossover + ")");
      if (c.states.size() == 1)
        a.lines.push_back(fmt::format("state: one, in {} of {} launches ({}){}", st.seen, st.of,
                                      state_levels_text(st.levels),
                                      st.predicts_no_crossover ? ": no crossover expected in the next launch" : ""));
      else
        a.lines.push_back(fmt::format("state {} (seen in {} of {} launches{}): {}; {}", st.name, st.seen, st.of,
                                      st.tentative ? ", tentative" : "", answer, state_levels_text(st.levels)));
    }
    if (c.states.size() > shown) a.lines.push_back(fmt::format("and {} more states (-v)", c.states.size() - shown));
    if (c.mixed > 0)
      a.lines.push_back(fmt::format("mixed: {} launch{} changed state inside and could not be split (-v)", c.mixed,
                                    c.mixed == 1 ? "" : "es"));
  };
  // One interval per state, with how often it was seen, or "no crossover"
  // for a state whose launches located none.
  const auto prediction_set = [&] {
    std::string set;
    for (const auto& st : c.states)
      set += (set.empty() ? "" : " or ") +
             fmt::format("{} ({} of {}{})",
                         st.predicts_no_crossover ? std::string("no crossover") : x + "* within " + bounds_text(st.next_launch),
                         st.seen, st.of, st.tentative ? ", tentative" : "");
    return set;
  };
  if (!c.D && c.uncrossed > 0) {
    a.lines.push_back(uncrossed);
    if (crossed == 1)
      a.lines.push_back(fmt::format("{}*: 1 launch located one ({}); combining needs two", x,
                                    c.each.front().D ? count_text(*c.each.front().D) : "-"));
    if (c.states.size() > 1) a.lines.push_back(fmt::format("next launch: {} (95%, per state)", prediction_set()));
    state_lines();
    std::string states;
    for (const auto& l : c.each) states += (states.empty() ? "" : ", ") + (l.stability.empty() ? "-" : l.stability);
    a.lines.push_back("trust: each launch: " + states);
    if (c.uncrossed_below_floor)
      a.lines.push_back("next: these ranks' link is faster than the GEMM's floor in every such launch: no sharding "
                        "along D is communication-bound here");
    else
      a.lines.push_back("next: each launch's own answer says why it located none (its -v table); sweep a wider range");
    return a;
  }
  if (c.D)
    a.lines.push_back(fmt::format("{}* = {} {} (95%, across {} launches)", x, count_text(*c.D), bounds_text(c.interval),
                                  crossed));
  if (c.uncrossed > 0) a.lines.push_back(uncrossed + ": left out of " + x + "*");
  if (c.states.size() > 1) {
    a.lines.push_back(fmt::format("next launch: {} (95%, per state)", prediction_set()));
  } else if (c.next_launch.low || c.next_launch.high) {
    a.lines.push_back(fmt::format("next launch: {}* within {} (95% prediction interval)", x, bounds_text(c.next_launch)));
  }
  state_lines();
  std::string states;
  for (const auto& l : c.each) states += (states.empty() ? "" : ", ") + (l.stability.empty() ? "-" : l.stability);
  a.lines.push_back(fmt::format("trust: variance of log {}* {}between launches; each launch: {}", x,
                                c.between_share ? fmt::format("{:.0f}% ", 100 * *c.between_share) : "",
                                states.empty() ? "-" : states));
  if (c.book)
    a.lines.push_back(fmt::format("book: {}*_book = {} {}{}", x, count_text(*c.book), bounds_text(c.book_interval),
                                  c.book_holds && c.D ? fmt::format(": {} the measured {}* ({:+.0f}%)",
                                                                    *c.book_holds ? "holds" : "does not hold", x,
                                                                    100 * (*c.book - *c.D) / *c.D)
                                                      : ""));
  else
    a.lines.push_back("book: not every launch has a book prediction");
  if (c.states.size() > 1)
    a.lines.push_back("next: the machine holds several states: a new launch's ceilings say its state (sweep --history)");
  else if (c.between_share && *c.between_share > 0.5)
    a.lines.push_back("next: launches differ more than rounds within one: more launches narrow it, longer ones do not");
  else
    a.lines.push_back("next: the next launch should land in the prediction interval; one that does not changed the "
                      "machine");
  return a;
}

AnswerBlock answer_of(const bringup::BringUp& b) {
  if (!b.combines.empty()) return combine_answer(b.combines.front());
  if (!b.sweeps.empty()) return sweep_answer(b.sweeps.front());
  if (!b.colls.empty()) return coll_answer(b.colls.front());
  if (!b.links.empty()) return link_answer(b.links.front());
  if (!b.peaks.empty()) return peak_answer(b.peaks.front());
  if (!b.predicts.empty()) return predict_answer(b.predicts.front());
  return {};
}

AnswerBlock bringup_answer(const bringup::BringUp& b) {
  AnswerBlock a;
  if (!b.combines.empty()) a = combine_answer(b.combines.front());
  else if (!b.sweeps.empty()) {
    // The last sweep that measured points (a quickstart's last launch).
    auto it = std::find_if(b.sweeps.rbegin(), b.sweeps.rend(), [](const auto& s) { return !s.points.empty(); });
    a = sweep_answer(it != b.sweeps.rend() ? *it : b.sweeps.back());
  }
  else if (!b.predicts.empty()) a = predict_answer(b.predicts.front());
  // One line each for the rest of a bring-up: the first line of its own block.
  const auto add = [&](const AnswerBlock& other) {
    if (other.lines.empty()) return;
    if (a.title.empty()) {
      a = other;
      return;
    }
    if (a.lines.size() + 1 < kAnswerMaxLines) a.lines.push_back(other.title + ": " + other.lines.front());
  };
  for (const auto& l : b.links) add(link_answer(l));
  for (const auto& c : b.colls) add(coll_answer(c));
  for (const auto& p : b.peaks) add(peak_answer(p));
  return a;
}

void print_answer(std::ostream& out, const AnswerBlock& a) {
  if (a.title.empty()) return;
  out << "# answer: " << a.title << "\n";
  for (std::size_t i = 0; i < a.lines.size() && i + 1 < kAnswerMaxLines; ++i) out << a.lines[i] << "\n";
}

}  // namespace shardroof

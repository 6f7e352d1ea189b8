// Reporters for `shardroof link`: the table on stdout and the JSON record.
// They consume measured pairs and their fits; they never measure.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "link/alpha_beta_fit.h"
#include "link/link_summary.h"
#include "hardware/line_rate.h"
#include "link/records.h"

namespace shardroof {

// One pair as reported: what was measured and the model fitted to it.
struct LinkPairResult {
  link::PairMeasurement measured;
  link::AlphaBetaFit fit;
  bool same_node = true;
  std::string src_host;
  std::string dst_host;
  // A loaded pattern's pair: the fit of the idle ping-pong of the same two ranks.
  std::optional<link::AlphaBetaFit> idle;
  // The line rate of the pair's link where the system reports one
  // (hardware/line_rate.h); nullopt in shared memory or when unknown.
  std::optional<hw::LineRate> line_rate;
  // W under load / W idle; nullopt without an idle reference or a valid fit of either.
  std::optional<double> loaded_over_idle() const;
};

link::PairFit to_pair_fit(const LinkPairResult& r);

// `pairs` entry: src, dst, src_host, dst_host, same_node, alpha_s,
// beta_s_per_byte, W_bytes_per_s (null when the fit failed), W_GBps,
// alpha_us, fit details and per-size one-way times; for a loaded pattern
// also shift (shift, ring), idle_W_bytes_per_s, idle_alpha_s and
// W_loaded_over_idle (null where either fit failed).
nlohmann::json to_json(const LinkPairResult& r);
nlohmann::json to_json(const link::LinkSummary& s);

// The loaded/idle ratios over the pairs that have one.
struct LoadRatioSummary {
  int pairs = 0;  // pairs with a ratio
  link::Spread ratio;
  link::RankPair lowest;  // the pair with the smallest ratio
};
LoadRatioSummary summarize_load(const std::vector<LinkPairResult>& all);
nlohmann::json to_json(const LoadRatioSummary& s);

// One step of a shift or ring pattern as a whole: the time for every rank's
// send and receive to finish (max over all ranks), fitted like a pair.
nlohmann::json step_json(const link::RingProbeResult& step, int shift);

// How the numbers were obtained, as the table and the JSON say it.
extern const char* const kLinkFitNote;

class LinkConsoleReporter {
 public:
  LinkConsoleReporter(std::ostream& out, int nranks) : out_(out), nranks_(nranks) {}
  // `pairs`: how many pairs (transfers, for shift and ring) the pattern measures.
  void header(const link::LinkPlan& plan, const link::Topology& topo, std::size_t pairs, std::size_t total_pairs);
  // Before a loaded pattern's idle reference rows.
  void idle_header(std::size_t pairs);
  // Before the rows of plan.pattern (after an idle reference: loaded rows).
  void columns(bool loaded);
  void row(const LinkPairResult& r);
  // Summaries by class, the loaded/idle ratios, a W matrix (and one of the
  // ratios) for small N, and the model's W and alpha.
  void footer(const std::vector<LinkPairResult>& all, const link::LinkSummary& summary,
              const std::optional<link::ModelLink>& model);

 private:
  std::ostream& out_;
  int nranks_;
  link::Pattern pattern_ = link::Pattern::PingPong;
  std::uint64_t lo_ = 0, hi_ = 0;
};

}  // namespace shardroof

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
#include "link/records.h"

namespace shardroof {

// One pair as reported: what was measured and the model fitted to it.
struct LinkPairResult {
  link::PairMeasurement measured;
  link::AlphaBetaFit fit;
  bool same_node = true;
  std::string src_host;
  std::string dst_host;
};

link::PairFit to_pair_fit(const LinkPairResult& r);

// `pairs` entry: src, dst, src_host, dst_host, same_node, alpha_s,
// beta_s_per_byte, W_bytes_per_s (null when the fit failed), W_GBps,
// alpha_us, fit details and per-size one-way times.
nlohmann::json to_json(const LinkPairResult& r);
nlohmann::json to_json(const link::LinkSummary& s);

// How the numbers were obtained, as the table and the JSON say it.
extern const char* const kLinkFitNote;

class LinkConsoleReporter {
 public:
  LinkConsoleReporter(std::ostream& out, int nranks) : out_(out), nranks_(nranks) {}
  void header(const link::LinkPlan& plan, const link::Topology& topo, std::size_t total_pairs);
  void row(const LinkPairResult& r);
  // Summaries by class, a W matrix for small N, and the model's W and alpha.
  void footer(const std::vector<LinkPairResult>& all, const link::LinkSummary& summary,
              const std::optional<link::ModelLink>& model);

 private:
  std::ostream& out_;
  int nranks_;
};

}  // namespace shardroof

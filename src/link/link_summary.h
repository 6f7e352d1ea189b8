// From per-pair fits to what a reader (and `sweep --link-from`) needs:
// summaries of the same-node and cross-node pairs, and the one W and alpha
// that stand for "the link" in the roofline model.
#pragma once

#include <string>
#include <vector>

namespace shardroof::link {

// The parts of a pair's result the summaries use.
struct PairFit {
  int src = 0;
  int dst = 0;
  bool same_node = true;
  bool valid = false;  // the fit produced a bandwidth
  double alpha_s = 0;
  double W_bytes_per_s = 0;
};

struct Spread {
  double median = 0;
  double min = 0;
  double max = 0;
};

// Median, min and max of `v` (zeros when it is empty).
Spread spread_of(std::vector<double> v);

struct ClassSummary {
  int pairs = 0;   // pairs in this class
  int fitted = 0;  // of which the fit is valid (the spreads are over these)
  Spread alpha_s;
  Spread W_bytes_per_s;
};

struct LinkSummary {
  ClassSummary same_node;
  ClassSummary cross_node;
};

LinkSummary summarize(const std::vector<PairFit>& pairs);

// W and alpha for the model: the medians over the cross-node pairs when
// there are any (on a cluster the ring's bottleneck is the network, not
// shared memory), otherwise over the same-node pairs.
struct ModelLink {
  double W_bytes_per_s = 0;
  double alpha_s = 0;
  std::string source;  // "cross_node" or "same_node"
  int pairs = 0;       // fitted pairs the medians are over
  // The link pattern the pairs were measured in (link/patterns.h): a
  // loaded pattern's W is what the link gives with every rank sending.
  std::string pattern = "pingpong";
};

// Throws RuntimeError when no pair has a valid fit.
ModelLink model_link(const std::vector<PairFit>& pairs);

// Reads a `shardroof link --json` file and returns model_link of its pairs
// (for a loaded pattern: the pairs under load) and the file's pattern
// ("pingpong" in a file that names none).
// Throws UsageError naming the file and what is wrong with it.
ModelLink load_link_fit(const std::string& path);

}  // namespace shardroof::link

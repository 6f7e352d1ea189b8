// The two-level model beside a sweep: each level's link as hier's phases
// see it, probed in the same run (sweep/two_level_probe.h), the flat ring's
// link from the whole ring's probe, and D* of both algorithms. Pure: no MPI.
#pragma once

#include <optional>
#include <vector>

#include "link/records.h"
#include "model/two_level.h"
#include "sweep/fit.h"
#include "sweep/plan.h"
#include "sweep/records.h"

namespace shardroof::sweep {

// The ring probe inside every node at once, and across the nodes on every
// local index at once (ranks that share a link out of their node share it
// here as in hier, so the inter level's W is already each flow's share).
struct TwoLevelProbes {
  int nodes = 1;
  int ranks_per_node = 1;
  link::RingProbeResult intra;
  link::RingProbeResult inter;
  // Each ring across the nodes alone (one local index at a time, the others
  // idle): one flow's rate. inter_alone is this rank's own ring's probe;
  // every rank has every ring's fit, by local index, and their wrong bytes.
  link::RingProbeResult inter_alone;
  std::vector<link::AlphaBetaFit> inter_alone_fits;
  long long inter_alone_wrong = 0;
};

struct TwoLevelAnalysis {
  model::TwoLevelShape shape;
  model::TwoLevelCeilings ceilings;  // C_peak, both levels, the flat ring's link, g
  model::TwoLevelSources sources;
  model::TwoLevelPrediction prediction;  // with C_peak
  // Each algorithm's D* with the GEMM's measured rate at each D (as the
  // book's D* of the sweep): what a measured D* is compared with.
  std::optional<PredictedCrossover> ring;
  std::optional<PredictedCrossover> hier;
};

// W_o and a_o: one flow's link between nodes, a ceiling, so the fastest of
// the measurements of one flow across the nodes: each cross-node ring alone
// (`alone`, invalid fits skipped) and the whole ring's probe (`whole_ring`,
// W 0 when it did not run) where the nodes' link is its slowest hop (W
// below `intra_bytes_per_s`). A 2-rank ring exchanges both ways on one
// connection, and a rendezvous' acknowledgement queued behind the other
// way's data can serialize the two: such a ring alone read exactly half the
// link's rate in some runs, the whole ring (its two directions on different
// pairs of ranks) never did.
model::LinkLevel one_flow_between_nodes(const std::vector<link::AlphaBetaFit>& alone,
                                        const model::LinkLevel& whole_ring, double intra_bytes_per_s);

// Empty without the probes (one node, one rank per node, or the link taken
// from --link-from).
std::optional<TwoLevelAnalysis> analyze_two_level(const SweepPlan& plan, const RunCeilings& ceilings,
                                                  const std::optional<TwoLevelProbes>& probes,
                                                  const std::vector<PointRecord>& points);

}  // namespace shardroof::sweep

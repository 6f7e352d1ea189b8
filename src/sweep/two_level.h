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

// The probes' record lives with the links (link/records.h; measured by
// link/two_level_probe.h), where coll's model column takes them too.
using link::TwoLevelProbes;

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

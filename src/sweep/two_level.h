// The two-level model beside a sweep: each level's link as hier's phases
// see it, probed in the same run (sweep/two_level_probe.h), the flat ring's
// link from the whole ring's probe, and D* of both algorithms. Pure: no MPI.
#pragma once

#include <optional>
#include <vector>

#include "link/records.h"
#include "link/two_level_links.h"
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

// W_o and a_o: one flow's link between nodes (link/two_level_links.h).
using link::one_flow_between_nodes;

// Empty without the probes (one node, one rank per node, or the link taken
// from --link-from).
std::optional<TwoLevelAnalysis> analyze_two_level(const SweepPlan& plan, const RunCeilings& ceilings,
                                                  const std::optional<TwoLevelProbes>& probes,
                                                  const std::vector<PointRecord>& points);

}  // namespace shardroof::sweep

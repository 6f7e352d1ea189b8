// The sweep past two levels: D* at each level of L nested levels
// (collectives/hierarchy_layout.h), what the step costs when a shard's
// ranks span that level (docs/hierarchy.md, "L levels"). Per level l that
// moves data (g_l > 1), over every group of that level at once:
//   measured  T_comm at S of our ring over the group's P_l ranks and of
//             hier over the levels 0..l it spans, timed interleaved;
//   model     the ring from the flat ring probe over the group
//             (2(P-1)a + 2(P-1)/P S/W + (P-1)/P E g for AllReduce), hier as
//             model/topology.h's sum over the levels 0..l with each
//             level's W and a from hier's ring probe of that level (every
//             ring at once, so its W is each flow's share: o = 1);
//   D*        where the sweep's measured T_math curve reaches each T_comm,
//             the curve's shards ceil(D_i/N) put at D = P_l * shard (the
//             same GEMM on P_l ranks), log-log between the bracketing points
//             (sweep/fit.h's crossing_of_level).
// The measured and the model's D* share the T_math curve: their ratio is
// T_comm's alone, carried through the curve's slope.
#pragma once

#include <optional>
#include <vector>

#include "link/records.h"
#include "model/two_level.h"
#include "sweep/fit.h"
#include "sweep/plan.h"
#include "sweep/records.h"
#include "timing/stats.h"

namespace shardroof::sweep {

// T_comm at S over the groups of one level (sweep::SweepRunner::measure_levels).
struct LevelComm {
  int level = 0;
  long long ranks = 1;           // P_l
  TimeStats ring;                // our ring over each group's P_l ranks
  std::optional<TimeStats> hier;  // hier over the levels 0..l (above level 0)
  long long wrong = 0;           // elements wrong after the last call, both, over all ranks
};

struct LevelMeasurements {
  link::LevelProbes probes;
  std::vector<LevelComm> comm;  // one per probed level, in the same order
};

struct LevelCrossover {
  int level = 0;
  int group_size = 1;   // g_l
  long long ranks = 1;  // P_l
  model::LinkLevel phase_link;  // hier's ring at this level, every ring at once
  model::LinkLevel span_link;   // the flat ring over a group of this level
  double t_ring_s = 0;                 // measured medians
  std::optional<double> t_hier_s;
  std::optional<double> t_ring_model_s;  // empty where a probe found no W
  std::optional<double> t_hier_model_s;
  LevelCrossing d_ring, d_hier, d_ring_model, d_hier_model;
};

struct LevelsAnalysis {
  std::vector<int> sizes;  // g_0, g_1, ..., innermost first
  std::vector<LevelCrossover> levels;
};

// Empty without measurements; pure.
std::optional<LevelsAnalysis> analyze_levels(const SweepPlan& plan, const RunCeilings& ceilings,
                                             const std::optional<LevelMeasurements>& measured,
                                             const std::vector<PointRecord>& points);

}  // namespace shardroof::sweep

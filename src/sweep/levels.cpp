#include "sweep/levels.h"

#include "model/roofline.h"
#include "model/topology.h"

namespace shardroof::sweep {
namespace {

model::LinkLevel link_of(const link::RingProbeResult& probe) {
  if (!probe.fit.valid || !(probe.fit.W_bytes_per_s > 0)) return {};
  return {probe.fit.W_bytes_per_s, probe.fit.alpha_s};
}

}  // namespace

std::optional<LevelsAnalysis> analyze_levels(const SweepPlan& plan, const RunCeilings& ceilings,
                                             const std::optional<LevelMeasurements>& measured,
                                             const std::vector<PointRecord>& points) {
  if (!measured || measured->probes.levels.empty()) return std::nullopt;
  LevelsAnalysis a;
  a.sizes = measured->probes.sizes;
  const double g = ceilings.reduce.s_per_elem;
  const model::Shape whole = model_shape(plan, 2);
  // The topology the model sums over: each level's W and a from hier's
  // ring of that level (each flow's share already: o = 1).
  model::LevelTopology topology;
  for (std::size_t l = 0; l < a.sizes.size(); ++l) {
    model::TopologyLevel level;
    level.name = "level " + std::to_string(l);
    level.group_size = a.sizes[l];
    topology.levels.push_back(level);
  }
  // The T_math curve by shard (the slowest rank's), whatever the run's N.
  std::vector<double> shard, t_math;
  for (const auto& p : points) {
    if (p.D == 0 || !(p.t_math.median > 0)) continue;
    shard.push_back(static_cast<double>(p.shard_max));
    t_math.push_back(p.t_math.median);
  }
  const bool first_is_floor = !shard.empty() && shard.front() <= 1;
  bool hier_model = true;  // every level below has a W
  for (std::size_t i = 0; i < measured->probes.levels.size() && i < measured->comm.size(); ++i) {
    const link::LevelProbe& probe = measured->probes.levels[i];
    const LevelComm& comm = measured->comm[i];
    LevelCrossover x;
    x.level = probe.level;
    x.group_size = probe.group_size;
    x.ranks = probe.ranks;
    x.phase_link = link_of(probe.phase);
    x.span_link = link_of(probe.span);
    x.t_ring_s = comm.ring.median;
    // Where no level below moves data, hier is the ring.
    x.t_hier_s = comm.hier ? comm.hier->median : x.t_ring_s;
    model::Shape shape = whole;
    shape.ranks = static_cast<int>(probe.ranks);
    if (x.span_link.bytes_per_s > 0) {
      model::Ceilings c;
      c.link_bytes_per_s = x.span_link.bytes_per_s;
      c.latency_s = x.span_link.latency_s;
      c.reduce_s_per_elem = g;
      x.t_ring_model_s = model::t_comm(shape, c);
    }
    model::TopologyLevel& level = topology.levels[static_cast<std::size_t>(probe.level)];
    level.bytes_per_s = x.phase_link.bytes_per_s;
    level.latency_s = x.phase_link.latency_s;
    hier_model = hier_model && level.bytes_per_s > 0;
    if (hier_model) {
      const model::LevelCollective c{shape.collective, shape.B * shape.F * shape.bytes_per_elem, shape.B * shape.F,
                                     g};
      x.t_hier_model_s = model::t_comm_hier(topology, probe.level, c);
    }
    // The same shards on P_l ranks: D = P_l * shard.
    std::vector<double> D = shard;
    for (double& d : D) d *= static_cast<double>(probe.ranks);
    const auto cross = [&](std::optional<double> t) {
      return t && *t > 0 ? crossing_of_level(D, t_math, *t, first_is_floor) : LevelCrossing{};
    };
    x.d_ring = cross(x.t_ring_s);
    x.d_hier = cross(x.t_hier_s);
    x.d_ring_model = cross(x.t_ring_model_s);
    x.d_hier_model = cross(x.t_hier_model_s);
    a.levels.push_back(x);
  }
  return a;
}

}  // namespace shardroof::sweep

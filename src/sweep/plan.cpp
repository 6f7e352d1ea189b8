#include "sweep/plan.h"

#include "collectives/blocks.h"

namespace shardroof::sweep {

std::string OverlapPlan::text() const {
  if (automatic) return "auto";
  if (chunks.empty()) return "1";
  std::string out;
  for (const int k : chunks) {
    if (!out.empty()) out += ',';
    out += std::to_string(k);
  }
  return out;
}

Shard shard_of(std::size_t D, int ranks, int rank) {
  const coll::BlockPartition part(D, ranks);
  return {part.offset(rank), part.size(rank)};
}

model::Collective model_collective(coll::CollectiveKind kind) {
  return kind == coll::CollectiveKind::ReduceScatter ? model::Collective::ReduceScatter
                                                     : model::Collective::AllReduce;
}

model::Shape model_shape(const SweepPlan& plan, int ranks) {
  model::Shape s;
  s.B = static_cast<double>(plan.B);
  s.F = static_cast<double>(plan.F);
  s.ranks = ranks;
  s.bytes_per_elem = static_cast<double>(coll::size_of(plan.type));
  s.collective = model_collective(plan.kind);
  return s;
}

}  // namespace shardroof::sweep

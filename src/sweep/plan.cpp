#include "sweep/plan.h"

#include <algorithm>

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
  switch (kind) {
    case coll::CollectiveKind::ReduceScatter: return model::Collective::ReduceScatter;
    case coll::CollectiveKind::AllGather: return model::Collective::AllGather;
    default: return model::Collective::AllReduce;
  }
}

std::string swept_name(const SweepPlan& plan) { return model::swept_name(plan.sharding); }

std::size_t whole_rows(const SweepPlan& plan) { return plan.fsdp() ? plan.fsdp_D : plan.B; }

std::uint64_t swept_grain(const SweepPlan& plan, int ranks) {
  return plan.fsdp() ? static_cast<std::uint64_t>(std::max(ranks, 1)) : 1;
}

model::Shape model_shape(const SweepPlan& plan, int ranks) {
  model::Shape s;
  s.sharding = plan.sharding;
  s.B = static_cast<double>(whole_rows(plan));
  s.F = static_cast<double>(plan.F);
  s.ranks = ranks;
  s.bytes_per_elem = static_cast<double>(coll::size_of(plan.type));
  s.collective = model_collective(plan.kind);
  return s;
}

}  // namespace shardroof::sweep

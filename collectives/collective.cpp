#include "collectives/collective.h"

namespace shardroof::coll {

std::string_view to_string(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::AllReduce: return "all_reduce";
    case CollectiveKind::ReduceScatter: return "reduce_scatter";
    case CollectiveKind::AllGather: return "all_gather";
  }
  return "?";
}

std::optional<CollectiveKind> parse_collective(std::string_view name) {
  if (name == "all_reduce" || name == "allreduce") return CollectiveKind::AllReduce;
  if (name == "reduce_scatter" || name == "reducescatter") return CollectiveKind::ReduceScatter;
  if (name == "all_gather" || name == "allgather") return CollectiveKind::AllGather;
  return std::nullopt;
}

double bus_bandwidth_factor(CollectiveKind kind, int nranks) {
  const double n = nranks > 0 ? nranks : 1;
  return kind == CollectiveKind::AllReduce ? 2.0 * (n - 1) / n : (n - 1) / n;
}

}  // namespace shardroof::coll

#include "model/collective_cost.h"

#include <algorithm>

#include "collectives/traits.h"

namespace shardroof::model {
namespace {

using coll::CollectiveKind;

// One term set of a ring (or a flat level of hier) on n ranks moving `bytes`:
// `steps` latencies per (n-1), `passes` times (n-1)/n of the bytes on the
// link, `reduce` times (n-1)/n of them reduced.
double ring_terms(int n, double bytes, double alpha, double W, double g, double steps, double passes,
                  double reduce) {
  if (n <= 1) return 0;
  const double f = static_cast<double>(n - 1) / n;
  return steps * (n - 1) * alpha + passes * f * bytes / W + reduce * f * bytes * g;
}

std::optional<CollCost> ring_cost(CollectiveKind kind, int n, double S, const CollLink& l) {
  switch (kind) {
    case CollectiveKind::AllReduce:
      return CollCost{ring_terms(n, S, l.alpha_s, l.W_bytes_per_s, l.g_s_per_byte, 2, 2, 1), 0,
                      "2(N-1)a + 2(N-1)/N S/W + (N-1)/N S g"};
    case CollectiveKind::ReduceScatter:
      return CollCost{ring_terms(n, S, l.alpha_s, l.W_bytes_per_s, l.g_s_per_byte, 1, 1, 1), 0,
                      "(N-1)a + (N-1)/N S/W + (N-1)/N S g"};
    case CollectiveKind::AllGather:
      return CollCost{ring_terms(n, S, l.alpha_s, l.W_bytes_per_s, 0, 1, 1, 0), 0, "(N-1)a + (N-1)/N S/W"};
    default:
      return std::nullopt;
  }
}

std::optional<CollCost> pairwise_cost(CollectiveKind kind, int n, double S, const CollLink& l) {
  if (n <= 1) return CollCost{0, 0, "0 (one rank)"};
  const double f = static_cast<double>(n - 1) / n;
  const double a = l.alpha_s, W = l.W_bytes_per_s, g = l.g_s_per_byte;
  switch (kind) {
    case CollectiveKind::AllReduce:
      return CollCost{2 * a + 2 * f * S / W + f * S * g, 0, "2a + 2(N-1)/N S/W + (N-1)/N S g"};
    case CollectiveKind::ReduceScatter:
      return CollCost{a + f * S / W + f * S * g, 0, "a + (N-1)/N S/W + (N-1)/N S g"};
    case CollectiveKind::AllGather:
      return CollCost{a + f * S / W, 0, "a + (N-1)/N S/W"};
    default:
      return std::nullopt;
  }
}

std::optional<CollCost> direct_cost(CollectiveKind kind, int n, double S, const CollLink& l) {
  if (n <= 1) return CollCost{0, 0, "0 (one rank)"};
  const double a = l.alpha_s, W = l.W_bytes_per_s, g = l.g_s_per_byte;
  switch (kind) {
    case CollectiveKind::AllReduce:
      return CollCost{a + (n - 1) * S / W + (n - 1) * S * g, 0, "a + (N-1) S/W + (N-1) S g"};
    case CollectiveKind::ReduceScatter: {
      const double f = static_cast<double>(n - 1) / n;
      return CollCost{a + f * S / W + f * S * g, 0, "a + (N-1)/N S/W + (N-1)/N S g"};
    }
    default:
      return std::nullopt;
  }
}

std::optional<CollCost> hier_cost(CollectiveKind kind, int n, int k, double S, const CollLink& l) {
  if (kind != CollectiveKind::AllReduce && kind != CollectiveKind::ReduceScatter) return std::nullopt;
  const int K = k <= 0 || k > n || n % k != 0 ? n : k;
  const int M = n / K;
  const double ao = l.inter_W_bytes_per_s > 0 ? l.inter_alpha_s : l.alpha_s;
  // Each ring across the nodes gets its share of the node's link.
  const double Wo = (l.inter_W_bytes_per_s > 0 ? l.inter_W_bytes_per_s : l.W_bytes_per_s) /
                    std::max(l.inter_ranks_per_link, 1);
  const double g = l.g_s_per_byte;
  const double piece = S / K;
  if (kind == CollectiveKind::AllReduce) {
    const double t = ring_terms(K, S, l.alpha_s, l.W_bytes_per_s, g, 2, 2, 1) +
                     ring_terms(M, piece, ao, Wo, g, 2, 2, 1);
    return CollCost{t, 0,
                    "2(K-1)a + 2(K-1)/K S/W + 2(M-1)a_o + 2(M-1)/M (S/K) R/W_o + (K-1)/K S g + (M-1)/M (S/K) g"};
  }
  const double t = ring_terms(K, S, l.alpha_s, l.W_bytes_per_s, g, 1, 1, 1) + ring_terms(M, piece, ao, Wo, g, 1, 1, 1) +
                   S * l.copy_s_per_byte;
  return CollCost{t, 0, "(K-1)a + (K-1)/K S/W + (M-1)a_o + (M-1)/M (S/K) R/W_o + (K-1)/K S g + (M-1)/M (S/K) g + S c"};
}

CollCost chain_broadcast_cost(int n, double S, std::uint64_t segments, const CollLink& l) {
  if (n <= 1) return {0, 0, "0 (one rank)"};
  const double k = static_cast<double>(std::max<std::uint64_t>(segments, 1));
  return {(n - 2 + k) * (l.alpha_s + S / k / l.W_bytes_per_s), 0, "(N-2+k)(a + S/k/W)"};
}

CollCost all_to_all_cost(int n, double S, bool in_place, const CollLink& l) {
  if (n <= 1) return {in_place ? S * l.copy_s_per_byte : 0, 0, "0 (one rank)"};
  const double f = static_cast<double>(n - 1) / n;
  double t = (n - 1) * l.alpha_s + f * S / l.W_bytes_per_s;
  if (in_place) t += S * l.copy_s_per_byte;
  return {t, 0, in_place ? "(N-1)a + (N-1)/N S/W + S c" : "(N-1)a + (N-1)/N S/W"};
}

}  // namespace

double bus_factor(coll::CollectiveKind kind, int nranks) { return coll::traits(kind).bus_factor(nranks); }

std::optional<CollCost> collective_cost(const CollCall& call, const CollLink& link) {
  if (!(link.W_bytes_per_s > 0) || call.nranks < 1) return std::nullopt;
  const int n = call.nranks;
  const double S = static_cast<double>(call.bytes);
  std::optional<CollCost> cost;
  const auto ours = [&](coll::Algorithm impl) -> std::optional<CollCost> {
    switch (call.kind) {
      case CollectiveKind::Broadcast:
        if (impl == coll::Algorithm::Ring) return chain_broadcast_cost(n, S, call.segments, link);
        return std::nullopt;
      case CollectiveKind::AllToAll:
        if (impl == coll::Algorithm::Pairwise) return all_to_all_cost(n, S, call.in_place, link);
        return std::nullopt;
      default:
        break;
    }
    switch (impl) {
      case coll::Algorithm::Ring: return ring_cost(call.kind, n, S, link);
      case coll::Algorithm::Pairwise: return pairwise_cost(call.kind, n, S, link);
      case coll::Algorithm::Direct: return direct_cost(call.kind, n, S, link);
      case coll::Algorithm::Hier: return hier_cost(call.kind, n, call.ranks_per_node, S, link);
      default: return std::nullopt;
    }
  };
  if (call.impl == coll::Algorithm::Native) {
    // The library's algorithm is its own: assume our bandwidth-optimal one.
    const bool pairwise = call.kind == CollectiveKind::AllToAll;
    cost = ours(pairwise ? coll::Algorithm::Pairwise : coll::Algorithm::Ring);
    const char* as = pairwise ? "pairwise" : call.kind == CollectiveKind::Broadcast ? "chain" : "ring";
    if (cost) cost->formula = std::string("assumed ") + as + ": " + cost->formula;
  } else {
    cost = ours(call.impl);
  }
  if (!cost) return std::nullopt;
  if (cost->time_s > 0 && S > 0) cost->busbw_bytes_per_s = S / cost->time_s * bus_factor(call.kind, n);
  return cost;
}

}  // namespace shardroof::model

#include "link/two_level_links.h"

namespace shardroof::link {

model::LinkLevel one_flow_between_nodes(const std::vector<AlphaBetaFit>& alone, const model::LinkLevel& whole_ring,
                                        double intra_bytes_per_s) {
  model::LinkLevel best;
  for (const auto& f : alone)
    if (f.valid && f.W_bytes_per_s > best.bytes_per_s) best = {f.W_bytes_per_s, f.alpha_s};
  if (whole_ring.bytes_per_s > best.bytes_per_s && whole_ring.bytes_per_s < intra_bytes_per_s) best = whole_ring;
  return best;
}

TwoLevelLinks two_level_links(const TwoLevelProbes& probes, const model::LinkLevel& whole_ring) {
  TwoLevelLinks out;
  out.intra = {probes.intra.fit.W_bytes_per_s, probes.intra.fit.alpha_s};
  out.inter = one_flow_between_nodes(probes.inter_alone_fits, whole_ring, out.intra.bytes_per_s);
  out.ranks_per_inter_link =
      model::ranks_sharing_inter_link(out.inter.bytes_per_s, probes.inter.fit.W_bytes_per_s, probes.ranks_per_node);
  return out;
}

}  // namespace shardroof::link

// Each level's link for the two-level model (model/two_level.h) from the
// two-level probes (link/two_level_probe.h): what `sweep` and `coll`'s model
// column both feed hier's formula with. Pure: no MPI.
#pragma once

#include <vector>

#include "link/records.h"
#include "model/two_level.h"

namespace shardroof::link {

// W_o and a_o: one flow's link between nodes, a ceiling, so the fastest of
// the measurements of one flow across the nodes: each cross-node ring alone
// (`alone`, invalid fits skipped) and the whole ring's probe (`whole_ring`,
// W 0 when it did not run) where the nodes' link is its slowest hop (W
// below `intra_bytes_per_s`). A 2-rank ring exchanges both ways on one
// connection, and a rendezvous' acknowledgement queued behind the other
// way's data can serialize the two: such a ring alone read exactly half the
// link's rate in some runs, the whole ring (its two directions on different
// pairs of ranks) never did.
model::LinkLevel one_flow_between_nodes(const std::vector<AlphaBetaFit>& alone, const model::LinkLevel& whole_ring,
                                        double intra_bytes_per_s);

struct TwoLevelLinks {
  model::LinkLevel intra;        // every node's ring at once
  model::LinkLevel inter;        // one flow across the nodes (one_flow_between_nodes)
  int ranks_per_inter_link = 1;  // R, from every ring across at once (model::ranks_sharing_inter_link)
};

// The levels as hier's phases see them: inside a node from the probe of
// every node's ring at once; across, one flow's link and R, how many of the
// concurrent rings share it (a whole number: the concurrent probe's own
// rate varied 4x between runs, since flows started together through one
// shaped TCP link finish unevenly and leave it partly idle, while hier's
// phase got the full share).
TwoLevelLinks two_level_links(const TwoLevelProbes& probes, const model::LinkLevel& whole_ring);

}  // namespace shardroof::link

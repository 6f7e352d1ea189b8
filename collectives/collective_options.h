// The options a collective is built with: those every algorithm of ours
// reads, and, apart, those only one algorithm reads (gloo keeps one options
// type per algorithm; ours share one factory signature through the traits
// table, so the per-algorithm parts are members that the others ignore).
#pragma once

#include <cstddef>
#include <vector>

#include "collectives/trace.h"

namespace shardroof::coll {

// Broadcast (the chain of broadcast.h, and the library's own).
struct BroadcastOptions {
  // The rank whose input every rank receives.
  int root = 0;
};

// The hierarchical collectives (hierarchical.h): the levels of
// hierarchy_layout.h, innermost first.
struct HierarchicalOptions {
  // A label of each rank's node, indexed by rank (node_layout.h): level 0.
  std::vector<int> node_of_rank;
  // For each level above the node but the outermost, innermost first, a
  // label of each rank's group at that level. Empty: two levels (the nodes,
  // and all of them).
  std::vector<std::vector<int>> group_of_rank;
};

struct CollectiveOptions {
  // Messages are cut into segments; the receive of segment k+1 is posted
  // before segment k is reduced, so the link and the reduction overlap.
  // 0 (the default): chosen from the block size (collectives/segments.h:
  // equal segments no larger than the memory's cap). Otherwise segments of
  // exactly this many bytes, rounded down to whole elements.
  std::size_t segment_bytes = 0;
  // Tag base for this collective's messages on the transport.
  int tag = 0x5200;
  // Receives this collective's spans (steps, sends, receives, reductions,
  // waits) while it records; borrowed, may be null (no tracing). A
  // collective run on another thread takes that thread's tracer.
  Tracer* tracer = nullptr;

  BroadcastOptions broadcast;
  HierarchicalOptions hier;
};

}  // namespace shardroof::coll

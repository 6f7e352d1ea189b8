#pragma once

#include <cstddef>
#include <vector>

#include "collectives/trace.h"

namespace shardroof::coll {

struct RingOptions {
  // Messages are cut into segments; the receive of segment k+1 is posted
  // before segment k is reduced, so the link and the reduction overlap.
  // 0 (the default): chosen from the block size (collectives/segments.h:
  // equal segments no larger than the memory's cap). Otherwise segments of
  // exactly this many bytes, rounded down to whole elements.
  std::size_t segment_bytes = 0;
  // Tag base for this collective's messages on the transport.
  int tag = 0x5200;
  // Broadcast: the rank whose input every rank receives.
  int root = 0;
  // Receives this collective's spans (steps, sends, receives, reductions,
  // waits) while it records; borrowed, may be null (no tracing). A
  // collective run on another thread takes that thread's tracer.
  Tracer* tracer = nullptr;
  // The hierarchical collectives (hierarchical.h): a label of each rank's
  // node, indexed by rank (node_layout.h); the others ignore it.
  std::vector<int> node_of_rank;
};

}  // namespace shardroof::coll

#pragma once

#include <cstddef>

namespace shardroof::coll {

struct RingOptions {
  // Messages are cut into segments of this many bytes (rounded down to whole
  // elements); the receive of segment k+1 is posted before segment k is
  // reduced, so the link and the reduction overlap.
  std::size_t segment_bytes = std::size_t{1} << 20;
  // Tag base for this collective's messages on the transport.
  int tag = 0x5200;
};

}  // namespace shardroof::coll

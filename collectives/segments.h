// How the segmented algorithms (ring, pairwise) cut a block into segments.
//
// A pinned size (CollectiveOptions::segment_bytes > 0) is used as given, rounded
// down to whole elements: the last segment of a block takes what is left.
//
// The automatic size (segment_bytes == 0) follows the block: the block is
// cut into the fewest equal segments no larger than the memory's segment cap
// (MemoryOps::max_segment_bytes), so no segment is a small remainder and a
// block just past a multiple of the cap does not add a nearly empty message.
// The cap comes from the memory the collective reduces in, never from a
// constant measured on one machine: on the host, a quarter of the core's L2
// cache, so that the segment being reduced, the one being received and the
// matching slices of input and output stay in L2 together.
#pragma once

#include <cstddef>

namespace shardroof::coll {

// Elements per segment for a block of `block_elements` elements of
// `element_bytes` each. `pinned_bytes` is CollectiveOptions::segment_bytes (0:
// automatic); `cap_bytes` is the memory's cap for automatic segments.
// Always at least 1.
std::size_t segment_elements(std::size_t block_elements, std::size_t element_bytes, std::size_t pinned_bytes,
                             std::size_t cap_bytes);

// Number of segments of `elements_per_segment` in a block (0 for an empty block).
inline std::size_t segment_count(std::size_t block_elements, std::size_t elements_per_segment) {
  return (block_elements + elements_per_segment - 1) / elements_per_segment;
}

// The host's cap for automatic segments: a quarter of the L2 cache of a
// core as the C library reports it, or 1 MiB where it reports none.
std::size_t host_segment_cap_bytes();

}  // namespace shardroof::coll

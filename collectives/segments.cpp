#include "collectives/segments.h"

#include <unistd.h>

#include <algorithm>

namespace shardroof::coll {

std::size_t segment_elements(std::size_t block_elements, std::size_t element_bytes, std::size_t pinned_bytes,
                             std::size_t cap_bytes) {
  const std::size_t es = std::max<std::size_t>(element_bytes, 1);
  if (pinned_bytes > 0) return std::max<std::size_t>(1, pinned_bytes / es);
  const std::size_t cap = std::max<std::size_t>(1, cap_bytes / es);
  if (block_elements <= cap) return std::max<std::size_t>(1, block_elements);
  const std::size_t parts = segment_count(block_elements, cap);
  return segment_count(block_elements, parts);  // ceil(block / parts) <= cap
}

std::size_t host_segment_cap_bytes() {
  static const std::size_t bytes = [] {
    const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return l2 > 0 ? static_cast<std::size_t>(l2) / 4 : std::size_t{1} << 20;
  }();
  return bytes;
}

}  // namespace shardroof::coll

// A pair's measurement as a flat list of doubles, for the messages that
// hand it from the ranks that measured it to every rank: per size the
// one-way median, min and max, then the wrong-byte count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "link/records.h"

namespace shardroof::link {

// Doubles in a packed pair of `sizes` sizes.
inline std::size_t packed_pair_length(std::size_t sizes) { return 3 * sizes + 1; }

inline void pack_pair(const std::vector<TimeStats>& per_size, long long wrong, double* out) {
  for (std::size_t i = 0; i < per_size.size(); ++i) {
    out[3 * i] = per_size[i].median;
    out[3 * i + 1] = per_size[i].min;
    out[3 * i + 2] = per_size[i].max;
  }
  out[3 * per_size.size()] = static_cast<double>(wrong);
}

inline PairMeasurement unpack_pair(const double* packed, const std::vector<std::uint64_t>& sizes, RankPair pair,
                                   int shift = 0) {
  PairMeasurement m;
  m.pair = pair;
  m.shift = shift;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    TimeStats t;
    t.median = packed[3 * i];
    t.min = packed[3 * i + 1];
    t.max = packed[3 * i + 2];
    m.times.push_back({sizes[i], t});
  }
  m.wrong = static_cast<long long>(packed[3 * sizes.size()]);
  return m;
}

}  // namespace shardroof::link

// `predict`'s ceiling flags as typed, parsed into the model's ceilings
// (model/roofline.h); the model itself parses no text.
#pragma once

#include <string>
#include <vector>

#include "model/roofline.h"

namespace shardroof {

// The ceiling flags' texts; empty = not given.
struct CeilingFlags {
  std::string flops;        // --flops C
  std::string bw;           // --bw W
  std::string latency;      // --latency a
  std::string memory_bw;    // --memory-bw M
  std::string reduce_rate;  // --reduce-rate 1/g
};

// Parses the given flags (UsageError on text that is not a finite number)
// and writes them over `c`; returns the names of the flags given.
std::vector<std::string> apply_ceiling_flags(const CeilingFlags& flags, model::Ceilings& c);

}  // namespace shardroof

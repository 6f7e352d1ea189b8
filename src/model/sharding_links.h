// `predict --sharding fsdp`: both sharding cases (model::Sharding) side by
// side on every link of a hardware preset: the fsdp case's crossover per
// rank, B*/N = C*s*(N-1)/(2*N*W) + (N-1)*a*C/(2*D*F), beside the contracting
// case's D* = (N-1)*s*C/W (AllReduce; the bandwidth term, in which B and F
// cancel), over NVLink and over the NIC of a GPU preset alike.
#pragma once

#include <string>
#include <vector>

#include "model/hardware.h"
#include "model/roofline.h"

namespace shardroof::model {

struct LinkCrossovers {
  std::string link;
  double W_bytes_per_s = 0;
  double latency_s = 0;
  double b_star_per_rank_bandwidth = 0;  // C*s*(N-1)/(2*N*W)
  double b_star_per_rank = 0;            // + (N-1)*a*C/(2*D*F)
  double d_star_bandwidth = 0;           // the contracting AllReduce's (N-1)*s*C/W
  double critical_intensity = 0;         // C/W
};

// Both cases on one link: `fsdp` is the fsdp shape (Shape::B holds D).
LinkCrossovers link_crossovers(const std::string& link, const Shape& fsdp, const Ceilings& c);

// Every link of `hw` with `c`'s C and M, `first` (the table's link) first;
// without a preset, or where flags replaced the link's W or a
// (`link_given`), the one link of `c`, named `first`.
std::vector<LinkCrossovers> link_crossovers(const Shape& fsdp, const Ceilings& c, const HardwarePreset* hw,
                                            const std::string& first, bool link_given);

}  // namespace shardroof::model

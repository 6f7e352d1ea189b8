#include "model/sharding_links.h"

namespace shardroof::model {

LinkCrossovers link_crossovers(const std::string& link, const Shape& fsdp, const Ceilings& c) {
  Shape contracting = fsdp;
  contracting.sharding = Sharding::Contracting;
  contracting.collective = Collective::AllReduce;
  const double n = fsdp.ranks;
  return {link,
          c.link_bytes_per_s,
          c.latency_s,
          d_star_bandwidth(fsdp, c) / n,
          d_star(fsdp, c) / n,
          d_star_bandwidth(contracting, c),
          c.link_bytes_per_s > 0 ? critical_intensity(c) : 0};
}

std::vector<LinkCrossovers> link_crossovers(const Shape& fsdp, const Ceilings& c, const HardwarePreset* hw,
                                            const std::string& first, bool link_given) {
  if (!hw || link_given) return {link_crossovers(first, fsdp, c)};
  std::vector<LinkCrossovers> out;
  for (const auto& [name, l] : hw->links) {
    Ceilings on = c;
    on.link_bytes_per_s = l.bytes_per_s;
    on.latency_s = l.latency_s;
    LinkCrossovers x = link_crossovers(name, fsdp, on);
    if (name == first)
      out.insert(out.begin(), std::move(x));
    else
      out.push_back(std::move(x));
  }
  return out;
}

}  // namespace shardroof::model

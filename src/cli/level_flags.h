// `predict --level SPEC` (repeatable, innermost first): one level of an
// L-level topology (model/topology.h) from a flag, as a topology file's
// [[levels]] table says it.
//   G:LINK[:O]   G groups of the level below, over LINK of --hw (its W and
//                latency), O the oversubscription (default 1)
//   G:W:A[:O]    the same with W (bytes/s, one way, per link) and A
//                (seconds per message) given
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/topology.h"

namespace shardroof {

// Throws UsageError naming the flag and what is wrong. `index` is the
// level's place (0 = innermost); a level of numbers is named "level INDEX".
model::TopologyLevel parse_level_flag(std::string_view text, int index);

// The topology of the --level flags, innermost first (origin "--level").
model::LevelTopology topology_of_level_flags(const std::vector<std::string>& flags);

}  // namespace shardroof

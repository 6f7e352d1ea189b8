// The one JSON form of a time statistic in every record: {median, min, max}
// in seconds (the aggregation every command states: per-iteration max over
// ranks, then these over iterations).
#pragma once

#include <nlohmann/json.hpp>

#include "timing/stats.h"

namespace shardroof {

nlohmann::json time_stats_json(const TimeStats& t);

}  // namespace shardroof

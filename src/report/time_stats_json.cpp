#include "report/time_stats_json.h"

namespace shardroof {

nlohmann::json time_stats_json(const TimeStats& t) { return {{"median", t.median}, {"min", t.min}, {"max", t.max}}; }

}  // namespace shardroof

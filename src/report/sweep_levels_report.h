// The sweep's D* at each level of L nested levels (sweep/levels.h) as text
// and JSON: each level's T_comm at S measured and modelled, for our ring
// and hier, and the D* each puts on the run's measured T_math curve.
#pragma once

#include <ostream>

#include <nlohmann/json.hpp>

#include "sweep/levels.h"

namespace shardroof {

void print_sweep_levels(std::ostream& out, const sweep::LevelsAnalysis& levels);
// Each level's probes, size by size (behind -v).
void print_sweep_level_probes(std::ostream& out, const sweep::LevelMeasurements& measured);
// The record's "levels": the sizes, how the numbers were made, and a row per level.
nlohmann::json sweep_levels_json(const sweep::LevelsAnalysis& levels, const sweep::LevelMeasurements& measured);

}  // namespace shardroof

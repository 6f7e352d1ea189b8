// `sweep --model-hw PRESET --model-link LINK`: the report of the comparison
// model/preset_target.h computes (the sweep's shapes on a hardware preset,
// and a hybrid of this machine's compute with the preset's link).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

#include "model/preset_target.h"
#include "model/roofline.h"

namespace shardroof {

// A few lines: D* of each, and the predicted T_math/T_comm split per D.
void print_preset_comparison(std::ostream& out, const ModelHardware& target, const model::PresetComparison& cmp);

nlohmann::json preset_comparison_json(const ModelHardware& target, const model::PresetComparison& cmp);

}  // namespace shardroof

// `sweep --model-hw PRESET --model-link LINK`: the sweep's shapes on a
// hardware preset, and a hybrid that keeps this machine's measured compute
// (C_peak, M, g) and swaps in the preset's link (W, alpha). The numbers come
// from model::compare_with_preset; this file resolves the flags and reports.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "model/hardware.h"
#include "model/roofline.h"

namespace shardroof {

struct ModelHardware {
  model::HardwarePreset hw;
  std::string link;      // the preset's link used
  std::string datatype;  // the sweep's datatype
  model::Ceilings ceilings;
};

// Resolves --model-hw/--model-link for the sweep's datatype; nullopt when
// --model-hw is empty. Throws UsageError (unknown preset or link, a
// datatype the preset lists no FLOP/s for, --model-link without
// --model-hw). Call it inside run_agreed.
std::optional<ModelHardware> resolve_model_hardware(const std::string& hw, const std::string& link,
                                                    const std::string& datatype);

// The three predictions (measured, preset, hybrid) at the sweep's D values.
model::PresetComparison compare_sweep_with_preset(const model::Shape& shape, const model::Ceilings& measured,
                                                  const ModelHardware& target, const std::vector<std::uint64_t>& D);

// A few lines: D* of each, and the predicted T_math/T_comm split per D.
void print_preset_comparison(std::ostream& out, const ModelHardware& target, const model::PresetComparison& cmp);

nlohmann::json preset_comparison_json(const ModelHardware& target, const model::PresetComparison& cmp);

}  // namespace shardroof

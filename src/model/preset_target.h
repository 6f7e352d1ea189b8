// `sweep --model-hw PRESET --model-link LINK`: the sweep's shapes on a
// hardware preset, and a hybrid that keeps this machine's measured compute
// (C_peak, M, g) and swaps in the preset's link (W, alpha). This file
// resolves the flags to a preset and computes the three predictions
// (model::compare_with_preset); report/preset_report.h formats them.
#pragma once

#include <cstdint>
#include <optional>
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

}  // namespace shardroof

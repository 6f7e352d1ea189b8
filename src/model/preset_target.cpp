#include "model/preset_target.h"

#include <fmt/format.h>

#include "util/error.h"

namespace shardroof {

std::optional<ModelHardware> resolve_model_hardware(const std::string& hw, const std::string& link,
                                                    const std::string& datatype) {
  if (hw.empty()) {
    if (!link.empty()) throw_usage("--model-link: needs --model-hw (the preset whose links it names)");
    return std::nullopt;
  }
  ModelHardware target;
  try {
    target.hw = model::load_hardware_preset(hw);
    target.link = target.hw.link(link).name;
    target.datatype = datatype;
    target.ceilings = model::preset_ceilings(target.hw, target.link, datatype);
  } catch (const UsageError& e) {
    // The loader names the flags of `predict`; say which flags of sweep.
    throw UsageError(fmt::format("--model-hw {}{}: {}", hw, link.empty() ? "" : " --model-link " + link, e.what()));
  }
  return target;
}

model::PresetComparison compare_sweep_with_preset(const model::Shape& shape, const model::Ceilings& measured,
                                                  const ModelHardware& target, const std::vector<std::uint64_t>& D) {
  std::vector<double> Ds(D.begin(), D.end());
  return model::compare_with_preset(shape, measured, target.ceilings, Ds);
}

}  // namespace shardroof

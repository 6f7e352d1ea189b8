// `predict --topology NAME|FILE` (or --level ...): the L-level model
// (model/topology.h) per level as text and JSON. It formats a plain record
// (LevelsView) that the command builds from the model; it never measures.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "model/topology.h"

namespace shardroof {

struct LevelsView {
  model::LevelTopology topology;  // links resolved
  model::LevelShape shape;
  std::string datatype;
  std::string chip;               // "h100 (configs/hardware/h100.toml)" or "--flops"
  std::vector<model::LevelPrediction> levels;
};

void print_levels(std::ostream& out, const LevelsView& v);
// The record: {"topology": {...}, "levels": [...]}.
nlohmann::json levels_document(const LevelsView& v);

}  // namespace shardroof

// How a stability verdict (stability/stability.h) reads: one console line
// (what changed, by how much and when) and its JSON record. Shared by
// `sweep` (T_comm over the run, the reference GEMM) and `coll` (each size,
// and the whole run).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "stability/stability.h"

namespace shardroof {

// Names a window's label for the text ("D = 11", "4 MiB"); empty: unnamed.
using LabelText = std::function<std::string(std::uint64_t)>;
// Formats a level's value ("0.36 ms", "1.02x").
using ValueText = std::function<std::string(double)>;

// "stable: one distribution over ...", "drift: ...", "UNSTABLE: <what>
// changed 4.1x during the run: 0.36 ms until 1.2 s (D = 11), 1.46 ms after".
std::string stability_text(const stability::Stability& s, const std::string& what, const ValueText& value,
                           const LabelText& label);

// {verdict, levels: [{median, begin_s, end_s, samples, labels}], states:
// [{median, samples, share}], max_ratio, material_ratio, change_points,
// p_values, blocks, block_samples, samples, median, method}.
nlohmann::json stability_json(const stability::Stability& s);

// How a verdict is reached, in words, from the options and the block limit
// that reach it.
std::string stability_method(const stability::ChangePointOptions& options = {},
                             std::size_t max_blocks = stability::kMaxBlocks);

}  // namespace shardroof

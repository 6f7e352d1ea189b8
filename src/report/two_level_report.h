// The two-level model's verdict (model/two_level.h) as text and JSON, for
// `predict` (links from presets) and `sweep` (links probed in the run).
#pragma once

#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "model/two_level.h"
#include "sweep/analysis.h"
#include "sweep/two_level.h"

namespace shardroof {

void print_two_level(std::ostream& out, const model::TwoLevelShape& shape, const model::TwoLevelCeilings& c,
                     const model::TwoLevelPrediction& p, const model::TwoLevelSources& sources);

nlohmann::json two_level_json(const model::TwoLevelShape& shape, const model::TwoLevelCeilings& c,
                              const model::TwoLevelPrediction& p, const model::TwoLevelSources& sources);
// The record's "two_level" (two_level_json).
void add_two_level_json(nlohmann::json& doc, const model::TwoLevelShape& shape, const model::TwoLevelCeilings& c,
                        const model::TwoLevelPrediction& p, const model::TwoLevelSources& sources);

// Sweep: each algorithm's D* with the GEMM's rate at each D, and the
// measured D* of the implementation that ran (`impl`) against the
// prediction of its algorithm (hier: hier's; every other, native included:
// the flat ring's).
void print_two_level_crossovers(std::ostream& out, const sweep::TwoLevelAnalysis& two,
                                const sweep::SweepAnalysis& analysis, const std::string& impl);

// Each level's probe, size by size: the step's median (min, max) over
// iterations and each transfer's median, so a W that reads low shows where.
void print_two_level_probes(std::ostream& out, const sweep::TwoLevelProbes& probes);
nlohmann::json two_level_probes_json(const sweep::TwoLevelProbes& probes);
// One ring probe, size by size (`level` names it on each line).
void print_ring_probe(std::ostream& out, const std::string& level, const link::RingProbeResult& r);
nlohmann::json ring_probe_json(const link::RingProbeResult& r);

nlohmann::json two_level_sweep_json(const sweep::TwoLevelAnalysis& two, const sweep::SweepAnalysis& analysis,
                                    const std::string& impl);

}  // namespace shardroof

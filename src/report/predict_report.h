// The report of `shardroof predict`: the console lines and table, the JSON
// record and the preset list. It formats a plain record (PredictView) that
// the command builds from the model; it never measures.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "model/collective_cost.h"
#include "model/hardware.h"
#include "model/pipeline.h"
#include "model/regimes.h"
#include "model/roofline.h"
#include "model/sharding_links.h"

namespace shardroof {

struct PredictView {
  model::Shape shape;
  model::Ceilings ceilings;
  std::string datatype;
  std::string hw_arg;                   // --hw as given
  std::optional<model::HardwarePreset> hw;
  std::string link_name;                // of the preset, when there is one
  std::vector<std::string> overridden;  // flags that replaced preset values
  model::Prediction prediction;
  // The regimes: the GEMM's floor (max of the memory roof at a shard of one
  // column and the per-call overhead), the roof model's crossover with the
  // model's T_comm, and each point's regime (T_math = the largest roof).
  model::GemmFloor floor;
  model::RoofCrossover roofline;
  std::vector<model::Regime> regimes;
  // predict --overlap K|auto: the chunked pipeline (model/pipeline.h) at
  // D* and at each D of the table, and the step's efficiency each way.
  struct Overlap {
    model::ChunkChoice choice;
    model::OverlapOutlook outlook;
    std::vector<int> chunks;           // per point of the table
    std::vector<double> t_overlap_s;   // per point: the pipeline's T_overlap
    double t_overlap_at_d_star_s = 0;
    double t_no_overlap_at_d_star_s = 0;
  };
  std::optional<Overlap> overlap;
  // predict --sharding fsdp: each link's crossovers, both cases side by
  // side (every link of the preset, the table's first).
  std::vector<model::LinkCrossovers> links;
};

// The overlap part of a view from the model (predict --overlap).
PredictView::Overlap predict_overlap(const model::Shape& shape, const model::Ceilings& c,
                                     const model::ChunkChoice& choice, const std::vector<double>& D_values);

void print_predict_report(std::ostream& out, const PredictView& v);
nlohmann::json predict_json(const PredictView& v);
// `predict --coll NAME`: the busbw each of our implementations' cost
// formulas expects for one collective, rank count and link, over a few
// sizes, beside the figures the preset publishes for it.
struct CollBusbwRow {
  std::string impl;
  std::uint64_t bytes = 0;
  model::CollCost cost;
};
struct CollBusbwView {
  std::string collective;
  int ranks = 0;
  std::string link_text;  // "h200 nvlink: W 450 GB/s, a 3.4 us"
  double W_bytes_per_s = 0;
  std::vector<CollBusbwRow> rows;
  std::vector<model::PublishedCollective> published;  // those of this collective and rank count
};
void print_coll_busbw(std::ostream& out, const CollBusbwView& v);
nlohmann::json coll_busbw_json(const CollBusbwView& v);
// `predict --coll`'s record: {"coll": coll_busbw_json}.
nlohmann::json coll_busbw_document(const CollBusbwView& v);

void print_preset_list(std::ostream& out, const std::vector<model::HardwarePreset>& presets);

}  // namespace shardroof

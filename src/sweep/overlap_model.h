// sweep --overlap against the pipeline model (model/pipeline.h): parsing
// --overlap (K, a list of K, auto), auto's choice of K at a point, and each
// chunked step's prediction, efficiency and the parts of its gap. Pure: no
// MPI; the runner measures what these read (sweep/records.h, OverlapRun).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "collectives/collective.h"
#include "model/pipeline.h"
#include "model/roofline.h"
#include "sweep/plan.h"
#include "sweep/records.h"

namespace shardroof::sweep {

// --overlap: "K" (1: none), "K1,K2,..." (each timed at every point; 1s
// dropped) or "auto". Every K is checked against the chunk plan's bound
// (validate_chunks). Throws UsageError naming --overlap.
OverlapPlan parse_overlap(const std::string& text, std::size_t B, std::size_t F, int ranks,
                          coll::CollectiveKind kind);

// The largest K auto weighs at this shape: the chunk plan's bound
// (max_chunks), at most model::kAutoMaxChunks. The chunked step allocates
// nothing per chunk (every chunk computes into and reduces from the one
// partial-sum buffer), so the run's memory budget does not lower it.
std::uint64_t auto_chunk_bound(std::size_t B, std::size_t F, int ranks, coll::CollectiveKind kind);

// Each chunk's collective from the link model, for chunks of `elements`.
// Without a link (W = 0: one rank, or no probe) the measured T_comm is cut
// in proportion instead, with no latency paid again.
std::vector<double> link_chunk_times(const model::Shape& shape, const std::optional<model::Ceilings>& link,
                                     double t_comm, const std::vector<double>& elements);

// auto at one point: the candidates' T_overlap from one chunk's measured
// GEMM at each K (`gemm_at_K`: (K, seconds), K > 1; chunks equal to a row)
// and the link model, K = 1 as the plain step T_math + T_comm (the link
// model's T_comm, so every candidate is weighed on the same collective),
// and the fewest chunks within model::kAutoMargin of the best.
// The pipeline includes the interference measured at the point.
OverlapChoiceRecord choose_overlap(const model::Shape& shape, const std::optional<model::Ceilings>& link,
                                   double t_math, double t_comm,
                                   const std::vector<std::pair<int, double>>& gemm_at_K,
                                   const model::Interference& interference = {});

// The point's interference (1, 1 without a concurrent step).
model::Interference point_interference(const PointRecord& p);

// One chunked step against the model.
struct OverlapRunAnalysis {
  int chunks = 0;
  model::PipelinePrediction model;
  model::GapParts gap;
  bool stamped = false;              // the step's stamps were there (gap is meaningful)
  std::optional<double> efficiency;  // against the pipeline's ideal (model::pipeline_efficiency)
  double model_error = 0;            // (T_model - T_overlap measured) / T_overlap measured
  double predicted_error = 0;        // the same for t_predicted (with the interference)
  model::Interference interference;  // the point's, as applied
};

OverlapRunAnalysis analyze_overlap_run(const model::Shape& shape, const std::optional<model::Ceilings>& link,
                                       const PointRecord& p, const OverlapRun& run);
std::vector<OverlapRunAnalysis> analyze_overlap_runs(const model::Shape& shape,
                                                     const std::optional<model::Ceilings>& link,
                                                     const PointRecord& p);

// How the plan chunks for the step-efficiency outlook (model::overlap_outlook):
// auto, or the first K of the list.
model::ChunkChoice chunk_choice(const OverlapPlan& overlap, std::size_t B, std::size_t F, int ranks,
                                coll::CollectiveKind kind);

}  // namespace shardroof::sweep

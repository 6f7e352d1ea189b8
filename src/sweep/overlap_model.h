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

// The GEMM's slowdown from a run's transport CPU (model::cpu_interference
// with the node's CPUs per rank, the GEMM's threads, TransportCpu::cores).
model::Interference transport_interference(const TransportCpu& cpu);

// One chunked step against the model.
struct OverlapRunAnalysis {
  int chunks = 0;
  model::PipelinePrediction model;
  model::GapParts gap;
  bool stamped = false;              // the step's stamps were there (gap is meaningful)
  std::optional<double> efficiency;  // against the pipeline's ideal (model::pipeline_efficiency)
  double model_error = 0;            // (T_model - T_overlap measured) / T_overlap measured
  double predicted_error = 0;        // the same for t_predicted (with the interference)
  // The interference the prediction applies: on the CPU the GEMM slowed by
  // the transport's CPU share (source "cpu": model::cpu_interference of the
  // run's TransportCpu; with the collectives timed beside busy cores,
  // model::cpu_interference_beside per chunk, and here over all chunks);
  // without that record the unchunked step's GEMM and collective run
  // together ("measured"), or none ("none").
  model::Interference interference;
  std::string interference_source = "none";
  // Where the collectives' slowdown comes from: "busy cores" where the
  // rounds timed each chunk's collective beside busy cores (the prediction
  // takes them chunk by chunk, model::pipeline_time_beside, and
  // interference.comm is their model::busy_slowdown, shown, not applied
  // as one factor); else interference_source.
  std::string comm_source = "none";
  // The check: the interference measured on the unchunked step run
  // together, and the prediction with it instead.
  std::optional<model::Interference> measured_interference;
  std::optional<double> t_predicted_measured;
  // The share of the hideable time (T_step - max(T_math, T_comm)) the step
  // hid, measured and predicted (empty below kMinHideableFraction of T_step).
  std::optional<double> hidden;
  std::optional<double> hidden_predicted;
  // The longer side of the pipeline, "collective" or "gemm" (the chunks'
  // collectives and GEMMs, each alone), and the largest part of
  // t_predicted - t_ideal, what keeps the step furthest from the ideal
  // pipeline: "cpu" (the interference: on the CPU, the cores the transport
  // shares with the GEMM), "per-chunk collectives" (the latency paid again
  // and the chunks' collectives alone beyond T_comm's shares) or "thinner
  // GEMMs"; empty where none of them costs anything.
  std::string bound;
  std::string limit;
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

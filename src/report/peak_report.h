// The report of `shardroof peak`: each node's record as JSON (made on the
// node, gathered by every rank as text) and the console tables made from
// the gathered records. It formats; it never measures.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "collectives/types.h"
#include "ceilings/records.h"
#include "timing/stats.h"

namespace shardroof {

// One datatype's GEMMs on one rank: the large one and the thin ones.
struct PeakGemm {
  coll::DataType type = coll::DataType::Float;
  std::string arithmetic;
  GemmRate big;
  double node_flops_per_s = 0;  // the sum over the node's ranks
  std::vector<GemmRate> thin;
  std::optional<hw::ComputeLimit> limit;  // the hardware's own peak per rank for this datatype
};

struct PeakMemory {
  std::string space;  // "host memory" or "device memory"
  MemoryBandwidth rate;
  double node_copy_bytes_per_s = 0, node_triad_bytes_per_s = 0, min_rank_triad_bytes_per_s = 0;
};

// What the tables are headed with.
struct PeakView {
  std::vector<coll::DataType> types;
  std::size_t size = 0;
  std::vector<std::uint64_t> k;
  std::string backend;
};

// One node's measurements so far, made by the node's first rank.
struct PeakNode {
  std::string host;
  int ranks = 0;
  std::vector<PeakGemm> gemm;
  std::optional<PeakMemory> memory;
  std::vector<ReduceRate> reduction;
};

// The record's opening fields: ranks, settings, aggregation.
nlohmann::json peak_document_json(int ranks, const nlohmann::json& settings);
// A node's record as text, gathered across nodes as it is (every rank
// gathers every node's text; a rank that is not its node's first gives "").
std::string peak_node_text(const PeakNode& n);
// The document's results from the gathered node texts (empty ones are not
// nodes): "nodes" and whether the run is "complete".
void set_peak_nodes_json(nlohmann::json& doc, const std::vector<std::string>& gathered, bool complete);

// The record's "hardware": the hardware's own limits (report/hardware_report.h).
void set_peak_hardware_json(nlohmann::json& doc, const HardwareLimits& hardware, const std::vector<coll::DataType>& types);

nlohmann::json peak_settings_json(const std::string& datatypes, const PeakView& v, std::size_t memory_elements,
                                  std::size_t reduce_elements, int threads, const TimingPlan& timing);
nlohmann::json peak_gemm_json(const PeakGemm& g);
nlohmann::json peak_memory_json(const PeakMemory& m);
nlohmann::json peak_reduction_json(const ReduceRate& r);

// The tables, from the gathered per-node records (peak_*_json's shape),
// with the hardware's own limits beside them.
void print_peak(std::ostream& out, const PeakView& v, const nlohmann::json& nodes, const HardwareLimits& hardware);

}  // namespace shardroof

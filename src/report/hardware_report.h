// Every measured ceiling beside the hardware's own limit (ceilings/records.h
// HardwareLimits): the CPU and its BLAS kernel, the core's FMA peak, the
// GPU's spec, the links' line rates. Text for the console and the record's
// JSON; plain records in, nothing measured here.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "ceilings/records.h"
#include "collectives/types.h"
#include "hardware/line_rate.h"

namespace shardroof {

// The header's lines ("# " included, each ending in a newline): the CPU
// and BLAS kernel (CPU backend) or the GPU, the hardware's peaks for
// `types`, and a WARNING naming the cause and the fix where the kernel
// computes below the CPU or the GPU runs far below its clock.
std::string hardware_header_text(const HardwareLimits& h, const std::vector<coll::DataType>& types);

// The warnings alone, one line each, for the end of a run (the summary
// repeats what the header said).
std::vector<std::string> hardware_warnings(const HardwareLimits& h, const std::vector<coll::DataType>& types);

// peak --blas-coretype's two lines: the OPENBLAS_CORETYPE that fixes a
// kernel below the CPU for the first of `types` where one does ('-' where
// none is needed or none helps), then the verdict in words.
std::string blas_coretype_text(const HardwareLimits& h, const std::vector<coll::DataType>& types);

// " = 0.88x this core's AVX-512 FMA peak (118.2 GFLOP/s: 32.0 FLOP/cycle x
// 3.69 GHz x 1 thread)"; "" without a limit.
std::string compute_share_text(double flops_per_s, const std::optional<hw::ComputeLimit>& limit);

// The measured g beside the core's bound (hardware/limits.h); "" without one.
std::string reduce_share_text(double s_per_elem, const HardwareLimits& h, coll::DataType type);

// The ring probe's W beside the line rate of the ranks' links:
// "line rate 1 Gbit/s = 0.125 GB/s (eth0, SHARDROOF_LINE_RATE=1gbit): W = 0.94x of it",
// or "no line rate: the ranks share one host (their link is memory)".
std::string ring_line_rate_text(const hw::RingLineRate& r, double W_bytes_per_s);
// One pair's W beside its line rate: "0.94x of 1 Gbit/s (eth0)"; "" when none.
std::string pair_line_rate_text(const std::optional<hw::LineRate>& r, double W_bytes_per_s);

// The record's "hardware": the CPU, its ISA, the BLAS verdict per datatype,
// the core's loops (or the GPU), and each datatype's peak per rank.
nlohmann::json hardware_json(const HardwareLimits& h, const std::vector<coll::DataType>& types);
// A command's record: "hardware" (hardware_json) and the BLAS verdict for
// the first of `types` in its environment.blas.
void add_hardware_json(nlohmann::json& doc, const HardwareLimits& h, const std::vector<coll::DataType>& types);
nlohmann::json line_rate_json(const std::optional<hw::LineRate>& r, double W_bytes_per_s);
nlohmann::json ring_line_rate_json(const hw::RingLineRate& r, double W_bytes_per_s);

}  // namespace shardroof

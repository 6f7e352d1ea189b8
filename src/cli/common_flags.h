// The flags several commands share, declared once with one wording and one
// validation: timing (-w/--warmup/--warmup_iters, -n/--iters), the result
// check (-c/--check), compute (-d/--datatype, --backend, --threads, --tf32)
// and output (--json, --csv, --trace). A command declares only the ones it
// takes; their defaults are its own (the values its docs/commands page and,
// for sweep, configs/default.toml state).
//
// nccl-tests spells the warm-up `-w, --warmup_iters`; our long name is
// `--warmup`. Both are accepted everywhere (and both as config-file keys).
#pragma once

#include <CLI/CLI.hpp>

#include <initializer_list>
#include <string>

#include "collectives/types.h"
#include "util/comm_kinds.h"
#include "timing/stats.h"

namespace shardroof {

struct TimingFlags {
  int warmup = 0;
  int iters = 1;
};
void add_timing_flags(CLI::App& app, TimingFlags& flags);
// The per-iteration timing plan; UsageError for fewer than 1 iteration or
// a negative warm-up.
TimingPlan timing_plan(const TimingFlags& flags);

// -c, --check: 1 checks results after timing, 0 does not.
void add_check_flag(CLI::App& app, int& check);
// --segment-bytes of the segmented collectives (ring, pairwise), one text
// for every command: a size, or auto (cli/values.h parse_segment_bytes).
void add_segment_bytes_flag(CLI::App& app, std::string& segment_bytes);
bool check_enabled(int check);

struct ComputeFlags {
  std::string datatype = "float";
  std::string backend = "cpu";
  int threads = 1;
  int tf32 = 0;
  std::string blas_kernel = "auto";  // read before MPI_Init (hardware/blas_choice.h); checked here
};
// -d, --datatype, listing `choices` in its help ("float | double").
void add_datatype_flag(CLI::App& app, std::string& datatype, std::initializer_list<coll::DataType> choices);
void add_datatype_flag(CLI::App& app, std::string& datatype, const std::string& choices);
void add_backend_flag(CLI::App& app, std::string& backend);
// --threads, --tf32 and --blas-kernel: the GEMM's settings.
void add_gemm_flags(CLI::App& app, ComputeFlags& flags);
// UsageError unless `text` names one of `choices`.
coll::DataType datatype_flag(const std::string& text, std::initializer_list<coll::DataType> choices);
Backend backend_flag(const std::string& text);
// --threads at least 1; --tf32 0 or 1, and 1 only on `backend` cuda;
// --blas-kernel auto, keep or a kernel of the linked BLAS.
void check_gemm_flags(const ComputeFlags& flags, Backend backend);

// --ranks-per-node K (coll, sweep): K consecutive ranks form a node (hier's
// two levels, emulated nodes); 0, the default: the ranks that share memory.
// util/topology.h checks that K divides the ranks.
void add_ranks_per_node_flag(CLI::App& app, int& ranks_per_node);
// --levels g1,g2,... (coll): levels of groups above the node for hier,
// innermost first; util/topology.h checks that they multiply to the nodes.
void add_levels_flag(CLI::App& app, std::string& levels);

struct OutputFlags {
  std::string json;
  std::string csv;
  std::string trace;
};
void add_json_flag(CLI::App& app, OutputFlags& flags);
void add_csv_flag(CLI::App& app, OutputFlags& flags);
void add_trace_flag(CLI::App& app, OutputFlags& flags);

// The gates every measuring command takes (src/gate/gate.h says what they
// compare): --baseline FILE (an earlier --json of the same command and
// settings) and --tolerance P (percent).
struct BaselineFlags {
  std::string baseline;
  std::string tolerance = "10";
};
void add_baseline_flags(CLI::App& app, BaselineFlags& flags);
// --tolerance as a fraction (10 -> 0.10); UsageError unless a number >= 0.
double baseline_tolerance(const BaselineFlags& flags);
// An --expect-* flag: a rate with its unit (parse_rate_with_unit: 40G =
// 40GB/s = 40e9 bytes/s; a bare number is a usage error), or, where
// `model` is true, `model:F`: at least F times the model's own value for
// the same result (coll: the expected busbw of measure/coll_expectation.h).
void add_expect_flag(CLI::App& app, const std::string& name, std::string& value, const std::string& what,
                     bool model = false, bool hardware = false);
struct ExpectFlag {
  double at_least = 0;        // bytes/s; 0 when unset or a model gate
  double model_fraction = 0;  // F of model:F; 0 when not a model gate
  double hardware_fraction = 0;  // F of hw:F; 0 when not a hardware gate
  bool set() const { return at_least > 0 || model_fraction > 0 || hardware_fraction > 0; }
};
// `hardware`: the flag also takes hw:F, at least F times the hardware's own
// limit of the same result (the core's or GPU's peak, a link's line rate).
ExpectFlag expect_flag(const std::string& value, const std::string& name, bool model = false, bool hardware = false);
// --expect-C of peak and sweep: C (the large GEMM's FLOP/s per rank) at
// least a rate (100G = 100 GFLOP/s; a bare number is refused) or hw:F.
void add_expect_c_flag(CLI::App& app, std::string& value);

}  // namespace shardroof

#include "cli/common_flags.h"

#include "hardware/blas_choice.h"

#include <fmt/format.h>

#include <algorithm>

#include "cli/values.h"
#include "util/error.h"

namespace shardroof {
namespace {

std::string names_of(std::initializer_list<coll::DataType> types, std::string_view separator) {
  std::string out;
  for (const auto t : types) out += fmt::format("{}{}", out.empty() ? "" : separator, coll::to_string(t));
  return out;
}

}  // namespace

void add_timing_flags(CLI::App& app, TimingFlags& flags) {
  app.add_option("-w,--warmup,--warmup_iters", flags.warmup,
                 "Untimed warm-up iterations before each measurement")
      ->capture_default_str();
  app.add_option("-n,--iters", flags.iters, "Timed iterations per measurement")->capture_default_str();
}

TimingPlan timing_plan(const TimingFlags& flags) {
  if (flags.iters < 1) throw_usage("--iters: must be at least 1, got {}", flags.iters);
  if (flags.warmup < 0) throw_usage("--warmup: must be 0 or more, got {}", flags.warmup);
  TimingPlan plan;
  plan.warmup = flags.warmup;
  plan.iters = flags.iters;
  return plan;
}

void add_segment_bytes_flag(CLI::App& app, std::string& segment_bytes) {
  app.add_option("--segment-bytes", segment_bytes,
                 "Segment size of ring and pairwise in bytes, or auto (equal segments of each block, no larger than "
                 "a quarter of the L2 cache)")
      ->capture_default_str();
}

void add_check_flag(CLI::App& app, int& check) {
  app.add_option("-c,--check", check, "Check the results after timing (1) or not (0)")->capture_default_str();
}

void add_ranks_per_node_flag(CLI::App& app, int& ranks_per_node) {
  app.add_option("--ranks-per-node", ranks_per_node,
                 "Group K consecutive ranks into a node (hier's two levels, the two-level model; emulated nodes); "
                 "0: the ranks that share memory")
      ->capture_default_str();
}

void add_levels_flag(CLI::App& app, std::string& levels) {
  app.add_option("--levels", levels,
                 "Levels of groups above the node for hier, innermost first: g1 consecutive nodes per group, g2 "
                 "groups per larger group, ..., the last the number of outermost groups (they multiply to the "
                 "number of nodes; 2,2 on 8 ranks of 2 per node: 2 x 2 x 2). Default: Slurm's switch levels "
                 "(SLURM_TOPOLOGY_ADDR) where set, else none (two levels)");
}

bool check_enabled(int check) {
  if (check != 0 && check != 1) throw_usage("--check: must be 0 or 1, got {}", check);
  return check == 1;
}

void add_datatype_flag(CLI::App& app, std::string& datatype, std::initializer_list<coll::DataType> choices) {
  add_datatype_flag(app, datatype, names_of(choices, " | "));
}

void add_datatype_flag(CLI::App& app, std::string& datatype, const std::string& choices) {
  app.add_option("-d,--datatype", datatype, "Element type: " + choices)->capture_default_str();
}

void add_backend_flag(CLI::App& app, std::string& backend) {
  app.add_option("--backend", backend, "cpu (OpenBLAS, host buffers) | cuda (cuBLAS, device buffers, one GPU per rank)")
      ->capture_default_str();
}

void add_gemm_flags(CLI::App& app, ComputeFlags& flags) {
  app.add_option("--threads", flags.threads, "BLAS threads per rank")->capture_default_str();
  app.add_option("--tf32", flags.tf32, "1: float GEMMs on TF32 tensor cores (cuda; stated in the output), 0: IEEE float")
      ->capture_default_str();
  // Not from a config file: the program reads it before MPI starts, from
  // the command line alone (hardware/blas_choice.h).
  app.add_option("--blas-kernel", flags.blas_kernel,
                 "auto: where the BLAS's own kernel is below this CPU, run the CPU's (the library's variable, "
                 "OPENBLAS_CORETYPE or BLIS_ARCH_TYPE, set by shardroof; a value the user set is kept); keep: the "
                 "library's choice; NAME: that kernel (e.g. Prescott, SkylakeX, haswell, skx)")
      ->capture_default_str()
      ->configurable(false);
}

coll::DataType datatype_flag(const std::string& text, std::initializer_list<coll::DataType> choices) {
  const auto type = coll::parse_datatype(text);
  if (!type || std::find(choices.begin(), choices.end(), *type) == choices.end())
    throw_usage("--datatype: '{}' is not one of {}", text, names_of(choices, ", "));
  return *type;
}

Backend backend_flag(const std::string& text) {
  const auto backend = parse_backend(text);
  if (!backend) throw_usage("--backend: '{}' is not one of cpu, cuda", text);
  return *backend;
}

void check_gemm_flags(const ComputeFlags& flags, Backend backend) {
  if (flags.threads < 1) throw_usage("--threads: must be at least 1, got {}", flags.threads);
  if (flags.tf32 != 0 && flags.tf32 != 1) throw_usage("--tf32: must be 0 or 1, got {}", flags.tf32);
  if (flags.tf32 == 1 && backend != Backend::Cuda) throw_usage("--tf32 1: needs --backend cuda");
  const hw::BlasFamily family = hw::linked_blas_family();
  if (!hw::parse_blas_kernel(flags.blas_kernel, family)) {
    std::string names;
    for (const auto k : hw::kernel_names(family)) names += (names.empty() ? "" : ", ") + std::string(k);
    throw_usage("--blas-kernel: '{}' is not auto, keep{}", flags.blas_kernel,
                names.empty() ? " (this build's BLAS has no kernel variable)" : ", or a kernel of this build's BLAS: " + names);
  }
}

void add_json_flag(CLI::App& app, OutputFlags& flags) {
  app.add_option("--json", flags.json, "Write the full record (settings, environment, results) to FILE");
}

void add_baseline_flags(CLI::App& app, BaselineFlags& flags) {
  app.add_option("--baseline", flags.baseline,
                 "Compare with an earlier --json FILE of this command with the same settings; a result worse by "
                 "more than --tolerance percent fails the run (exit status 6)");
  app.add_option("--tolerance", flags.tolerance, "Percent a result may be worse than --baseline's")
      ->capture_default_str();
}

double baseline_tolerance(const BaselineFlags& flags) {
  const double p = parse_number(flags.tolerance, "--tolerance");
  if (!(p >= 0)) throw_usage("--tolerance: must be a percentage of at least 0, got '{}'", flags.tolerance);
  return p / 100;
}

void add_expect_flag(CLI::App& app, const std::string& name, std::string& value, const std::string& what,
                     bool model, bool hardware) {
  app.add_option(name, value,
                 what + ": a rate with its unit (40G or 40GB/s = 40e9 bytes/s, K/M/G/T/P powers of 1000 as the "
                        "tables' GB/s; a bare number is refused)" +
                     (model ? ", or model:F (at least F times the model's expected value of the same result, e.g. "
                              "model:0.8)"
                            : "") +
                     (hardware ? ", or hw:F (at least F times the hardware's own limit of the same result, e.g. "
                                 "hw:0.9 of a link's line rate; results without one are not judged)"
                               : "") +
                     "; a result below it fails the run (exit status 6)");
}

void add_expect_c_flag(CLI::App& app, std::string& value) {
  app.add_option("--expect-C", value,
                 "Least C, the large GEMM's FLOP/s per rank: hw:F (at least F times the hardware's own peak per rank, "
                 "the core's FMA loop or the GPU's spec, e.g. hw:0.7), or a rate with its unit (100G = 100 GFLOP/s; "
                 "a bare number is refused); below it the run fails (exit status 6)");
}

ExpectFlag expect_flag(const std::string& value, const std::string& name, bool model, bool hardware) {
  ExpectFlag out;
  if (value.empty()) return out;
  constexpr std::string_view kHardware = "hw:";
  if (value.rfind(kHardware, 0) == 0) {
    if (!hardware)
      throw_usage("{}: '{}': hw: gates are --expect-C's (peak, sweep) and --expect-W's (link) only", name, value);
    double f = 0;
    try {
      f = parse_number(value.substr(kHardware.size()), name);
    } catch (const UsageError&) {
      f = -1;
    }
    if (!(f > 0 && f <= 1))
      throw_usage("{}: '{}': hw:F takes a fraction F of the hardware's limit, above 0 and at most 1, e.g. hw:0.7", name,
                  value);
    out.hardware_fraction = f;
    return out;
  }
  constexpr std::string_view kModel = "model:";
  if (value.rfind(kModel, 0) == 0) {
    if (!model) throw_usage("{}: '{}': model: gates are coll's --expect-busbw only; give a rate such as 40G", name, value);
    const std::string fraction = value.substr(kModel.size());
    double f = 0;
    try {
      f = parse_number(fraction, name);
    } catch (const UsageError&) {
      f = -1;
    }
    if (!(f > 0 && f <= 100))
      throw_usage("{}: '{}': model:F takes a fraction F of the model's value, e.g. model:0.8", name, value);
    out.model_fraction = f;
    return out;
  }
  try {
    out.at_least = parse_rate_with_unit(value, name);
  } catch (const UsageError& e) {
    if (hardware) throw_usage("{} (or hw:F, e.g. hw:0.7: at least 70% of the hardware's own limit)", e.what());
    if (!model) throw;
    throw_usage("{} (or model:F, e.g. model:0.8: at least 80% of the model's busbw)", e.what());
  }
  return out;
}

void add_csv_flag(CLI::App& app, OutputFlags& flags) {
  app.add_option("--csv", flags.csv, "Write one row per measured point to FILE");
}

void add_trace_flag(CLI::App& app, OutputFlags& flags) {
  app.add_option("--trace", flags.trace,
                 "Write a Chrome trace-event JSON of the last timed iteration of each measurement to FILE (open it "
                 "in ui.perfetto.dev)");
}

}  // namespace shardroof

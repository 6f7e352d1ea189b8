// `shardroof peak`: the local ceilings of every rank's node (README, "The model",
// the local roofline): GEMM FLOP/s per datatype at a large shape and across
// thin inner dimensions, memory bandwidth M (STREAM-like copy and triad) and
// the local reduction rate g. Every rank of a node measures at the same
// time, as the ranks of a sweep do, so the numbers are what one rank gets
// while its neighbours work; node totals are the sums over its ranks.
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/command.h"
#include "cli/common_flags.h"
#include "cli/values.h"
#include "commands/backends.h"
#include "commands/gate_run.h"
#include "commands/run_output.h"
#include "collectives/mpi_transport.h"
#include "compute/compute_backend.h"
#include "measure/comm_setup.h"
#include "report/answer.h"
#include "report/bringup.h"
#include "report/peak_report.h"
#include "ceilings/ceilings.h"
#include "ceilings/hardware_limits.h"
#include "report/environment.h"
#include "report/hardware_report.h"
#include "util/agreement.h"
#include "util/error.h"
#include "util/memory_budget.h"
#include "util/mpi_session.h"
#include "util/node.h"
#include "util/watchdog.h"

namespace shardroof {
namespace {

struct PeakFlags {
  std::string datatypes = "float,double,bfloat16";
  std::uint64_t size = 1024;
  std::string k = "16,32,64,128,256,512,1024";
  std::string memory_bytes = "32M";
  std::uint64_t reduce_elements = 1 << 20;
  ComputeFlags compute;
  TimingFlags timing{2, 10};
  OutputFlags output;
  BaselineFlags baseline;
  std::string expect_C;
  bool blas_coretype = false;
};

struct PeakPlan {
  std::vector<coll::DataType> types;
  std::size_t size = 1024;
  std::vector<std::uint64_t> k;
  std::size_t memory_elements = 0;
  std::size_t reduce_elements = 0;
  Backend backend = Backend::Cpu;
  int threads = 1;
  TimingPlan timing;
};

// Where the memory roof was measured, for the output.
std::string memory_space_name(ComputeBackend& backend) {
  return backend.memory().space() == coll::MemorySpace::Device ? "device memory" : "host memory";
}

class PeakCommand final : public Command {
 public:
  std::string name() const override { return "peak"; }
  std::string description() const override {
    return "Local ceilings per node: GEMM FLOP/s per datatype (large and thin shapes), memory bandwidth, reduction rate";
  }

  void add_options(CLI::App& app) override {
    app.add_option("--datatypes", f_.datatypes, "GEMM datatypes: a list of float, double, bfloat16, half (cuda)")
        ->capture_default_str();
    app.add_option("--size", f_.size, "m = n (and k) of the large GEMM")->capture_default_str();
    app.add_option("--k", f_.k, "Thin inner dimensions k for m = n = size (list or lo:hi:xK)")->capture_default_str();
    app.add_option("--memory-bytes", f_.memory_bytes,
                   "Bytes per array of the copy/triad kernels (beyond the caches; on a GPU at least 8x its L2)")
        ->capture_default_str();
    app.add_option("--reduce-elements", f_.reduce_elements,
                   "Elements of the local reduction dst = a + b (on a GPU at least 8x its L2 per array)")
        ->capture_default_str();
    add_backend_flag(app, f_.compute.backend);
    add_gemm_flags(app, f_.compute);
    add_timing_flags(app, f_.timing);
    add_json_flag(app, f_.output);
    add_expect_c_flag(app, f_.expect_C);
    app.add_flag("--blas-coretype", f_.blas_coretype,
                 "Only judge the BLAS kernel against this CPU (the register-only loops, well under a second) and "
                 "print two lines: the OPENBLAS_CORETYPE value that fixes a kernel below the CPU, or '-' where "
                 "none is needed or none helps; then the verdict in words (scripts/quickstart.sh and the Slurm "
                 "scripts use it)");
    add_baseline_flags(app, f_.baseline);
  }

  int run(RunContext& ctx) override {
    if (f_.blas_coretype) return print_blas_coretype(ctx);
    PeakPlan plan;
    std::vector<GateExpectation> expectations;
    const NodeMemory memory = node_memory(ctx.mpi.world());
    run_agreed(ctx.mpi.world(), [&] {
      plan = make_plan();
      require_largest_step_memory(memory, plan);
      expectations = expect_c_gate(f_.expect_C, fmt::format("the {0}x{0}x{0} GEMM of every datatype and node", plan.size));
    });
    RunOutput out = RunOutput::agree(ctx, "peak", "measurements", {f_.output.json, "", "", false});
    std::unique_ptr<ComputeBackend> backend;
    run_agreed(ctx.mpi.world(), [&] {
      backend = make_compute_backend(plan.backend, {plan.threads, f_.compute.tf32 == 1}, ctx.mpi.world());
      for (const auto t : plan.types)
        if (!backend->supports(t)) throw_usage("--datatypes: the {} backend has no {} GEMM", f_.compute.backend, coll::to_string(t));
    });
    const NodeComm node_comm(ctx.mpi.world());
    const MPI_Comm node = node_comm.get();
    // The hardware's own limits first: every rank's core at once (a second).
    ctx.progress << "peak: the hardware's own peak (register-only loops)\n" << std::flush;
    HardwareLimits hardware =
        measure_hardware_limits(*backend, ctx.mpi.world(), plan.types, plan.threads, f_.compute.tf32 == 1);

    // Every measurement runs on every rank of a node at once; the timing
    // module takes each iteration's max over the node's ranks.
    PeakNode mine;
    mine.host = host_name();
    mine.ranks = node_comm.size();

    out.begin_document(peak_document_json(
        ctx.mpi.size(), peak_settings_json(f_.datatypes, {plan.types, plan.size, plan.k, backend->describe()},
                                           plan.memory_elements, plan.reduce_elements, plan.threads, plan.timing)));
    nlohmann::json& doc = out.document();
    add_hardware_json(doc, hardware, plan.types);
    RunGate gate(ctx, f_.baseline, std::move(expectations), doc);
    // The steps: one GEMM datatype each, then memory bandwidth and reduction.
    const std::size_t steps = plan.types.size() + 1;
    std::size_t steps_done = 0;
    // After each step every node's record so far reaches the file (collective:
    // one record per node, from the node's first rank, gathered everywhere),
    // so a run that dies or is interrupted keeps the finished steps.
    const auto publish = [&] {
      const auto gathered =
          all_gather_strings(ctx.mpi.world(), node_comm.rank() == 0 ? peak_node_text(mine) : std::string());
      set_peak_nodes_json(doc, gathered, steps_done == steps);
      out.publish(steps_done, steps);
    };
    for (const auto type : plan.types) {
      ctx.progress << fmt::format("peak: {} GEMM {}^3\n", coll::to_string(type), plan.size) << std::flush;
      // Each measurement names the step in a watchdog message.
      std::optional<WatchdogScope> step(std::in_place, fmt::format("{} GEMM {}^3", coll::to_string(type), plan.size));
      const auto big = measure_gemm_rate(*backend, node, plan.size, plan.size, plan.size, type, plan.timing);
      PeakGemm rec{type, backend->arithmetic(type), big, sum_over_ranks(node, big.flops_per_s), {},
                   hardware.compute_limit(type)};
      for (const auto k : plan.k) {
        ctx.progress << fmt::format("peak: {} GEMM {}x{}x{}\n", coll::to_string(type), plan.size, plan.size, k)
                     << std::flush;
        step.emplace(fmt::format("{} GEMM {}x{}x{}", coll::to_string(type), plan.size, plan.size, k));
        const auto thin = measure_gemm_rate(*backend, node, plan.size, plan.size, k, type, plan.timing);
        rec.thin.push_back(thin);
      }
      mine.gemm.push_back(std::move(rec));
      step.reset();
      ++steps_done;
      publish();
      // Every rank stops after the same step when any rank got SIGINT/SIGTERM.
      if (out.stop_requested(steps_done)) break;
    }
    if (out.stopped()) return end_run(out, gate, doc, {{}, {}, false, "", ""});
    ctx.progress << "peak: memory bandwidth and reduction rate\n" << std::flush;
    std::optional<WatchdogScope> step(std::in_place, "memory bandwidth");
    const auto mem = measure_memory_bandwidth(*backend, node, plan.memory_elements, plan.timing);
    mine.memory = PeakMemory{memory_space_name(*backend), mem, sum_over_ranks(node, mem.copy_bytes_per_s),
                             sum_over_ranks(node, mem.triad_bytes_per_s), min_over_ranks(node, mem.triad_bytes_per_s)};
    for (const auto type : plan.types) {
      step.emplace(fmt::format("{} reduction", coll::to_string(type)));
      // Beyond the caches, as the memory kernels: a reduction that runs in a
      // GPU's L2 is not the rate a large partial sum is reduced at.
      const std::size_t count =
          std::max<std::size_t>(plan.reduce_elements, kCacheMultiple * backend->cache_bytes() / coll::size_of(type));
      const auto red = measure_reduce_rate(*backend, node, type, count, plan.timing);
      mine.reduction.push_back(red);
    }
    step.reset();
    // A GPU's clock right after its GEMMs (the driver's word on throttling).
    read_gpu_clocks(*backend, ctx.mpi.world(), hardware);
    set_peak_hardware_json(doc, hardware, plan.types);
    ++steps_done;
    publish();
    return end_run(out, gate, doc,
                   {{}, [&] {
                      // The tables behind -v; the BLAS kernel's shortfall and the answer by default.
                      print_peak(ctx.detail, {plan.types, plan.size, plan.k, backend->describe()}, doc["nodes"], hardware);
                      for (const auto& w : hardware_warnings(hardware, plan.types)) ctx.out << "\n" << w << "\n";
                      if (ctx.mpi.is_root()) print_answer(ctx.out, answer_of(bringup::read_record(doc)));
                    },
                    false, "", ""});
  }

 private:
  // --blas-coretype: the kernel judged for float and double on the CPU
  // backend; the first fix found, with its cause.
  int print_blas_coretype(RunContext& ctx) {
    std::unique_ptr<ComputeBackend> backend;
    run_agreed(ctx.mpi.world(), [&] {
      if (backend_flag(f_.compute.backend) != Backend::Cpu)
        throw_usage("--blas-coretype: judges the CPU's BLAS; it takes no --backend {}", f_.compute.backend);
      backend = make_compute_backend(Backend::Cpu, {1, false}, ctx.mpi.world());
    });
    const std::vector<coll::DataType> types{coll::DataType::Float, coll::DataType::Double};
    const HardwareLimits hardware = measure_hardware_limits(*backend, ctx.mpi.world(), types, 1, false);
    ctx.out << blas_coretype_text(hardware, types);
    return 0;
  }

  // Each step allocates three arrays and a host staging copy of one: the
  // GEMM's operands (size^2 elements each), the memory kernels' arrays, the
  // reduction's operands. The largest step must fit.
  void require_largest_step_memory(const NodeMemory& node, const PeakPlan& plan) const {
    std::uint64_t es = 0;
    for (const auto t : plan.types) es = std::max<std::uint64_t>(es, coll::size_of(t));
    const std::uint64_t gemm = saturating_mul(saturating_mul(4 * es, plan.size), plan.size);
    const std::uint64_t memory = saturating_mul(4 * sizeof(double), plan.memory_elements);
    const std::uint64_t reduce = saturating_mul(4 * es, plan.reduce_elements);
    if (gemm >= memory && gemm >= reduce)
      require_memory(node, gemm, fmt::format("--size {}", plan.size));
    else if (memory >= reduce)
      require_memory(node, memory, fmt::format("--memory-bytes {}", f_.memory_bytes));
    else
      require_memory(node, reduce, fmt::format("--reduce-elements {}", plan.reduce_elements));
  }

  PeakPlan make_plan() const {
    PeakPlan plan;
    std::string rest = f_.datatypes;
    for (std::size_t start = 0; start <= rest.size();) {
      const auto comma = rest.find(',', start);
      const std::string name = rest.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      const auto t = coll::parse_datatype(name);
      if (!t || *t == coll::DataType::Int32)
        throw_usage("--datatypes: '{}' is not one of float, double, bfloat16, half", name);
      plan.types.push_back(*t);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    if (f_.size < 1 || f_.size > 65536) throw_usage("--size: must be between 1 and 65536, got {}", f_.size);
    plan.size = f_.size;
    plan.k = parse_int_list(f_.k, "--k");
    for (const auto k : plan.k)
      if (k > 1u << 20) throw_usage("--k: {} is too large (at most {})", k, 1u << 20);
    plan.memory_elements = std::max<std::size_t>(parse_count(f_.memory_bytes, "--memory-bytes") / sizeof(double), 1);
    if (f_.reduce_elements < 1) throw_usage("--reduce-elements: must be at least 1");
    plan.reduce_elements = f_.reduce_elements;
    plan.backend = backend_flag(f_.compute.backend);
    check_gemm_flags(f_.compute, plan.backend);
    plan.threads = f_.compute.threads;
    plan.timing = timing_plan(f_.timing);
    return plan;
  }

  PeakFlags f_;
};

}  // namespace

std::unique_ptr<Command> make_peak_command() { return std::make_unique<PeakCommand>(); }

}  // namespace shardroof

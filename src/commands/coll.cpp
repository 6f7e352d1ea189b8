// `shardroof coll`: nccl-tests-style collective benchmark over a size sweep.
#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <limits>
#include <optional>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/values.h"
#include "commands/run_output.h"
#include "collectives/types.h"
#include "measure/coll_runner.h"
#include "measure/comm_setup.h"
#include "report/coll_report.h"
#include "util/agreement.h"
#include "util/error.h"
#include "util/memory_budget.h"
#include "util/watchdog.h"

namespace shardroof {
namespace {

struct CollFlags {
  std::string collective = "all_reduce";
  std::string minbytes = "8";
  std::string maxbytes = "8M";
  std::string stepfactor = "4";
  std::string stepbytes = "0";
  int iters = 20;
  int warmup = 5;
  int check = 1;
  std::string datatype = "float";
  std::string op = "sum";
  std::string impl = "all";
  std::string backend = "cpu";
  std::string transport = "mpi";
  std::string segment_bytes = "1M";
  std::string json;
  std::string trace;
};

class CollCommand final : public Command {
 public:
  std::string name() const override { return "coll"; }
  std::string description() const override {
    return "nccl-tests-style collective benchmark: ring vs native over a size sweep";
  }

  void add_options(CLI::App& app) override {
    app.add_option("--collective", f_.collective, "all_reduce | reduce_scatter | all_gather")->capture_default_str();
    app.add_option("-b,--minbytes", f_.minbytes, "Smallest size S in bytes (K/M/G suffixes)")->capture_default_str();
    app.add_option("-e,--maxbytes", f_.maxbytes, "Largest size S in bytes")->capture_default_str();
    app.add_option("-f,--stepfactor", f_.stepfactor, "Multiply the size by this factor each step")->capture_default_str();
    app.add_option("-i,--stepbytes", f_.stepbytes, "Add this many bytes each step instead (0: use -f)")->capture_default_str();
    app.add_option("-n,--iters", f_.iters, "Timed iterations per size")->capture_default_str();
    app.add_option("-w,--warmup_iters", f_.warmup, "Untimed warm-up iterations per size")->capture_default_str();
    app.add_option("-c,--check", f_.check, "Check results after timing (1) or not (0)")->capture_default_str();
    app.add_option("-d,--datatype", f_.datatype, "float | double | bfloat16 | half | int32")->capture_default_str();
    app.add_option("-o,--op", f_.op, "sum | prod | max | min | avg")->capture_default_str();
    app.add_option("--impl", f_.impl, "auto | ring | pairwise | direct | native, a comma-separated list, or all (auto,ring,native side by side)")->capture_default_str();
    app.add_option("--backend", f_.backend, "cpu (host buffers) | cuda (device buffers, one GPU per rank)")->capture_default_str();
    app.add_option("--transport", f_.transport, "mpi | nccl (with --backend cuda)")->capture_default_str();
    app.add_option("--segment-bytes", f_.segment_bytes, "Ring segment size in bytes")->capture_default_str();
    app.add_option("--json", f_.json, "Write the full record (settings, environment, results) to FILE");
    app.add_option("--trace", f_.trace,
                   "Write a Chrome trace-event JSON of the last timed iteration of each size to FILE "
                   "(open it in ui.perfetto.dev)");
  }

  int run(RunContext& ctx) override {
    CollPlan plan;
    Backend backend = Backend::Cpu;
    TransportKind transport = TransportKind::Mpi;
    const NodeMemory node = node_memory(ctx.mpi.world());
    run_agreed(ctx.mpi.world(), [&] {
      plan = make_plan();
      backend = *parse_backend(f_.backend);
      transport = *parse_transport(f_.transport);
      check_native_limits(plan, ctx.mpi.size());
      if (!plan.sizes.empty())
        require_memory(node, bytes_per_rank(plan.kind, plan.sizes.back(), ctx.mpi.size()),
                       fmt::format("--maxbytes {} ({})", f_.maxbytes, format_bytes(plan.sizes.back())));
    });
    RunOutput out = RunOutput::agree(ctx, "coll", "sizes", {f_.json, "", f_.trace, false});
    std::unique_ptr<CommSetup> setup;
    run_agreed(ctx.mpi.world(), [&] { setup = make_comm_setup(backend, transport, ctx.mpi.world()); });
    trace::Recorder* recorder = out.start_trace();
    out.begin_document({{"ranks", ctx.mpi.size()},
                        {"settings", settings_json(plan)},
                        {"aggregation", kAggregationNote},
                        {"results", nlohmann::json::array()}});

    CollConsoleReporter console(ctx.out, ctx.mpi.size());
    std::string setup_text;
    for (Impl impl : plan.impls) setup_text += (setup_text.empty() ? "" : ", ") + setup->describe(impl);
    console.header(plan, fmt::format("{} ({})", setup_text, f_.backend));

    std::vector<CollRecord> all;
    std::size_t sizes_done = 0;
    for (const auto bytes : plan.sizes) {
      for (Impl impl : plan.impls) {
        WatchdogScope watched(fmt::format("{} {} {}", coll::to_string(plan.kind), to_string(impl), format_bytes(bytes)));
        auto recs = measure_collective(*setup, ctx.mpi.world(), plan, impl, bytes, recorder);
        console.row(recs[0], recs[1]);
        for (auto& r : recs) {
          out.document()["results"].push_back(to_json(r));
          all.push_back(r);
        }
      }
      ++sizes_done;
      // Each finished size reaches the file, so a run that dies keeps it.
      out.publish(sizes_done, plan.sizes.size());
      // Every rank stops at the same size when any rank got SIGINT/SIGTERM.
      if (out.stop_requested(sizes_done)) break;
    }
    console.footer(all);
    // Every rank gets here, interrupted or not: the traced sizes are kept.
    out.finish_trace("the last timed iteration of each size, implementation and placement (out of place, in place); "
                     "warm-up and the other timed iterations are not traced",
                     backend == Backend::Cuda);
    out.finish();
    out.print_written_files();
    long long wrong = 0;
    for (const auto& r : all) wrong += r.wrong > 0 ? r.wrong : 0;
    return out.exit_status(wrong > 0 ? fmt::format("{} wrong elements (see #wrong)", wrong) : "");
  }

 private:
  CollPlan make_plan() const {
    CollPlan plan;
    const auto kind = coll::parse_collective(f_.collective);
    if (!kind) throw_usage("--collective: unknown '{}' (all_reduce, reduce_scatter, all_gather)", f_.collective);
    plan.kind = *kind;
    const auto type = coll::parse_datatype(f_.datatype);
    if (!type) throw_usage("--datatype: unknown '{}' (float, double, bfloat16, half, int32)", f_.datatype);
    plan.type = *type;
    const auto op = coll::parse_reduce_op(f_.op);
    if (!op) throw_usage("--op: unknown '{}' (sum, prod, max, min, avg)", f_.op);
    plan.op = *op;
    plan.impls = parse_impl_list(f_.impl, plan.kind);
    if (!parse_backend(f_.backend)) throw_usage("--backend: unknown '{}' (cpu, cuda)", f_.backend);
    if (!parse_transport(f_.transport)) throw_usage("--transport: unknown '{}' (mpi, nccl)", f_.transport);
    if (f_.iters < 1) throw_usage("--iters: must be at least 1, got {}", f_.iters);
    if (f_.warmup < 0) throw_usage("--warmup_iters: must be 0 or more, got {}", f_.warmup);
    if (f_.check != 0 && f_.check != 1) throw_usage("--check: must be 0 or 1, got {}", f_.check);
    plan.timing = {f_.warmup, f_.iters};
    plan.check = f_.check == 1;
    const auto lo = parse_bytes(f_.minbytes, "--minbytes");
    const auto hi = parse_bytes(f_.maxbytes, "--maxbytes");
    const auto step = parse_bytes(f_.stepbytes, "--stepbytes");
    const double factor = parse_number(f_.stepfactor, "--stepfactor");
    if (lo > hi) throw_usage("--minbytes {} is larger than --maxbytes {}", lo, hi);
    if (step == 0 && !(factor > 1) && lo != hi)
      throw_usage("--stepfactor: {} never grows the size (needs > 1, or use --stepbytes)", f_.stepfactor);
    plan.sizes = coll_sizes(lo, hi, factor > 1 ? factor : 2, step, coll::size_of(plan.type));
    plan.ring.segment_bytes = parse_count(f_.segment_bytes, "--segment-bytes");
    return plan;
  }

  // What measure_collective allocates per rank at `bytes` (send, recv, in
  // place, its pristine copy, two host staging arrays), plus one more array
  // for the MPI library's own temporaries.
  static std::uint64_t bytes_per_rank(coll::CollectiveKind kind, std::uint64_t bytes, int nranks) {
    const std::uint64_t block = (bytes + static_cast<std::uint64_t>(nranks) - 1) / static_cast<std::uint64_t>(nranks);
    const std::uint64_t in = kind == coll::CollectiveKind::AllGather ? block : bytes;
    const std::uint64_t out = kind == coll::CollectiveKind::ReduceScatter ? block : bytes;
    std::uint64_t total = saturating_add(in, out);
    total = saturating_add(total, saturating_mul(bytes, 4));  // in place, pristine, host staging, full pattern
    return saturating_add(total, bytes);
  }

  // MPI counts are ints: the native collectives cannot move some sizes.
  static void check_native_limits(const CollPlan& plan, int nranks) {
    if (std::find(plan.impls.begin(), plan.impls.end(), Impl::Native) == plan.impls.end()) return;
    const std::size_t es = coll::size_of(plan.type);
    const auto n = static_cast<std::uint64_t>(nranks);
    for (const auto bytes : plan.sizes) {
      const std::uint64_t count = bytes / es;
      const std::uint64_t block = (count + n - 1) / n;
      bool too_big = false;
      if (plan.kind == coll::CollectiveKind::ReduceScatter) too_big = block > INT_MAX;
      if (plan.kind == coll::CollectiveKind::AllGather)
        too_big = count % n == 0 ? block * es > INT_MAX : bytes > INT_MAX;
      if (too_big)
        throw_usage("--impl {}: native MPI {} cannot move {} on {} ranks (MPI counts are ints); "
                    "use --impl ring or a smaller --maxbytes",
                    to_string(Impl::Native), coll::to_string(plan.kind), format_bytes(bytes), nranks);
    }
  }

  // "all", one name, or a comma-separated list of names.
  static std::vector<Impl> parse_impl_list(const std::string& text, coll::CollectiveKind kind) {
    if (text == "all") return {Impl::Auto, Impl::Ring, Impl::Native};
    std::vector<Impl> impls;
    std::string_view rest = text;
    while (true) {
      const auto comma = rest.find(',');
      const auto name = rest.substr(0, comma);
      const auto impl = parse_impl(name);
      if (!impl) throw_usage("--impl: unknown '{}' (auto, ring, pairwise, direct, native, all, or a list like auto,native)", name);
      if (*impl != Impl::Native && !coll::supports(own_algorithm(*impl), kind))
        throw_usage("--impl {}: there is no {} {}", name, name, coll::to_string(kind));
      impls.push_back(*impl);
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
    return impls;
  }

  nlohmann::json settings_json(const CollPlan& plan) const {
    return {{"collective", coll::to_string(plan.kind)},
            {"datatype", coll::to_string(plan.type)},
            {"op", coll::to_string(plan.op)},
            {"impl", f_.impl},
            {"backend", f_.backend},
            {"transport", f_.transport},
            {"minbytes", plan.sizes.empty() ? 0 : plan.sizes.front()},
            {"maxbytes", plan.sizes.empty() ? 0 : plan.sizes.back()},
            {"stepfactor", f_.stepfactor},
            {"stepbytes", f_.stepbytes},
            {"sizes", plan.sizes},
            {"iters", plan.timing.iters},
            {"warmup_iters", plan.timing.warmup},
            {"check", plan.check},
            {"segment_bytes", plan.ring.segment_bytes}};
  }

  CollFlags f_;
};

}  // namespace

std::unique_ptr<Command> make_coll_command() { return std::make_unique<CollCommand>(); }

}  // namespace shardroof

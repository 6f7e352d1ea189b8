// `shardroof link`: point-to-point latency and bandwidth between rank pairs
// (ping-pong over a size sweep, a latency-bandwidth fit per pair).
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <optional>

#include "cli/command.h"
#include "cli/common_flags.h"
#include "cli/values.h"
#include "commands/run_output.h"
#include "link/alpha_beta_fit.h"
#include "link/link_summary.h"
#include "link/pairs.h"
#include "link/ping_pong.h"
#include "measure/coll_runner.h"
#include "report/link_report.h"
#include "util/agreement.h"
#include "util/error.h"
#include "util/memory_budget.h"

namespace shardroof {
namespace {

// MPI counts are ints: one message stays below 2 GiB.
constexpr std::uint64_t kMaxMessageBytes = 1ull << 30;

struct LinkFlags {
  std::string minbytes = "8";
  std::string maxbytes = "8M";
  std::string stepfactor = "4";
  TimingFlags timing{3, 20};
  std::string pairs = "all";
  std::uint64_t seed = 1;
  int check = 1;
  OutputFlags output;
};

class LinkCommand final : public Command {
 public:
  std::string name() const override { return "link"; }
  std::string description() const override {
    return "Point-to-point latency and bandwidth between every rank pair (ping-pong, alpha-beta fit)";
  }

  void add_options(CLI::App& app) override {
    app.add_option("-b,--minbytes", f_.minbytes, "Smallest message in bytes (K/M/G suffixes)")->capture_default_str();
    app.add_option("-e,--maxbytes", f_.maxbytes, "Largest message in bytes (at most 1G)")->capture_default_str();
    app.add_option("-f,--stepfactor", f_.stepfactor, "Multiply the size by this factor each step")->capture_default_str();
    add_timing_flags(app, f_.timing);
    app.add_option("--pairs", f_.pairs, "'all' pairs, or how many pairs to sample (for large N)")->capture_default_str();
    app.add_option("--seed", f_.seed, "Seed of the pair sample")->capture_default_str();
    add_check_flag(app, f_.check);
    add_json_flag(app, f_.output);
  }

  int run(RunContext& ctx) override {
    const MPI_Comm world = ctx.mpi.world();
    const int nranks = ctx.mpi.size();
    link::LinkPlan plan;
    const NodeMemory node = node_memory(world);
    run_agreed(world, [&] {
      plan = make_plan(nranks);
      // A send and a receive buffer of the largest message.
      require_memory(node, 2 * plan.sizes.back(), fmt::format("--maxbytes {}", f_.maxbytes));
    });
    RunOutput out = RunOutput::agree(ctx, "link", "pairs", {f_.output.json, "", "", false});
    const link::Topology topo = link::discover_topology(world);
    const std::size_t total_pairs = static_cast<std::size_t>(nranks) * static_cast<std::size_t>(nranks - 1) / 2;

    out.begin_document({{"ranks", nranks},
                        {"nodes", topo.nodes},
                        {"settings", settings_json(plan)},
                        {"aggregation", kAggregationNote},
                        {"fit", kLinkFitNote},
                        {"node_of_rank", topo.node_of_rank},
                        {"host_of_rank", topo.host_of_rank},
                        {"pairs", nlohmann::json::array()}});
    nlohmann::json& doc = out.document();

    LinkConsoleReporter console(ctx.out, nranks);
    console.header(plan, topo, total_pairs);

    std::vector<LinkPairResult> results;
    std::vector<link::PairFit> fits;
    const auto on_pair_done = [&](const link::PairMeasurement& m) {
      LinkPairResult r;
      r.measured = m;
      std::vector<std::uint64_t> bytes;
      std::vector<double> seconds;
      for (const auto& t : m.times) {
        bytes.push_back(t.bytes);
        seconds.push_back(t.one_way.median);
      }
      r.fit = link::fit_alpha_beta(bytes, seconds);
      r.same_node = topo.same_node(m.pair.src, m.pair.dst);
      r.src_host = topo.host_of_rank.at(m.pair.src);
      r.dst_host = topo.host_of_rank.at(m.pair.dst);
      console.row(r);
      fits.push_back(to_pair_fit(r));
      doc["pairs"].push_back(to_json(r));
      results.push_back(std::move(r));
      ctx.progress << fmt::format("link: pair {}/{} ({}, {}) done\n", results.size(), plan.pairs.size(),
                                  m.pair.src, m.pair.dst)
                   << std::flush;
      // Each finished pair reaches the file, so a run that dies keeps it.
      out.publish(results.size(), plan.pairs.size());
      // Every rank stops after the same pair when any rank got SIGINT/SIGTERM.
      return !out.stop_requested(results.size());
    };
    link::measure_pairs(world, plan, on_pair_done);

    const link::LinkSummary summary = link::summarize(fits);
    std::optional<link::ModelLink> model;
    try {
      model = link::model_link(fits);
    } catch (const RuntimeError&) {
      model.reset();
    }
    doc["summary"] = to_json(summary);
    int untrusted = 0;
    for (const auto& r : results) untrusted += r.fit.valid && !r.fit.trusted();
    doc["model_link"] = model ? nlohmann::json{{"W_bytes_per_s", model->W_bytes_per_s},
                                               {"alpha_s", model->alpha_s},
                                               {"source", model->source},
                                               {"pairs", model->pairs},
                                               {"pairs_not_described_by_the_fit", untrusted}}
                              : nlohmann::json(nullptr);
    if (model && untrusted > 0)
      doc["model_link"]["warning"] = fmt::format(
          "on {} pairs t(n) = alpha + n/W misses a measured time by more than {:.0f}%: W is the large messages' "
          "bandwidth, alpha the small messages' latency",
          untrusted, 100 * link::kTrustedResidual);
    console.footer(results, summary, model);
    // The summary and model link of an interrupted run cover the finished
    // pairs only; "interrupted" says so.
    out.finish();
    out.print_written_files();
    long long wrong = 0;
    for (const auto& r : results) wrong += r.measured.wrong > 0 ? r.measured.wrong : 0;
    return out.exit_status(wrong > 0 ? fmt::format("{} echoed bytes came back wrong", wrong) : "");
  }

 private:
  link::LinkPlan make_plan(int nranks) const {
    if (nranks < 2) throw_usage("link needs at least 2 ranks (run it under mpirun/srun), got {}", nranks);
    link::LinkPlan plan;
    const auto lo = parse_bytes(f_.minbytes, "--minbytes");
    const auto hi = parse_bytes(f_.maxbytes, "--maxbytes");
    const double factor = parse_number(f_.stepfactor, "--stepfactor");
    if (lo > hi) throw_usage("--minbytes {} is larger than --maxbytes {}", lo, hi);
    if (hi > kMaxMessageBytes) throw_usage("--maxbytes: at most {} bytes (1G), got {}", kMaxMessageBytes, hi);
    if (!(factor > 1) && lo != hi) throw_usage("--stepfactor: {} never grows the size (needs > 1)", f_.stepfactor);
    plan.sizes = coll_sizes(lo, hi, factor > 1 ? factor : 2, 0, 1);
    plan.timing = timing_plan(f_.timing);
    plan.check = check_enabled(f_.check);
    if (f_.pairs == "all") {
      plan.pairs = link::all_pairs(nranks);
    } else {
      const auto count = parse_count(f_.pairs, "--pairs");
      plan.pairs = link::sample_pairs(nranks, count, f_.seed);
    }
    return plan;
  }

  nlohmann::json settings_json(const link::LinkPlan& plan) const {
    return {{"minbytes", plan.sizes.front()},
            {"maxbytes", plan.sizes.back()},
            {"stepfactor", f_.stepfactor},
            {"sizes", plan.sizes},
            {"iters", plan.timing.iters},
            {"warmup_iters", plan.timing.warmup},
            {"pairs", f_.pairs},
            {"seed", f_.seed},
            {"check", plan.check}};
  }

  LinkFlags f_;
};

}  // namespace

std::unique_ptr<Command> make_link_command() { return std::make_unique<LinkCommand>(); }

}  // namespace shardroof

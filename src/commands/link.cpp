// `shardroof link`: point-to-point latency and bandwidth between rank pairs
// (a size sweep in one of the patterns of link/patterns.h, a
// latency-bandwidth fit per pair; a loaded pattern's pairs beside their idle
// ping-pong).
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <optional>

#include "cli/command.h"
#include "cli/common_flags.h"
#include "cli/values.h"
#include "ceilings/hardware_limits.h"
#include "commands/gate_run.h"
#include "commands/run_output.h"
#include "link/alpha_beta_fit.h"
#include "link/link_summary.h"
#include "link/pairs.h"
#include "link/patterns.h"
#include "link/ping_pong.h"
#include "link/ring_probe.h"
#include "measure/coll_runner.h"
#include "report/answer.h"
#include "report/bringup.h"
#include "report/gate_report.h"
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
  std::string pattern = "pingpong";
  OutputFlags output;
  std::string expect_W;
  BaselineFlags baseline;
};

class LinkCommand final : public Command {
 public:
  std::string name() const override { return "link"; }
  std::string description() const override {
    return "Point-to-point latency and bandwidth between every rank pair (ping-pong, bidir, shift or ring; "
           "alpha-beta fit)";
  }

  void add_options(CLI::App& app) override {
    app.add_option("-b,--minbytes", f_.minbytes, "Smallest message in bytes (K/M/G suffixes)")->capture_default_str();
    app.add_option("-e,--maxbytes", f_.maxbytes, "Largest message in bytes (at most 1G)")->capture_default_str();
    app.add_option("-f,--stepfactor", f_.stepfactor, "Multiply the size by this factor each step")->capture_default_str();
    add_timing_flags(app, f_.timing);
    app.add_option("--pattern", f_.pattern,
                   "pingpong (one pair at a time), bidir (both directions of a pair at once), shift (step k: every "
                   "rank to rank+k at once) or ring (every rank to rank+1 at once); loaded ones also measure the "
                   "idle ping-pong of their pairs")
        ->capture_default_str();
    app.add_option("--pairs", f_.pairs, "'all' pairs, or how many pairs to sample (for large N; pingpong and bidir)")
        ->capture_default_str();
    app.add_option("--seed", f_.seed, "Seed of the pair sample")->capture_default_str();
    add_check_flag(app, f_.check);
    add_json_flag(app, f_.output);
    add_expect_flag(app, "--expect-W", f_.expect_W, "Least fitted W (one-way bandwidth) of every measured pair", false,
                    true);
    add_baseline_flags(app, f_.baseline);
  }

  int run(RunContext& ctx) override {
    const MPI_Comm world = ctx.mpi.world();
    const int nranks = ctx.mpi.size();
    link::LinkPlan plan;
    std::vector<GateExpectation> expectations;
    const NodeMemory node = node_memory(world);
    run_agreed(world, [&] {
      plan = make_plan(nranks);
      const ExpectFlag expect_W = expect_flag(f_.expect_W, "--expect-W", false, true);
      if (const double W = expect_W.at_least; W > 0)
        expectations.push_back({"W", W, 0,
                                fmt::format("--expect-W {}: the fitted W of every measured pair at least {} (a pair "
                                            "without a fit fails)",
                                            f_.expect_W, format_metric_value(W, "B/s"))});
      if (expect_W.hardware_fraction > 0) {
        GateExpectation g;
        g.metric = "W";
        g.hardware_fraction = expect_W.hardware_fraction;
        g.rule = fmt::format("--expect-W {}: the fitted W of every pair whose link reports a line rate at least {:g}% "
                             "of it (pairs in shared memory have none and are not judged; a pair without a fit fails)",
                             f_.expect_W, 100 * expect_W.hardware_fraction);
        expectations.push_back(std::move(g));
      }
      // A send, a receive and an expected buffer of the largest message.
      require_memory(node, 3 * plan.sizes.back(), fmt::format("--maxbytes {}", f_.maxbytes));
    });
    RunOutput out = RunOutput::agree(ctx, "link", "pairs", {f_.output.json, "", "", false});
    const link::Topology topo = link::discover_topology(world);
    const std::size_t total_pairs = static_cast<std::size_t>(nranks) * static_cast<std::size_t>(nranks - 1) / 2;
    const bool loaded = link::is_loaded(plan.pattern);
    const std::vector<int> shifts = link::pattern_shifts(plan.pattern, nranks);
    // What the pattern measures: pairs one at a time, or every rank's transfer in each shift.
    const std::size_t measured = link::all_ranks_at_once(plan.pattern)
                                     ? shifts.size() * static_cast<std::size_t>(nranks)
                                     : plan.pairs.size();
    link::LinkPlan idle_plan = plan;
    idle_plan.pattern = link::Pattern::PingPong;
    idle_plan.pairs = loaded ? link::idle_reference_pairs(plan.pattern, nranks, plan.pairs)
                             : std::vector<link::RankPair>{};
    // Progress steps: idle pairs, then pairs (pingpong, bidir) or shifts.
    const std::size_t loaded_steps = link::all_ranks_at_once(plan.pattern) ? shifts.size() : plan.pairs.size();
    const std::size_t total_steps = idle_plan.pairs.size() + loaded_steps;

    nlohmann::json fields{{"ranks", nranks},
                          {"nodes", topo.nodes},
                          {"pattern", link::to_string(plan.pattern)},
                          {"pattern_description", link::describe(plan.pattern)},
                          {"settings", settings_json(plan)},
                          {"aggregation", std::string(kAggregationNote) +
                                              (link::all_ranks_at_once(plan.pattern)
                                                   ? " (the ranks of a transfer: its sender and its receiver)"
                                                   : "")},
                          {"fit", kLinkFitNote},
                          {"node_of_rank", topo.node_of_rank},
                          {"host_of_rank", topo.host_of_rank},
                          {"pairs", nlohmann::json::array()}};
    if (loaded) {
      fields["idle_pairs"] = nlohmann::json::array();
      fields["idle_reference"] = "pattern pingpong of the same rank pairs, one pair at a time, measured first in this run";
    }
    if (link::all_ranks_at_once(plan.pattern)) fields["steps"] = nlohmann::json::array();
    out.begin_document(std::move(fields));
    nlohmann::json& doc = out.document();
    RunGate gate(ctx, f_.baseline, std::move(expectations), doc);

    // The table and its diagnostics: behind -v (the JSON keeps them).
    LinkConsoleReporter console(ctx.detail, nranks);
    console.header(plan, topo, measured, total_pairs);
    // The line rate of each pair's link, where the system reports one.
    const std::vector<hw::HostNet> nets = gather_host_nets(world);
    ctx.detail << "# W/line: the fitted W as a share of the line rate of the pair's link (the interface's reported "
               "speed, an InfiniBand port's rate, or SHARDROOF_LINE_RATE for a shaped link); - where the pair shares "
               "a host (memory) or nothing reports a rate\n";

    const auto make_result = [&](const link::PairMeasurement& m) {
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
      r.line_rate = hw::pair_line_rate(nets, m.pair.src, m.pair.dst);
      return r;
    };
    std::size_t steps_done = 0;
    // After each step: its results reach the file, so a run that dies keeps
    // them; every rank stops after the same step when any rank got SIGINT/SIGTERM.
    const auto step_done = [&](std::string_view what) {
      ++steps_done;
      ctx.progress << fmt::format("link: {} ({}/{}) done\n", what, steps_done, total_steps) << std::flush;
      out.publish(steps_done, total_steps);
      return !out.stop_requested(steps_done);
    };

    std::vector<LinkPairResult> idle_results;
    bool go_on = true;
    if (loaded) {
      console.idle_header(idle_plan.pairs.size());
      link::measure_pairs(world, idle_plan, [&](const link::PairMeasurement& m) {
        LinkPairResult r = make_result(m);
        console.row(r);
        doc["idle_pairs"].push_back(to_json(r));
        idle_results.push_back(std::move(r));
        go_on = step_done(fmt::format("idle pair {}-{}", m.pair.src, m.pair.dst));
        return go_on;
      });
    }
    // The idle fit of the pair that joins a and b, either way round.
    const auto idle_of = [&](const link::RankPair& p) -> std::optional<link::AlphaBetaFit> {
      if (!loaded) return std::nullopt;
      for (const auto& r : idle_results)
        if ((r.measured.pair.src == p.src && r.measured.pair.dst == p.dst) ||
            (r.measured.pair.src == p.dst && r.measured.pair.dst == p.src))
          return r.fit;
      return link::AlphaBetaFit{};  // not measured (an interrupted idle phase): no ratio
    };

    std::vector<LinkPairResult> results;
    std::vector<link::PairFit> fits;
    const auto add_result = [&](const link::PairMeasurement& m) {
      LinkPairResult r = make_result(m);
      r.idle = idle_of(m.pair);
      console.row(r);
      fits.push_back(to_pair_fit(r));
      doc["pairs"].push_back(to_json(r));
      results.push_back(std::move(r));
    };
    if (go_on) {
      if (loaded) console.columns(true);
      if (link::all_ranks_at_once(plan.pattern)) {
        link::measure_shifts(world, plan, [&](const link::RingProbeResult& step, int shift) {
          for (const auto& m : step.transfers) add_result(m);
          doc["steps"].push_back(step_json(step, shift));
          return step_done(fmt::format("shift {}", shift));
        });
      } else {
        link::measure_pairs(world, plan, [&](const link::PairMeasurement& m) {
          add_result(m);
          return step_done(fmt::format("pair {}-{}", m.pair.src, m.pair.dst));
        });
      }
    }

    const link::LinkSummary summary = link::summarize(fits);
    std::optional<link::ModelLink> model;
    try {
      model = link::model_link(fits);
      model->pattern = link::to_string(plan.pattern);
    } catch (const RuntimeError&) {
      model.reset();
    }
    doc["summary"] = to_json(summary);
    if (loaded) {
      std::vector<link::PairFit> idle_fits;
      for (const auto& r : idle_results) idle_fits.push_back(to_pair_fit(r));
      doc["idle_summary"] = to_json(link::summarize(idle_fits));
      doc["load"] = to_json(summarize_load(results));
    }
    int untrusted = 0;
    for (const auto& r : results) untrusted += r.fit.valid && !r.fit.trusted();
    doc["model_link"] = model ? nlohmann::json{{"W_bytes_per_s", model->W_bytes_per_s},
                                               {"alpha_s", model->alpha_s},
                                               {"source", model->source},
                                               {"pattern", model->pattern},
                                               {"pairs", model->pairs},
                                               {"pairs_not_described_by_the_fit", untrusted}}
                              : nlohmann::json(nullptr);
    if (model && untrusted > 0)
      doc["model_link"]["warning"] = fmt::format(
          "on {} pairs t(n) = alpha + n/W misses a measured time by more than {:.0f}%: W is the large messages' "
          "bandwidth, alpha the small messages' latency",
          untrusted, 100 * link::kTrustedResidual);
    // The summary and model link of an interrupted run cover the finished
    // pairs only; "interrupted" says so.
    long long wrong = 0;
    for (const auto* list : {&idle_results, &results})
      for (const auto& r : *list) wrong += r.measured.wrong > 0 ? r.measured.wrong : 0;
    return end_run(out, gate, doc,
                   {{},
                    [&] {
                      console.footer(results, summary, model);
                      if (ctx.mpi.is_root()) print_answer(ctx.out, answer_of(bringup::read_record(doc)));
                    },
                    true,
                    wrong > 0 ? fmt::format("{} {} bytes came back wrong", wrong, loaded ? "received or echoed" : "echoed")
                              : "",
                    ""});
  }

 private:
  link::LinkPlan make_plan(int nranks) const {
    const auto pattern = link::parse_pattern(f_.pattern);
    if (!pattern) throw_usage("--pattern: '{}' is not one of pingpong, bidir, shift, ring", f_.pattern);
    if (nranks < 2)
      throw_usage("link needs at least 2 ranks (run it under mpirun/srun), got {}{}", nranks,
                  link::all_ranks_at_once(*pattern) ? fmt::format(": --pattern {} sends between ranks", f_.pattern)
                                                    : "");
    link::LinkPlan plan;
    plan.pattern = *pattern;
    const auto lo = parse_bytes(f_.minbytes, "--minbytes");
    const auto hi = parse_bytes(f_.maxbytes, "--maxbytes");
    const double factor = parse_number(f_.stepfactor, "--stepfactor");
    if (lo > hi) throw_usage("--minbytes {} is larger than --maxbytes {}", lo, hi);
    if (hi > kMaxMessageBytes) throw_usage("--maxbytes: at most {} bytes (1G), got {}", kMaxMessageBytes, hi);
    if (!(factor > 1) && lo != hi) throw_usage("--stepfactor: {} never grows the size (needs > 1)", f_.stepfactor);
    plan.sizes = coll_sizes(lo, hi, factor > 1 ? factor : 2, 0, 1);
    plan.timing = timing_plan(f_.timing);
    plan.check = check_enabled(f_.check);
    if (link::all_ranks_at_once(plan.pattern) && f_.pairs != "all")
      throw_usage("--pairs {}: --pattern {} sends between all ranks at once and sets its own pairs (--pairs is for "
                  "pingpong and bidir)",
                  f_.pairs, f_.pattern);
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
            {"check", plan.check},
            {"pattern", link::to_string(plan.pattern)}};
  }

  LinkFlags f_;
};

}  // namespace

std::unique_ptr<Command> make_link_command() { return std::make_unique<LinkCommand>(); }

}  // namespace shardroof
